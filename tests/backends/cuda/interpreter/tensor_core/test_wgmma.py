"""wgmma.mma_async numerics against numpy matmul: A and B through descriptors (K- and MN-major),
A from registers, scale-d / scale-a / scale-b, every input type of the PTX table's rows, and the
whole data path of examples/cuda/tma_wgmma.mlir (TMA's 32B-swizzled tiles, the kernel's
descriptors, its store pattern). Registers are built and read with the PTX ISA formulas of
tirx_testing.ptx_isa_fragments, not with the implementation's maps."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter.tensor_core import wgmma as wg
from tirx_mlir.backends.cuda.interpreter.tensor_core.descriptor import MatrixDescriptor
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import element_dtype, pack, unpack
from tirx_mlir.backends.cuda.layout.swizzle import Swizzle
from tirx_mlir.backends.cuda.interpreter.tensor_core.wgmma_fragments import WgmmaForm
from tirx_testing.ptx_isa_fragments import BITS, isa_a, isa_wgmma_d, k_major_32b_image

EXAMPLE = Path(__file__).resolve().parents[5] / "examples" / "cuda" / "tma_wgmma.mlir"
GROUPS = 2


def _k_major_32b(mat: np.ndarray, start: int, smem: np.ndarray) -> MatrixDescriptor:
    """Store an R x K operand (32-byte rows) K-major with the 32B swizzle; its descriptor."""
    image = k_major_32b_image(mat)
    smem[start:start + image.size] = image
    return MatrixDescriptor(start=start, leading=16, stride=256, swizzle=Swizzle.B32)


def _mn_major_interleaved(mat: np.ndarray, start: int, smem: np.ndarray) -> MatrixDescriptor:
    """Store an R x K operand (f16) MN-major without swizzle: 16-byte columns of 8 R-elements,
    8 of them (k) per 128-byte core matrix; SBO steps 8 R-elements, LBO steps 8 k."""
    rows, k = mat.shape
    sbo, lbo = 128, 128 * rows // 8
    raw = np.ascontiguousarray(mat).view(np.uint16)
    words = smem.view("<u2")
    for r in range(rows):
        for c in range(k):
            words[(start + (r % 8) * 2 + (r // 8) * sbo + (c % 8) * 16 + (c // 8) * lbo) // 2] = \
                raw[r, c]
    return MatrixDescriptor(start=start, leading=lbo, stride=sbo)


def _acc_registers(d: np.ndarray, form: WgmmaForm) -> np.ndarray:
    elems = np.empty((d.shape[0], 128, form.n // 2), dtype=d.dtype)
    for tid in range(128):
        for i in range(form.n // 2):
            elems[:, tid, i] = d[:, *isa_wgmma_d(tid // 32, tid % 32, i)]
    return pack(elems, "f16") if form.dtype == "f16" else elems.astype(np.float32)


def _acc_matrix(regs: np.ndarray, form: WgmmaForm) -> np.ndarray:
    elems = unpack(regs, "f16") if form.dtype == "f16" else regs
    out = np.empty((regs.shape[0], 64, form.n), dtype=elems.dtype)
    for tid in range(128):
        for i in range(form.n // 2):
            out[:, *isa_wgmma_d(tid // 32, tid % 32, i)] = elems[:, tid, i]
    return out


def _a_registers(a: np.ndarray, form: WgmmaForm) -> np.ndarray:
    shape = {16: "m16n8k16", 8: "m16n8k8", 32: "m16n8k32"}[form.k]
    count = 4 * 32 // BITS[form.atype]
    elems = np.empty((a.shape[0], 128, count), dtype=a.dtype)
    for tid in range(128):
        for i in range(count):
            r, c = isa_a(shape, BITS[form.atype], tid % 32, i)
            elems[:, tid, i] = a[:, 16 * (tid // 32) + r, c]
    return pack(elems, form.atype)


def _draw(t: str, shape, rng) -> np.ndarray:
    vals = rng.standard_normal(shape).astype(np.float32)
    if t == "tf32":
        return (vals.view(np.int32) & ~0x1FFF).view(np.float32)
    return vals.astype(element_dtype(t))


def _reference(a, b, d, scale_d, scale_a=1, scale_b=1):
    acc = np.where(np.asarray(scale_d).reshape(-1, 1, 1), d.astype(np.float64), 0.0)
    return (scale_a * a.astype(np.float64)) @ (scale_b * b.astype(np.float64)) + acc


FORMS = ["m64n64k16.f32.f16.f16", "m64n8k16.f32.bf16.bf16", "m64n32k16.f16.f16.f16",
         "m64n256k16.f32.f16.f16", "m64n16k8.f32.tf32.tf32", "m64n24k32.f32.e4m3.e4m3",
         "m64n32k32.f32.e5m2.e4m3"]


@pytest.mark.parametrize("text", FORMS)
@pytest.mark.parametrize("rs", [False, True], ids=["ss", "rs"])
def test_matches_numpy(text: str, rs: bool) -> None:
    form = WgmmaForm.parse(text)
    rng = np.random.default_rng(len(text) + rs)
    a = _draw(form.atype, (GROUPS, 64, form.k), rng)
    b = _draw(form.btype, (GROUPS, form.k, form.n), rng)
    d0 = rng.standard_normal((GROUPS, 64, form.n)).astype(
        np.float16 if form.dtype == "f16" else np.float32)
    scale_d = np.array([True, False])
    amats, bmats = [], []
    for g in range(GROUPS):
        smem = np.zeros(16384, np.uint8)
        bdesc = _k_major_32b(b[g].T, 8192, smem)
        bmats.append(wg.b_matrix_from_shared(smem, bdesc, form))
        if not rs:
            amats.append(wg.a_matrix_from_shared(smem, _k_major_32b(a[g], 0, smem), form))
    amat = wg.a_matrix_from_registers(_a_registers(a, form), form) if rs else np.stack(amats)
    regs = wg.wgmma(_acc_registers(d0, form), amat, np.stack(bmats), form, scale_d)
    got = _acc_matrix(regs, form)
    tol = 2e-2 if form.dtype == "f16" else 1e-5
    np.testing.assert_allclose(got.astype(np.float64), _reference(a, b, d0, scale_d),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("tnsp_a, tnsp_b", [(1, 0), (0, 1), (1, 1)])
def test_transposed_operands_and_negation(tnsp_a: int, tnsp_b: int) -> None:
    form = WgmmaForm.parse("m64n16k16.f32.f16.f16")
    rng = np.random.default_rng(3)
    a = _draw("f16", (1, 64, 16), rng)
    b = _draw("f16", (1, 16, 16), rng)
    smem = np.zeros(16384, np.uint8)
    store = {0: _k_major_32b, 1: _mn_major_interleaved}
    adesc = store[tnsp_a](a[0], 0, smem)
    bdesc = store[tnsp_b](b[0].T, 4096, smem)
    amat = wg.a_matrix_from_shared(smem, adesc, form, tnsp_a)[None]
    bmat = wg.b_matrix_from_shared(smem, bdesc, form, tnsp_b)[None]
    zero = np.zeros((1, 128, 8), np.float32)
    got = _acc_matrix(wg.wgmma(zero, amat, bmat, form, [False], scale_a=-1, scale_b=1), form)
    np.testing.assert_allclose(got, _reference(a, b, np.zeros((1, 64, 16)), [False], -1),
                               rtol=1e-5, atol=1e-5)


def test_tma_wgmma_example_data_path() -> None:
    """A 64x16 and B^T 128x16 f16 tile as TMA (32B swizzle) leaves them, the descriptors the
    kernel builds, one m64n128k16, and the kernel's stores of d#i to ``base + offset_i``."""
    text = EXAMPLE.read_text()
    hi = int(re.search(r"%desc_hi = arith.constant (-?\d+) : i64", text).group(1))
    offsets = {int(i): int(v) for i, v in
               re.findall(r"%o(\d+) = arith.constant (\d+) : index", text)}
    form = WgmmaForm.parse(re.search(r'wgmma_mma_async_ss "([^"]+)"', text).group(1))
    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (64, 16)).astype(np.float16)
    bt = rng.integers(-3, 4, (128, 16)).astype(np.float16)
    smem = np.zeros(6144, np.uint8)
    _k_major_32b(a, 0, smem)                  # %sA at 0 (align 1024), %sB right after it
    _k_major_32b(bt, 2048, smem)
    amat = wg.a_matrix_from_shared(smem, MatrixDescriptor.decode((0 >> 4) | hi), form)
    bmat = wg.b_matrix_from_shared(smem, MatrixDescriptor.decode((2048 >> 4) | hi), form)
    regs = wg.wgmma(np.zeros((1, 128, 64), np.float32), amat[None], bmat[None], form, [False])
    out = np.full(64 * 128, np.nan, np.float32)
    for tid in range(128):                    # the kernel's store index: row * 128 + col
        warp, lane = tid // 32, tid % 32
        base = (16 * warp + lane // 4) * 128 + (lane % 4) * 2
        for i in range(64):
            out[base + offsets[i]] = regs[0, tid, i]
    assert (out.reshape(64, 128) == a.astype(np.float32) @ bt.T.astype(np.float32)).all()


def test_register_shapes_are_checked() -> None:
    form = WgmmaForm.parse("m64n8k16.f32.f16.f16")
    with pytest.raises(ValueError, match=r"D must be \(warpgroups, 128, 4\)"):
        wg.wgmma(np.zeros((1, 128, 8), np.float32), np.zeros((1, 64, 16)), np.zeros((1, 16, 8)),
                 form, [True])
