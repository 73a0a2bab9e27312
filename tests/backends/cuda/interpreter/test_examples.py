"""The CUDA examples (examples/cuda/) on the SIMT interpreter against numpy: one row per example
(its inputs from a seeded generator, numpy's result for them, the tolerance; 0 = bit-exact)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from tirx_testing.simt import run_simt

EXAMPLES = Path(__file__).parents[4] / "examples" / "cuda"


@dataclass(frozen=True)
class Example:
    file: str
    inputs: Callable[[np.random.Generator], tuple[np.ndarray, ...]]
    """The kernel's arguments: inputs, then any outputs whose initial contents matter."""
    expected: Callable[..., tuple[np.ndarray, ...]]
    """numpy's outputs for those arguments."""
    rtol: float = 0.0


def _warp_reduce_inputs(rng):
    return rng.standard_normal(65536).astype(np.float32), np.zeros(1, np.float32)


def _warp_reduce_expected(x, total):
    """Each warp's xor butterfly (offsets 16..1), then lane 0 of each warp adds its sum with an
    atomicAdd, warps in order (the interpreter's atomics are in lane order)."""
    v = x.reshape(-1, 32)
    lane = np.arange(32)
    for offset in (16, 8, 4, 2, 1):
        v = (v + v[:, lane ^ offset]).astype(np.float32)
    acc = total[0]
    for warp_sum in v[:, 0]:
        acc = np.float32(acc + warp_sum)
    return (np.array([acc], np.float32),)


TABLE = [
    Example("warp_reduce.mlir", _warp_reduce_inputs, _warp_reduce_expected),
]


@pytest.mark.parametrize("example", TABLE, ids=[e.file for e in TABLE])
def test_example_matches_numpy(example: Example):
    args = example.inputs(np.random.default_rng(0))
    expected = example.expected(*args)
    outputs, _ = run_simt((EXAMPLES / example.file).read_text(), *args)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        if example.rtol:
            np.testing.assert_allclose(got, want, rtol=example.rtol)
        else:
            np.testing.assert_array_equal(got, want)


def test_warp_reduce_order_is_the_one_asserted():
    # the lane-order result differs from numpy's pairwise float32 sum, and agrees with the exact
    # sum to float32 rounding: the row above asserts the order, not a lucky tie
    x, total = _warp_reduce_inputs(np.random.default_rng(0))
    (got,) = _warp_reduce_expected(x, total)
    assert got[0] != x.sum(dtype=np.float32)
    np.testing.assert_allclose(got[0], x.astype(np.float64).sum(), rtol=1e-5)
