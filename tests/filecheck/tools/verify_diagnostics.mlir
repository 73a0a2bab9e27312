// RUN: tirx-opt %s --split-input-file --verify-diagnostics
// mlir-opt's diagnostic verifier: every expected-error comment must match the diagnostic on its
// line (or @+N / @above lines away), per chunk; a parse error, a verifier error and a pass error
// all count.

// expected-error@+1 {{tirx.lane_id must be inside a tirx.kernel}}
%0 = tirx.lane_id : index

// -----

tirx.kernel @k() grid [1] threads [32] {
  %a = tirx.alloc : !tirx.buffer<4xf32, shared>
  %b = tirx.alloc : !tirx.buffer<8xf32, shared>
  tirx.copy warp %a, %b : !tirx.buffer<4xf32, shared>, !tirx.buffer<8xf32, shared>
  // expected-error@above {{the source [8] neither has the destination's shape [4]}}
  tirx.return
}

// -----

// expected-error-re@below {{unknown operation 'foo.{{[a-z]+}}'}}
"foo.bar"() : () -> ()

// -----

// A chunk without errors and without expectations passes.
tirx.kernel @ok() grid [1] threads [1] {
  tirx.return
}
