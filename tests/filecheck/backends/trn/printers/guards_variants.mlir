// RUN: tirx-opt %s --split-input-file --pass-pipeline=trn -t nki | filecheck %s --check-prefix=CURRENT
// RUN: tirx-opt %s --split-input-file --pass-pipeline=trn -t nki-legacy | filecheck %s --check-prefix=LEGACY
// Guarded views (the last of 8 row tiles holds 104 rows) through the variants beyond copy and
// elementwise/reduction: affine_select with a predicate over the loop variable, memset, fma,
// silu and the transposing copy (an identity matmul whose identity is sliced to the guarded
// partitions; the legacy matmul masks its contraction only). One guarded instruction per tile.
// The every-stage numeric checks are tests/backends/trn/dispatch/test_guards_compute.py and
// test_guards_tensor_engine.py.

tirx.kernel @select_loop_var(%X: !tirx.buffer<1000x64xf32, global>) -> (%Y: !tirx.buffer<1000x64xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %t = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %n = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %dst = tirx.slice %Y[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %ts = tirx.slice %t[0, 0] [%n, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %ts, %src : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
    %neg = arith.constant -1.0e30 : f32
    tirx.select %ts, %ts, %neg where (d0, d1)[s0] : (s0 * 128 + d0 - d1 >= 0) symbols [%i] : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32, index
    tirx.copy %dst, %ts : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CURRENT-LABEL: def select_loop_var(
// CURRENT:       nisa.affine_select(dst=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], pattern=[[-1, 64]], channel_multiplier=1, on_true_tile=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], on_false_value=-1.0000000150474662e+30, cmp_op=nl.greater_equal, offset=(i * 128))
// LEGACY-LABEL:  def select_loop_var(
// LEGACY:        t[i0, i1] = nisa.affine_select(pred=((i * 128) + 1 * i0 - 1 * i1 >= 0), on_true_tile=t[i0, i1], on_false_value=-1.0000000150474662e+30, mask=(i0 < -128 * i + 1000))

// -----

tirx.kernel @fill(%X: !tirx.buffer<1000x64xf32, global>) -> (%Y: !tirx.buffer<1000x64xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %t = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %n = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %dst = tirx.slice %Y[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %ts = tirx.slice %t[0, 0] [%n, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %ts, %src : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
    %three = arith.constant 3.0 : f32
    tirx.fill %ts, %three : !tirx.buffer<128x64xf32, trn.sbuf>, f32
    tirx.copy %dst, %ts : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CURRENT-LABEL: def fill(
// CURRENT:       nisa.memset(dst=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], value=3.0)
// LEGACY-LABEL:  def fill(
// LEGACY:        t[i0, i1] = nisa.memset(shape=(128, 64,), value=3.0, dtype=np.float32, mask=(i0 < -128 * i + 1000))

// -----

tirx.kernel @fma(%X: !tirx.buffer<1000x64xf32, global>) -> (%Y: !tirx.buffer<1000x64xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %t = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %n = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %dst = tirx.slice %Y[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %ts = tirx.slice %t[0, 0] [%n, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %ts, %src : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
    %two = arith.constant 2.0 : f32
    tirx.fma %ts, %ts, %ts, %two : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32
    tirx.copy %dst, %ts : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CURRENT-LABEL: def fma(
// CURRENT:       nisa.tensor_tensor(dst=buf[nl.ds(0, min(128, (1000 - (i * 128)))), :], data1=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], data2=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], op=nl.multiply)
// LEGACY-LABEL:  def fma(
// LEGACY:        buf[i0, i1] = nisa.tensor_tensor(data1=t[i0, i1], data2=t[i0, i1], op=nl.multiply, mask=(i0 < -128 * i + 1000))

// -----

tirx.kernel @silu(%X: !tirx.buffer<1000x64xf32, global>) -> (%Y: !tirx.buffer<1000x64xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %t = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %n = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %dst = tirx.slice %Y[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %ts = tirx.slice %t[0, 0] [%n, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %ts, %src : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
    tirx.silu %ts, %ts : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %dst, %ts : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CURRENT-LABEL: def silu(
// CURRENT:       nisa.activation(dst=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], op=nl.silu, data=t[nl.ds(0, min(128, (1000 - (i * 128)))), :])
// LEGACY-LABEL:  def silu(
// LEGACY:        t[i0, i1] = nisa.activation(op=nl.silu, data=t[i0, i1], mask=(i0 < -128 * i + 1000))

// -----

tirx.kernel @transpose(%X: !tirx.buffer<1000x64xf32, global>) -> (%Y: !tirx.buffer<1000x64xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %t = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %c1000 = arith.constant 1000 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %row = arith.muli %i, %c128 : index
    %left = arith.subi %c1000, %row : index
    %n = arith.minsi %c128, %left : index
    %src = tirx.slice %X[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %dst = tirx.slice %Y[%row, 0] [%n, 64] : !tirx.buffer<1000x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %ts = tirx.slice %t[0, 0] [%n, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %ts, %src : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
    %u = tirx.alloc : !tirx.buffer<64x128xf32, trn.sbuf>
    %us = tirx.slice %u[0, 0] [64, %n] : !tirx.buffer<64x128xf32, trn.sbuf> -> !tirx.buffer<64x128xf32, trn.sbuf>
    %tt = tirx.transpose %ts [1, 0] : !tirx.buffer<128x64xf32, trn.sbuf> -> !tirx.buffer<64x128xf32, trn.sbuf>
    tirx.copy %us, %tt : !tirx.buffer<64x128xf32, trn.sbuf>, !tirx.buffer<64x128xf32, trn.sbuf>
    %ut = tirx.transpose %us [1, 0] : !tirx.buffer<64x128xf32, trn.sbuf> -> !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %ts, %ut : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>
    tirx.copy %dst, %ts : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CURRENT-LABEL: def transpose(
// CURRENT:       nisa.nc_matmul(dst=buf_1[:, nl.ds(0, min(128, (1000 - (i * 128))))], stationary=t[nl.ds(0, min(128, (1000 - (i * 128)))), :], moving=buf[nl.ds(0, min(128, (1000 - (i * 128)))), nl.ds(0, min(128, (1000 - (i * 128))))], accumulate=False)
// CURRENT:       nisa.tensor_copy(dst=u[:, nl.ds(0, min(128, (1000 - (i * 128))))], src=buf_1[:, nl.ds(0, min(128, (1000 - (i * 128))))])
// LEGACY-LABEL:  def transpose(
// LEGACY:        buf_1[i0_1, i1] = nisa.nc_matmul(t[i0, i1_1], buf[i0, i1], mask=(i0 < -128 * i + 1000))
// LEGACY:        u[i0_1, i1] = nisa.tensor_copy(src=buf_1[i0_1, i1], mask=(i1 < -128 * i + 1000))
// LEGACY:        buf_2[i0, i1_1] = nisa.nc_matmul(u[i0_1, i1], buf[i0_1, i1_1])
