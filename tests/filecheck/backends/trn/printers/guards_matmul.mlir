// RUN: tirx-opt %s --pass-pipeline=trn -t nki | filecheck %s --check-prefix=CURRENT
// RUN: tirx-opt %s --pass-pipeline=trn -t nki-legacy | filecheck %s --check-prefix=LEGACY
// A gemm over a guarded K tile (K = 300: the loop's last K tile holds 44 rows), accumulating
// into a PSUM D: the contraction is guarded on the partitions of both operands, one matmul per
// K tile; the legacy matmul masks the contraction.

tirx.kernel @guarded_k(%AT: !tirx.buffer<300x128xf32, global>, %W: !tirx.buffer<300x512xf32, global>) -> (%Y: !tirx.buffer<128x512xf32, global>)
    grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x128xf32, trn.sbuf>
  %w = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %acc = tirx.alloc : !tirx.buffer<128x512xf32, trn.psum>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  %c300 = arith.constant 300 : index
  %a0 = tirx.slice %AT[0, 0] [128, 128] : !tirx.buffer<300x128xf32, global> -> !tirx.buffer<128x128xf32, global>
  %w0 = tirx.slice %W[0, 0] [128, 512] : !tirx.buffer<300x512xf32, global> -> !tirx.buffer<128x512xf32, global>
  tirx.copy %a, %a0 : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
  tirx.copy %w, %w0 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.gemm %acc, %a, %w transpose_a : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  scf.for %k = %c1 to %c3 step %c1 {
    %row = arith.muli %k, %c128 : index
    %left = arith.subi %c300, %row : index
    %rows = arith.minsi %c128, %left : index
    %ag = tirx.slice %AT[%row, 0] [%rows, 128] : !tirx.buffer<300x128xf32, global> -> !tirx.buffer<128x128xf32, global>
    %wg = tirx.slice %W[%row, 0] [%rows, 512] : !tirx.buffer<300x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    %as = tirx.slice %a[0, 0] [%rows, 128] : !tirx.buffer<128x128xf32, trn.sbuf> -> !tirx.buffer<128x128xf32, trn.sbuf>
    %ws = tirx.slice %w[0, 0] [%rows, 512] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.copy %as, %ag : !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x128xf32, global>
    tirx.copy %ws, %wg : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
    tirx.gemm %acc, %as, %ws transpose_a beta 1.0 : !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x128xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>
  }
  tirx.copy %y, %acc : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>
  tirx.copy %Y, %y : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

// CURRENT:      nisa.nc_matmul(dst=acc, stationary=a, moving=w, accumulate=False)
// CURRENT:      for k in range(1, 3):
// CURRENT:          nisa.nc_matmul(dst=acc, stationary=a[nl.ds(0, min(128, (300 - (k * 128)))), :], moving=w[nl.ds(0, min(128, (300 - (k * 128)))), :], accumulate=True)
// CURRENT-NOT:      nc_matmul

// LEGACY:       acc[i0, i1_1] = nisa.nc_matmul(a[i0, i1], w[i0, i1_1])
// LEGACY:       for k in nl.sequential_range(1, 3):
// LEGACY:           acc[i0, i1_1] += nisa.nc_matmul(a[i0, i1], w[i0, i1_1], mask=(i0 < -128 * k + 300))
// LEGACY-NOT:       nc_matmul
