"""value_range through remainders and quotients by constants (access.quotient_range): every value
the op computes over the loop lies in the range, and the range is exact where TVM's analyzer is
(a quotient of one variable; a remainder of a non-negative variable that does not wrap)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

import tirx_mlir  # noqa: F401
from tirx_mlir.dialects.tirx.access import value_range
from tirx_mlir.located_parser import parse_module

OPS = {
    "remsi": lambda x, c: np.fmod(x, c), "remui": lambda x, c: x % c,
    "floordivsi": lambda x, c: x // c, "divsi": lambda x, c: np.trunc(x / c).astype(int),
    "divui": lambda x, c: x // c, "ceildivsi": lambda x, c: -(-x // c),
}


def _range_of(op: str, lb: int, ub: int, step: int, a: int, b: int, c: int):
    text = f"""
    func.func @f() {{
      %lb = arith.constant {lb} : index
      %ub = arith.constant {ub} : index
      %st = arith.constant {step} : index
      %a = arith.constant {a} : index
      %b = arith.constant {b} : index
      %c = arith.constant {c} : index
      scf.for %i = %lb to %ub step %st {{
        %t = arith.muli %i, %a : index
        %x = arith.addi %t, %b : index
        %r = arith.{op} %x, %c : index
      }}
      func.return
    }}"""
    module = parse_module(text, "quotients")
    (r,) = [o for o in module.walk() if o.name == f"arith.{op}"]
    return value_range(r.results[0])


@settings(max_examples=150, deadline=None)
@given(op=st.sampled_from(sorted(OPS)), lb=st.integers(-20, 20), n=st.integers(1, 12),
       step=st.integers(1, 4), a=st.integers(-3, 3), b=st.integers(-10, 10),
       c=st.integers(1, 9))
def test_range_holds_every_value(op, lb, n, step, a, b, c):
    ub = lb + n * step
    values = OPS[op](np.arange(lb, ub, step) * a + b, c)
    rng = _range_of(op, lb, ub, step, a, b, c)
    x = np.arange(lb, ub, step) * a + b
    if op in ("remui", "divui") and x.min() < 0:
        assert rng is None  # a negative value read as unsigned has no small range
        return
    assert rng is not None
    assert rng[0] <= values.min() and values.max() <= rng[1], (rng, values)
    if op not in ("remsi", "remui") and a == 1:
        assert rng == (values.min(), values.max())


def test_remainder_ranges():
    assert _range_of("remsi", 0, 8, 1, 1, 0, 2) == (0, 1)
    assert _range_of("remsi", 0, 3, 1, 1, 4, 8) == (4, 6)      # 4..6 does not wrap 8
    assert _range_of("remsi", 0, 6, 1, 1, 4, 8) == (0, 7)      # 4..9 wraps
    assert _range_of("remsi", 0, 4, 1, -1, 0, 3) == (-2, 0)    # truncating, as the op
    assert _range_of("floordivsi", 0, 8, 1, 1, -3, 2) == (-2, 2)
    assert _range_of("divui", 0, 4, 1, 1, -1, 2) is None


def test_a_negative_divisor_gives_no_range():
    assert _range_of("floordivsi", 0, 8, 1, 1, 0, -2) is None
