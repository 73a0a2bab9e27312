"""Kernels that never end (for the tests of the interpreter's step budget and of Ctrl-C)."""

ENDLESS_WHILE = """tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) -> (%C: !tirx.buffer<4xf32, global>) grid [1] threads [1] {
  %z = arith.constant 0 : index
  %r = scf.while (%x = %z) : (index) -> index {
    %t = arith.constant true
    scf.condition(%t) %x : index
  } do {
  ^bb0(%y: index):
    scf.yield %y : index
  }
  tirx.return
}
"""
"""An ``scf.while`` whose condition is always true (the while is at line 3, column 3)."""
