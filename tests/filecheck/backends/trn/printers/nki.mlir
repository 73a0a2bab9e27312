// RUN: tirx-opt %s --split-input-file -t nki | filecheck %s
// Post-pipeline IR of TVM's golden NKI kernels (tests/python/tirx/codegen/test_codegen_nki.py,
// the NKI tutorials), printed for the current NKI API. nki_legacy.mlir prints the
// same file with -t nki-legacy; tests/backends/trn/printers/test_nki_printers.py runs both outputs on numpy.

// nki_add_1: B = A + 1 on one (128, 512) tile.
tirx.kernel @nki_add_1(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %A_sbuf = tirx.alloc {trn.addr = 0 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %B_sbuf = tirx.alloc {trn.addr = 2048 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %one = arith.constant 1.0 : f32
  nki.load %A_sbuf, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  nki.tensor_scalar %B_sbuf, %A_sbuf, %one op0 add : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
  nki.store %B, %B_sbuf : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CHECK:      import nki
// CHECK:      @nki.jit
// CHECK-NEXT: def nki_add_1(A):
// CHECK-NEXT:     B = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.shared_hbm)
// CHECK-NEXT:     A_sbuf = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
// CHECK-NEXT:     B_sbuf = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.sbuf, address=(0, 2048))
// CHECK-NEXT:     nisa.dma_copy(dst=A_sbuf, src=A)
// CHECK-NEXT:     nisa.tensor_scalar(dst=B_sbuf, data=A_sbuf, op0=nl.add, operand0=1.0, reverse0=False)
// CHECK-NEXT:     nisa.dma_copy(dst=B, src=B_sbuf)
// CHECK-NEXT:     return B

// -----

// nki_add_2: (128, 2048) in four 512-column chunks.
tirx.kernel @nki_add_2(%A: !tirx.buffer<128x2048xf32, global>) -> (%B: !tirx.buffer<128x2048xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %A_sbuf = tirx.alloc {trn.addr = 0 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %B_sbuf = tirx.alloc {trn.addr = 2048 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c512 = arith.constant 512 : index
  scf.for %k = %c0 to %c4 step %c1 {
    %col = arith.muli %k, %c512 : index
    %a = tirx.slice %A[0, %col] [128, 512] : !tirx.buffer<128x2048xf32, global> -> !tirx.buffer<128x512xf32, global>
    nki.load %A_sbuf, %a : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
    nki.tensor_scalar %B_sbuf, %A_sbuf, %one op0 add : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32
    %b = tirx.slice %B[0, %col] [128, 512] : !tirx.buffer<128x2048xf32, global> -> !tirx.buffer<128x512xf32, global>
    nki.store %b, %B_sbuf : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.return
}

// CHECK:      def nki_add_2(A):
// CHECK:          for k in range(4):
// CHECK-NEXT:         nisa.dma_copy(dst=A_sbuf, src=A[:, nl.ds(512 * k, 512)])
// CHECK-NEXT:         nisa.tensor_scalar(dst=B_sbuf, data=A_sbuf, op0=nl.add, operand0=1.0, reverse0=False)
// CHECK-NEXT:         nisa.dma_copy(dst=B[:, nl.ds(512 * k, 512)], src=B_sbuf)
// CHECK-NEXT:     return B

// -----

// nki_matmul_1: result[M, N] = lhsT[K, M].T @ rhs[K, N] in fp16 with fp32 accumulation;
// K = 1024, M = 4096, N = 2048; blocks of 16 x 1 x 8 tiles of 128 x 512 x 128.
tirx.kernel @nki_matmul_1(%lhsT: !tirx.buffer<1024x4096xf16, global>, %rhs: !tirx.buffer<1024x2048xf16, global>) -> (%result: !tirx.buffer<4096x2048xf16, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %result_tiles = tirx.alloc {trn.addr = 0 : i64} : !tirx.buffer<128x2x16x1x512xf32, trn.sbuf>
  %rhs_tiles = tirx.alloc {trn.addr = 65536 : i64} : !tirx.buffer<128x8x512xf16, trn.sbuf>
  %lhsT_tiles = tirx.alloc {trn.addr = 73728 : i64} : !tirx.buffer<128x8x2048xf16, trn.sbuf>
  %res_tile = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %result_packed = tirx.alloc {trn.addr = 106496 : i64} : !tirx.buffer<128x512xf32, trn.sbuf>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %c2048 = arith.constant 2048 : index
  scf.for %n = %c0 to %c4 step %c1 {
    %ncol = arith.muli %n, %c512 : index
    nki.memset %result_tiles, %zero : !tirx.buffer<128x2x16x1x512xf32, trn.sbuf>, f32
    scf.for %bk_r = %c0 to %c8 step %c1 {
      %krow = arith.muli %bk_r, %c128 : index
      %dst = tirx.slice %rhs_tiles[0, %bk_r, 0] [128, 1, 512] : !tirx.buffer<128x8x512xf16, trn.sbuf> -> !tirx.buffer<128x1x512xf16, trn.sbuf>
      %src = tirx.slice %rhs[%krow, %ncol] [128, 512] : !tirx.buffer<1024x2048xf16, global> -> !tirx.buffer<128x512xf16, global>
      nki.load %dst, %src : !tirx.buffer<128x1x512xf16, trn.sbuf>, !tirx.buffer<128x512xf16, global>
    }
    scf.for %m = %c0 to %c2 step %c1 {
      %mcol = arith.muli %m, %c2048 : index
      scf.for %bk_l = %c0 to %c8 step %c1 {
        %krow = arith.muli %bk_l, %c128 : index
        %dst = tirx.slice %lhsT_tiles[0, %bk_l, 0] [128, 1, 2048] : !tirx.buffer<128x8x2048xf16, trn.sbuf> -> !tirx.buffer<128x1x2048xf16, trn.sbuf>
        %src = tirx.slice %lhsT[%krow, %mcol] [128, 2048] : !tirx.buffer<1024x4096xf16, global> -> !tirx.buffer<128x2048xf16, global>
        nki.load %dst, %src : !tirx.buffer<128x1x2048xf16, trn.sbuf>, !tirx.buffer<128x2048xf16, global>
      }
      scf.for %bm = %c0 to %c16 step %c1 {
        %mrow = arith.muli %bm, %c128 : index
        nki.memset %res_tile, %zero : !tirx.buffer<128x512xf32, trn.psum>, f32
        scf.for %bk = %c0 to %c8 step %c1 {
          %stat = tirx.slice %lhsT_tiles[0, %bk, %mrow] [128, 1, 128] : !tirx.buffer<128x8x2048xf16, trn.sbuf> -> !tirx.buffer<128x1x128xf16, trn.sbuf>
          %mov = tirx.slice %rhs_tiles[0, %bk, 0] [128, 1, 512] : !tirx.buffer<128x8x512xf16, trn.sbuf> -> !tirx.buffer<128x1x512xf16, trn.sbuf>
          nki.matmul %res_tile, %stat, %mov accumulate : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x1x128xf16, trn.sbuf>, !tirx.buffer<128x1x512xf16, trn.sbuf>
        }
        %acc = tirx.slice %result_tiles[0, %m, %bm, 0, 0] [128, 1, 1, 1, 512] : !tirx.buffer<128x2x16x1x512xf32, trn.sbuf> -> !tirx.buffer<128x1x1x1x512xf32, trn.sbuf>
        nki.tensor_tensor %acc, %acc, %res_tile op add : !tirx.buffer<128x1x1x1x512xf32, trn.sbuf>, !tirx.buffer<128x1x1x1x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
      }
    }
    scf.for %m = %c0 to %c2 step %c1 {
      %mbase = arith.muli %m, %c2048 : index
      scf.for %bm = %c0 to %c16 step %c1 {
        %acc = tirx.slice %result_tiles[0, %m, %bm, 0, 0] [128, 1, 1, 1, 512] : !tirx.buffer<128x2x16x1x512xf32, trn.sbuf> -> !tirx.buffer<128x1x1x1x512xf32, trn.sbuf>
        nki.tensor_copy %result_packed, %acc : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x1x1x1x512xf32, trn.sbuf>
        %bm_off = arith.muli %bm, %c128 : index
        %row = arith.addi %mbase, %bm_off : index
        %out = tirx.slice %result[%row, %ncol] [128, 512] : !tirx.buffer<4096x2048xf16, global> -> !tirx.buffer<128x512xf16, global>
        nki.store %out, %result_packed : !tirx.buffer<128x512xf16, global>, !tirx.buffer<128x512xf32, trn.sbuf>
      }
    }
  }
  tirx.return
}

// CHECK:      def nki_matmul_1(lhsT, rhs):
// CHECK-NEXT:     result = nl.ndarray((4096, 2048), dtype=nl.float16, buffer=nl.shared_hbm)
// CHECK:          res_tile = nl.ndarray((128, 512), dtype=nl.float32, buffer=nl.psum)
// CHECK:          for n in range(4):
// CHECK-NEXT:         nisa.memset(dst=result_tiles, value=0.0)
// CHECK-NEXT:         for bk_r in range(8):
// CHECK-NEXT:             nisa.dma_copy(dst=rhs_tiles[:, bk_r, :], src=rhs[nl.ds(128 * bk_r, 128), nl.ds(512 * n, 512)])
// CHECK:                      nisa.nc_matmul(dst=res_tile, stationary=lhsT_tiles[:, bk, nl.ds(128 * bm, 128)], moving=rhs_tiles[:, bk, :], accumulate=True)
// CHECK-NEXT:             nisa.tensor_tensor(dst=result_tiles[:, m, bm, 0, :], data1=result_tiles[:, m, bm, 0, :], data2=res_tile, op=nl.add)
// CHECK:                  nisa.tensor_copy(dst=result_packed, src=result_tiles[:, m_1, bm_1, 0, :])
// CHECK-NEXT:             nisa.dma_copy(dst=result[nl.ds(2048 * m_1 + 128 * bm_1, 128), nl.ds(512 * n, 512)], src=result_packed)
// CHECK-NEXT:     return result
