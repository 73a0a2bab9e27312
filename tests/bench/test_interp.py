"""bench/interp.py: each floor (the kernel's own work in direct numpy) gives the interpreter's
bits, at the tile and NKI levels, on small sizes; a floor that does other work is refused."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import interp  # noqa: E402


@pytest.mark.parametrize("rows", [256, 128])
def test_the_nki_softmax_floor_gives_the_interpreters_bits(rows):
    x = np.random.default_rng(1).standard_normal((256, 1024), dtype=np.float32)
    case = interp.build("softmax", interp.softmax_ir(256, 1024, rows, interp.NKI), interp.NKI,
                        [x], interp.numpy_softmax, interp.nki_softmax_floor(rows))
    assert case.floor is not None  # build compared the floor's output with the interpreter's


@pytest.mark.parametrize("level", [interp.TILE, interp.NKI], ids=lambda lv: lv.name)
def test_the_tiled_gemm_floor_gives_the_interpreters_bits(level):
    rng = np.random.default_rng(2)
    a, b = (rng.standard_normal((256, 256), dtype=np.float32) for _ in range(2))
    args, ref = ([np.ascontiguousarray(a.T), b], interp.numpy_gemm_at) if level.transpose_a \
        else ([a, b], np.matmul)
    interp.build("gemm", interp.gemm_ir(256, 128, level), level, args, ref,
                 interp.tiled_gemm(128, level.transpose_a))


def test_a_floor_that_differs_from_the_interpreter_is_refused():
    x = np.random.default_rng(3).standard_normal((256, 1024), dtype=np.float32)

    def one_ulp_off(v):  # the same work, one ulp away: not the interpreter's bits
        out = interp.nki_softmax_floor(128)(v)
        return np.nextafter(out, np.float32(np.inf))

    with pytest.raises(AssertionError):
        interp.build("softmax", interp.softmax_ir(256, 1024, 128, interp.NKI), interp.NKI,
                     [x], interp.numpy_softmax, one_ulp_off)
