// RUN: tirx-opt %s --pass-pipeline=trn -t nki | filecheck %s --check-prefix=CUR
// RUN: tirx-opt %s --pass-pipeline=trn -t nki-legacy | filecheck %s --check-prefix=LEG
// HBM tensors with layouts (docs/trn.md, HBM layouts): the printed kernel takes each as the flat
// array the layout fills and indexes it by the layout's strides. %A is column-major, %C has rows
// 520 elements apart after 8 elements of padding; tile %i of the loop starts at row 128 * i.

tirx.kernel @scale(%A: !tirx.buffer<256x512xf32, global, S[(256,512):(1,256)]>) -> (%C: !tirx.buffer<256x512xf32, global, S[(256,512):(520,1)] + 8>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %two = arith.constant 2.0 : f32
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  scf.for %i = %c0 to %c2 step %c1 {
    %row = arith.muli %i, %c128 : index
    %a = tirx.slice %A[%row, %c0] [128, 512] : !tirx.buffer<256x512xf32, global, S[(256,512):(1,256)]> -> !tirx.buffer<128x512xf32, global>
    %o = tirx.slice %C[%row, %c0] [128, 512] : !tirx.buffer<256x512xf32, global, S[(256,512):(520,1)] + 8> -> !tirx.buffer<128x512xf32, global>
    tirx.copy %x, %a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
    tirx.mul %x, %x, %two : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
    tirx.copy %o, %x : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}

// CUR:      def scale(A):
// CUR-NEXT:     # A: [256, 512] laid out in HBM as S[(256,512):(1,256)]: pass a flat array of 131072 elements; [i0, i1] is at i0 + i1 * 256
// CUR-NEXT:     # C: [256, 512] laid out in HBM as S[(256,512):(520,1)] + 8: pass a flat array of 133120 elements; [i0, i1] is at 8 + i0 * 520 + i1
// CUR-NEXT:     C = nl.ndarray((133120,), dtype=nl.float32, buffer=nl.shared_hbm)
// CUR:          for i in range(2):
// CUR-NEXT:         nisa.dma_copy(dst=x, src=A.ap(pattern=[[1, 128], [256, 512]], offset=128 * i))
// CUR:              nisa.dma_copy(dst=C.ap(pattern=[[520, 128], [1, 512]], offset=66560 * i + 8), src=x)
// CUR-NEXT:     return C

// LEG:      def scale(A, C: nt.mutable_tensor):
// LEG-NEXT:     # A: [256, 512] laid out in HBM as S[(256,512):(1,256)]: pass a flat array of 131072 elements; [i0, i1] is at i0 + i1 * 256
// LEG:          for i in nl.sequential_range(2):
// LEG:              x[i0, i1] = nl.load(A[128 * i + i0 + 256 * i1])
// LEG:              nl.store(C[66560 * i + 8 + 520 * i0 + i1], value=x[i0, i1])
// LEG-NEXT:     return C
