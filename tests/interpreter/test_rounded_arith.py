"""tirx_mlir.interpreter.rounded_arith: each f32 operation in each mode gives the neighbour of
the exact value (a Python Fraction) that the mode picks (found by nextafter:
tirx_testing/float_neighbours), over f32's whole range (subnormals, overflow, ties), with
IEEE's signed zeros; and the tile level runs an op's rounding_mode that way."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.interpreter.rounded_arith import KINDS, rounded
from tirx_mlir.located_parser import parse_module
from tirx_testing.float_neighbours import compare_with, exact_roundings

MODES = ("rn", "rz", "rm", "rp")


def _values(seed: int, n: int = 1500) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(3):
        x = rng.standard_normal(n) * 10.0 ** rng.integers(-44, 38, n)
        x = x.astype(np.float32)
        x[x == 0] = np.float32(1.0)  # an underflow (no division by zero)
        out.append(x)
    a, b, c = out
    b[:50] = (a[:50].astype(np.float64) * (1 + 2.0 ** -20)).astype(np.float32)
    a[50:70], b[50:70] = 1.0, np.float32(2.0 ** -24) * np.arange(1, 21)  # ties of add
    return out


def _sign(d: Fraction) -> int:
    return (d > 0) - (d < 0)


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "sqrt"])
def test_each_mode_picks_the_neighbour_of_the_exact_value(kind):
    a, b, c = _values(KINDS.index(kind))
    F = [[Fraction(float(v)) for v in x] for x in (a, b, c)]
    exact = {"add": lambda x, y, z: x + y, "sub": lambda x, y, z: x - y,
             "mul": lambda x, y, z: x * y, "div": lambda x, y, z: x / y,
             "fma": lambda x, y, z: x * y + z, "rcp": lambda x, y, z: 1 / x}[kind]
    values = [exact(*xyz) for xyz in zip(*F)]
    args = {"rcp": [a], "fma": [a, b, c]}.get(kind, [a, b])
    want = exact_roundings(compare_with(values), rounded(kind, args, "rn"))
    nonzero = np.array([v != 0 for v in values])
    for mode in MODES:
        got = rounded(kind, args, mode)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got.view(np.uint32)[nonzero],
                                      want[mode].view(np.uint32)[nonzero], f"{kind} {mode}")


def test_sqrt_picks_the_neighbour_of_the_exact_root():
    a = np.abs(_values(9)[0])
    exact = [Fraction(float(v)) for v in a]
    want = exact_roundings(lambda i, v: _sign(v * abs(v) - exact[i]), rounded("sqrt", [a], "rn"))
    for mode in MODES:
        np.testing.assert_array_equal(rounded("sqrt", [a], mode).view(np.uint32),
                                      want[mode].view(np.uint32), mode)


def test_exact_zero_sums_are_signed_as_ieee_says():
    """x + -x and +0 + -0 are +0, or -0 toward -inf; -0 + -0 is -0 in every mode."""
    x = np.array([1.5, 0.0, -0.0, 0.0], np.float32)
    y = np.array([-1.5, -0.0, -0.0, 0.0], np.float32)
    for mode in MODES:
        neg = mode == "rm"
        expected = np.array([neg, neg, True, False])
        for got in (rounded("add", [x, y], mode), rounded("fma", [x, np.ones(4), y], mode)):
            np.testing.assert_array_equal(np.signbit(got), expected, mode)
            assert (got == 0).all()


def test_the_modes_disagree_on_these_values():
    a, b, _ = _values(1)
    outs = [rounded("add", [a, b], m).view(np.uint32) for m in MODES]
    for i, x in enumerate(outs):
        for y in outs[i + 1:]:
            assert (x != y).sum() > 100


def test_unknown_kind():
    with pytest.raises(ValueError, match="unknown rounded operation 'exp'"):
        rounded("exp", [np.ones(2)], "rz")


@pytest.mark.parametrize("mode,expected", [
    ("rn", [1.0, 1.0, 2.0 ** 127 * 2]), ("rz", [1.0, 1.0, 3.4028234663852886e38]),
    ("rp", [1.0000001, 1.0000001, np.inf]), ("rm", [1.0, 1.0, 3.4028234663852886e38])])
def test_an_add_with_a_rounding_mode_runs_that_way_at_the_tile_level(mode, expected):
    text = f"""tirx.kernel @k(%X: !tirx.buffer<3xf32, global>, %Y: !tirx.buffer<3xf32, global>) -> (%Z: !tirx.buffer<3xf32, global>)
    grid [1] threads [1] {{
  tirx.add thread %Z, %X, %Y config {{rounding_mode = "{mode}"}} : !tirx.buffer<3xf32, global>, !tirx.buffer<3xf32, global>, !tirx.buffer<3xf32, global>
  tirx.return
}}
"""
    big = np.float32(3.4028234663852886e38)
    x = np.array([1.0, 1.0, big], np.float32)
    y = np.array([2.0 ** -25, 2.0 ** -24, big * np.float32(2.0 ** -23)], np.float32)
    (z,) = KernelRunner(parse_module(text, "k"))(x, y)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(z, np.array(expected, np.float32))
