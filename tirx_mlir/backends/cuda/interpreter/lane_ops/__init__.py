"""Value semantics of the SIMT interpreter: pure numpy operations on lane arrays.

* `arith_lanes.ARITH_LANES`, `math_lanes.MATH_LANES`: every ``arith`` and ``math`` op, lane by
  lane equal to the core scalar interpreter (tirx_mlir/interpreter/arith.py, math.py), as
  ``fn(op, args, mask) -> results``;
* `integer`, `floating`: the integer and float functions they are made of;
* `lanes`: lane dtypes, wrapping, the unsigned view, and `LaneFault`, which an operation raises
  for the active lanes on which it is undefined (the engine reports them as threads).
"""
