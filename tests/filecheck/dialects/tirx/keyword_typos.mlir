// RUN: tirx-opt %s --split-input-file --verify-diagnostics
// A misspelt keyword of an op names the word and what the op takes (the Python builder's
// message, stated once in op_syntax.unknown_keyword).

tirx.kernel @k(%A: !tirx.buffer<4x8xf32, global>) grid [1] threads [1] {
  %B = tirx.alloc : !tirx.buffer<4x1xf32, global>
  // expected-error@+1 {{tirx.sum has no operand or property 'axis'; it takes dst, src, workspace, axes, accum}}
  tirx.sum %B, %A axis [1] : !tirx.buffer<4x1xf32, global>, !tirx.buffer<4x8xf32, global>
  tirx.return
}

// -----

tirx.kernel @k(%A: !tirx.buffer<4x8xf32, global>) grid [1] threads [1] {
  // expected-error@+1 {{tirx.exp has no operand or property 'bais'; it takes dst, src, bias, scale}}
  tirx.exp %A, %A bais %A : !tirx.buffer<4x8xf32, global>, !tirx.buffer<4x8xf32, global>
  tirx.return
}
