// RUN: tirx-opt %s --pass-pipeline=trn -t nki | filecheck %s --check-prefix=CUR
// RUN: tirx-opt %s --pass-pipeline=trn -t nki-legacy | filecheck %s --check-prefix=LEG
// tirx.reshape merging dims: [128, 4, 512] viewed as [128, 2048], in HBM (%X) and on chip (%x).
// The merge moves no data: the HBM view is indexed in the tensor's flat array, the on-chip one
// is the physical tile itself.

tirx.kernel @merge(%X: !tirx.buffer<128x4x512xf32, global>) -> (%S: !tirx.buffer<128x1xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x4x512xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %mx = tirx.reshape %X : !tirx.buffer<128x4x512xf32, global> -> !tirx.buffer<128x2048xf32, global>
  %m = tirx.reshape %x : !tirx.buffer<128x4x512xf32, trn.sbuf> -> !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.copy %m, %mx : !tirx.buffer<128x2048xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, global>
  tirx.max %s, %m : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.copy %S, %s : !tirx.buffer<128x1xf32, global>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CUR:      x = nl.ndarray((128, 2048), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
// CUR:      nisa.dma_copy(dst=x.ap(pattern=[[2048, 128], [512, 4], [1, 512]], offset=0), src=X.ap(pattern=[[2048, 128], [512, 4], [1, 512]], offset=0))
// CUR-NEXT: nisa.tensor_reduce(dst=s, op=nl.maximum, data=x.ap(pattern=[[2048, 128], [512, 4], [1, 512]], offset=0), axis=[1, 2], negate=False, keepdims=False)

// LEG:      x[i0, 512 * i1 + i2] = nl.load(X.reshape([262144])[2048 * i0 + 512 * i1 + i2])
// LEG:      s[i0, 0] = nisa.tensor_reduce(op=nl.maximum, data=x[i0, 512 * i1 + i2], axis=[1, 2], negate=False, keepdims=True)
