"""tirx_mlir.interpreter.rounding: each mode picks the right neighbour of the exact value (found
here by numpy's nextafter from the nearest one), at ties, exact values, signed zeros, subnormals
and past the largest finite value; and a tirx.cast with rounding_mode runs that way at the tile
level."""

from __future__ import annotations

import numpy as np
import pytest
from ml_dtypes import bfloat16

from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.interpreter.rounding import round_float
from tirx_mlir.located_parser import parse_module
from tirx_testing.float_neighbours import neighbours


VALUES = np.array([1 + 2.0 ** -11, -(1 + 2.0 ** -11), 1 + 2.0 ** -8, 1 + 2.0 ** -24,
                   -(1 + 2.0 ** -30), 1.0, -0.0, 0.0, 65504.0, 65519.0, 70000.0, -70000.0,
                   1e-8, -1e-8, 3e-39, 1e39, np.inf, -np.inf])


@pytest.mark.parametrize("dt", [np.float16, bfloat16, np.float32])
def test_each_mode_picks_its_neighbour(dt):
    x = np.concatenate([VALUES, np.random.default_rng(0).standard_normal(1000) * 1e3])
    lo, hi = neighbours(x, dt)
    with np.errstate(over="ignore"):
        near = x.astype(dt)
    want = {"rn": near, "rm": lo, "rp": hi, "rz": np.where(x > 0, lo, hi)}
    for mode, expected in want.items():
        got = round_float(x, np.dtype(dt), mode)
        assert got.dtype == np.dtype(dt)
        np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8), mode)


def test_unknown_mode():
    with pytest.raises(ValueError, match="unknown rounding mode 'rna'"):
        round_float(np.array([1.5]), np.dtype(np.float16), "rna")


@pytest.mark.parametrize("mode,expected", [("rn", [1.0, 65504.0, np.inf]),
                                           ("rz", [1.0, 65504.0, 65504.0]),
                                           ("rp", [1.0009765625, np.inf, np.inf])])
def test_a_cast_rounds_in_its_rounding_mode_at_the_tile_level(mode, expected):
    text = f"""tirx.kernel @k(%X: !tirx.buffer<3xf32, global>) -> (%Y: !tirx.buffer<3xf16, global>)
    grid [1] threads [1] {{
  tirx.cast thread %Y, %X config {{rounding_mode = "{mode}"}} : !tirx.buffer<3xf16, global>, !tirx.buffer<3xf32, global>
  tirx.return
}}
"""
    x = np.array([1 + 2.0 ** -20, 65504.0 + 8, 70000.0], np.float32)
    (y,) = KernelRunner(parse_module(text, "k"))(x)
    np.testing.assert_array_equal(y, np.array(expected, np.float16))
