// RUN: tirx-opt %s --pass-pipeline=trn -t nki | filecheck %s --check-prefix=CURRENT
// RUN: tirx-opt %s --pass-pipeline=trn -t nki-legacy | filecheck %s --check-prefix=LEGACY
// A select predicate over a loop variable and a CTA id (symbols of the integer set): the
// symbols' part of each constraint is an index expression added to the affine_select offset,
// evaluated at trace time by the current API and an affine term of the legacy predicate.
// tests/backends/trn/dispatch/test_select_symbols.py runs such kernels on the NKI stand-in.

tirx.kernel @ragged_rows(%S: !tirx.buffer<384x64xf32, global>) -> (%M: !tirx.buffer<384x64xf32, global>)
    grid [2] threads [1] target "aws/trn1/trn1.2xlarge" {
  %s = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %b = tirx.cta_id x : index
  scf.for %i = %c0 to %c3 step %c1 {
    %row = arith.muli %i, %c128 : index
    %src = tirx.slice %S[%row, 0] [128, 64] : !tirx.buffer<384x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    %dst = tirx.slice %M[%row, 0] [128, 64] : !tirx.buffer<384x64xf32, global> -> !tirx.buffer<128x64xf32, global>
    tirx.copy %s, %src : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
    tirx.select %s, %s, %zero where (d0, d1)[s0, s1] : (299 - s0 * 128 - d0 + s1 >= 0) symbols [%i, %b] : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, trn.sbuf>, f32, index, index
    tirx.copy %dst, %s : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  }
  tirx.return
}

// CURRENT:      for i in range(3):
// CURRENT:        nisa.affine_select(dst=s, pattern=[[0, 64]], channel_multiplier=-1, on_true_tile=s, on_false_value=0.0, cmp_op=nl.greater_equal, offset=299 + {{.*}}i{{.*}}nl.program_id(0){{.*}})

// LEGACY:       for i in nl.sequential_range(3):
// LEGACY:         s[i0, i1] = nisa.affine_select(pred=(299 + {{.*}}i{{.*}}nl.program_id(0){{.*}} - 1 * i0 + 0 * i1 >= 0), on_true_tile=s[i0, i1], on_false_value=0.0)
