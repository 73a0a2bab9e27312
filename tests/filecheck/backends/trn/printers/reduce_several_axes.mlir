// RUN: tirx-opt %s --pass-pipeline=trn -t nki | filecheck %s --check-prefix=CUR
// RUN: tirx-opt %s --pass-pipeline=trn -t nki-legacy | filecheck %s --check-prefix=LEG
// A sum over two axes into a [128, 1] column: legacy tensor_reduce keeps the source's rank
// (keepdims=True) and the destination is indexed in that rank.

tirx.kernel @red(%X: !tirx.buffer<128x4x64xf32, global>) -> (%S: !tirx.buffer<128x1xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x4x64xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x4x64xf32, trn.sbuf>, !tirx.buffer<128x4x64xf32, global>
  tirx.sum %s, %x axes [1, 2] : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x4x64xf32, trn.sbuf>
  tirx.copy %S, %s : !tirx.buffer<128x1xf32, global>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}

// CUR: nisa.tensor_reduce(dst=s, op=nl.add, data=x.ap(pattern=[[256, 128], [64, 4], [1, 64]], offset=0), axis=[1, 2], negate=False, keepdims=False)

// LEG:      x[i0, 64 * i1 + i2] = nl.load(X[i0, i1, i2])
// LEG-NEXT: i0 = nl.arange(128)[:, None, None]
// LEG-NEXT: i1 = nl.arange(4)[None, :, None]
// LEG-NEXT: i2 = nl.arange(64)[None, None, :]
// LEG-NEXT: s[i0, 0] = nisa.tensor_reduce(op=nl.add, data=x[i0, 64 * i1 + i2], axis=[1, 2], negate=False, keepdims=True)
