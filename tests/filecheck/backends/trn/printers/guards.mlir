// RUN: tirx-opt %s --pass-pipeline=trn -t nki | filecheck %s --check-prefix=CURRENT
// RUN: tirx-opt %s --pass-pipeline=trn -t nki-legacy | filecheck %s --check-prefix=LEGACY
// A guarded loop (the last of 8 row tiles holds 104 rows): the current API slices with the
// guard as a traced size (nl.ds(start, size)); the legacy API masks each instruction with the
// guard's affine part (min(128, e) is e under the arange of 128). The every-stage numeric check
// of such kernels is tests/backends/trn/dispatch/test_guards.py.

tirx.kernel @guarded(%X: !tirx.buffer<1000x64xf32, global>) -> (%Y: !tirx.buffer<1000x64xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %t = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  %two = arith.constant 2.0 : f32
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %n = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %dst = tirx.slice %Y[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %ts = tirx.slice %t[0, 0] [%n, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %ts, %src : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
    tirx.mul %ts, %ts, %two : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
    tirx.copy %dst, %ts : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CURRENT:      t = nl.ndarray((128, 64), dtype=nl.float32, buffer=nl.sbuf, address=(0, 0))
// CURRENT:      for i in range(8):
// CURRENT-NEXT:     nisa.dma_copy(dst=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], src=X[nl.ds(128 * i, min(128, (1000 - (i * 128)))), :])
// CURRENT-NEXT:     nisa.tensor_scalar(dst=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], data=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], op0=nl.multiply, operand0=2.0, reverse0=False)
// CURRENT-NEXT:     nisa.dma_copy(dst=Y[nl.ds(128 * i, min(128, (1000 - (i * 128)))), :], src=t[nl.ds(0, min(128, (1000 - (i * 128)))), :])

// LEGACY:      for i in nl.sequential_range(8):
// LEGACY:          t[i0, i1] = nl.load(X[128 * i + i0, i1], mask=(i0 < -128 * i + 1000))
// LEGACY:          t[i0, i1] = nisa.tensor_scalar(data=t[i0, i1], op0=nl.multiply, operand0=2.0, reverse0=False, mask=(i0 < -128 * i + 1000))
// LEGACY:          nl.store(Y[128 * i + i0, i1], value=t[i0, i1], mask=(i0 < -128 * i + 1000))
