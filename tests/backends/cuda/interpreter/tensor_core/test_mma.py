"""mma.sync numerics against numpy matmul: every form of the PTX table's ``mma_sync`` row, with
the fragments built by this test from the PTX ISA formulas (test_mma_fragments.isa_*), not by
the implementation's maps."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tirx_mlir.backends.cuda.dialects.ptx import rules
from tirx_mlir.backends.cuda.interpreter.tensor_core import mma_fragments as mf
from tirx_mlir.backends.cuda.interpreter.tensor_core.mma import mma_sync
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import element_dtype, pack, unpack
from tirx_testing.ptx_isa_fragments import BITS, isa_a, isa_b, isa_c

WARPS = 3
FORMS = [mf.MmaForm(s, a, b, d) for s, a, b, d in rules.MMA_SHAPES]


def _fragments(mats: np.ndarray, where, count: int) -> np.ndarray:
    """(W, R, C) -> (W, 32, count) by the ISA formula ``where(lane, i) -> (row, col)``."""
    out = np.empty((mats.shape[0], 32, count), dtype=mats.dtype)
    for lane in range(32):
        for i in range(count):
            out[:, lane, i] = mats[:, where(lane, i)[0], where(lane, i)[1]]
    return out


def _inputs(form: mf.MmaForm, rng, small: bool):
    def draw(t, shape):
        if t in ("s8", "u8"):
            lo, hi = (-128, 128) if t == "s8" else (0, 256)
            return rng.integers(lo, hi, shape).astype(element_dtype(t))
        vals = rng.integers(-4, 5, shape) if small else rng.standard_normal(shape)
        return vals.astype(np.float32).astype(element_dtype(t))
    a = draw(form.atype, (WARPS, 16, form.k))
    b = draw(form.btype, (WARPS, form.k, 8))
    c = (rng.integers(-1000, 1000, (WARPS, 16, 8)) if form.dtype == "s32" else
         rng.integers(-8, 9, (WARPS, 16, 8)) if small else rng.standard_normal((WARPS, 16, 8)))
    return a, b, c


def _run(form: mf.MmaForm, a, b, c) -> np.ndarray:
    pa, pb = 32 // BITS[form.atype], 32 // BITS[form.btype]
    ra, rb, _ = form.registers
    regs_a = pack(_fragments(a, lambda l, i: isa_a(form.shape, BITS[form.atype], l, i), ra * pa),
                  form.atype)
    regs_b = pack(_fragments(b, lambda l, i: isa_b(form.shape, BITS[form.btype], l, i), rb * pb),
                  form.btype)
    cfrag = _fragments(c, isa_c, 4)
    if form.dtype == "f16":
        regs_c = pack(cfrag.astype(np.float16), "f16")
    else:
        regs_c = cfrag.astype(np.int32 if form.dtype == "s32" else np.float32)
    d = mma_sync(regs_a, regs_b, regs_c, form)
    delems = unpack(d, "f16") if form.dtype == "f16" else d
    out = np.empty((WARPS, 16, 8), dtype=delems.dtype)
    for lane in range(32):
        for i in range(4):
            r, col = isa_c(lane, i)
            out[:, r, col] = delems[:, lane, i]
    return out


@pytest.mark.parametrize("form", FORMS, ids=str)
def test_exact_on_small_integers(form: mf.MmaForm) -> None:
    a, b, c = _inputs(form, np.random.default_rng(7), small=True)
    want = a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64)
    got = _run(form, a, b, c)
    assert (got.astype(np.int64) == want).all()


@pytest.mark.parametrize("form", [f for f in FORMS if f.dtype != "s32"], ids=str)
def test_random_floats_match_numpy(form: mf.MmaForm) -> None:
    a, b, c = _inputs(form, np.random.default_rng(11), small=False)
    if form.atype == "tf32":     # the tensor core reads 19 bits of an f32 register
        a = (a.view(np.int32) & ~0x1FFF).view(np.float32)
        b = (b.view(np.int32) & ~0x1FFF).view(np.float32)
    acc = np.dtype(np.float16) if form.dtype == "f16" else np.dtype(np.float32)
    c = c.astype(acc)
    want = a.astype(np.float64) @ b.astype(np.float64) + c.astype(np.float64)
    got = _run(form, a, b, c)
    assert got.dtype == acc
    tol = 2e-2 if form.dtype == "f16" else 1e-5
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=tol, atol=tol)


def test_integer_accumulator_wraps_to_s32() -> None:
    form = mf.MmaForm.parse("m16n8k32.s32.u8.u8.s32")
    a = np.full((WARPS, 16, 32), 255, dtype=np.uint8)
    b = np.full((WARPS, 32, 8), 255, dtype=np.uint8)
    c = np.full((WARPS, 16, 8), 2**31 - 1000, dtype=np.int64)
    got = _run(form, a, b, c)
    want = ((32 * 255 * 255 + 2**31 - 1000 + 2**31) % 2**32) - 2**31
    assert (got == want).all() and want < 0


def test_tf32_inputs_are_truncated_not_rounded() -> None:
    form = mf.MmaForm.parse("m16n8k8.f32.tf32.tf32.f32")
    a = np.zeros((1, 16, 8), dtype=np.float32)
    a[0, 0, 0] = 1.0 + 2.0**-11 + 2.0**-12       # below tf32 precision: both bits dropped
    b = np.zeros((1, 8, 8), dtype=np.float32)
    b[0, 0, 0] = 1.0
    global WARPS
    saved, WARPS = WARPS, 1
    try:
        got = _run(form, a, b, np.zeros((1, 16, 8), dtype=np.float32))
    finally:
        WARPS = saved
    assert got[0, 0, 0] == 1.0


def test_fp8_inputs_mix_formats() -> None:
    form = mf.MmaForm.parse("m16n8k32.f32.e5m2.e4m3.f32")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((WARPS, 16, 32)).astype(ml_dtypes.float8_e5m2)
    b = rng.standard_normal((WARPS, 32, 8)).astype(ml_dtypes.float8_e4m3fn)
    c = np.zeros((WARPS, 16, 8), dtype=np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(_run(form, a, b, c), want, rtol=1e-6, atol=1e-6)


def test_wrong_register_counts_are_reported() -> None:
    form = mf.MmaForm.parse("m16n8k16.f32.f16.f16.f32")
    with pytest.raises(ValueError, match=r"A must be \(warps, 32, 4\)"):
        mma_sync(np.zeros((1, 32, 2), np.int32), np.zeros((1, 32, 2), np.int32),
                 np.zeros((1, 32, 4), np.float32), form)
