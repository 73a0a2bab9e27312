"""``mma.sync.aligned.m16n8k*.row.col`` on warp-batched registers: D = A * B + C.

Registers are arrays ``(warps, 32, regs)``: A and B are b32 (int32) registers of packed elements;
C and D are accumulator registers in the form the interpreter keeps them (``rules.mma_acc_type``):
f32 and s32 accumulators are float32 / int32 values, one element per register; f16 accumulators
are b32 registers of packed f16x2.

Numerics (``matmul_accumulate``, shared with wgmma): floating-point inputs (f16, bf16, tf32,
e4m3, e5m2) are widened to f32, where each product is exact (at most 2 x 11 significand bits),
and the K products and C are accumulated in f32; an f16 accumulator is the f32 result rounded to
nearest f16. Integer inputs (s8, u8) multiply and accumulate exactly, then D wraps modulo 2^32 to
s32, as mma without ``.satfinite`` does.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.tensor_core import mma_fragments as frag
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import as_b32, pack, unpack

ACC_DTYPES = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16),
              "s32": np.dtype(np.int32)}


def accumulator_elements(regs: np.ndarray, dtype: str) -> np.ndarray:
    """Accumulator registers ``(..., R)`` -> their elements ``(..., E)`` of the D type."""
    if dtype == "f16":
        return unpack(as_b32(regs), "f16")
    return np.asarray(regs).astype(ACC_DTYPES[dtype], copy=False)


def accumulator_registers(elements: np.ndarray, dtype: str) -> np.ndarray:
    """Accumulator elements ``(..., E)`` -> registers in the interpreter's form."""
    if dtype == "f16":
        return pack(elements, "f16")
    return np.ascontiguousarray(elements, dtype=ACC_DTYPES[dtype])


def matmul_accumulate(a: np.ndarray, b: np.ndarray, c: np.ndarray, dtype: str) -> np.ndarray:
    """``a @ b + c`` for batches ``(W, M, K) @ (W, K, N) + (W, M, N)`` with the tensor core's
    accumulation (module docstring), as an array of the D type."""
    with np.errstate(all="ignore"):
        if dtype == "s32":
            acc = a.astype(np.int64) @ b.astype(np.int64) + c.astype(np.int64)
            return acc.astype(np.int32)
        acc = a.astype(np.float32) @ b.astype(np.float32) + c.astype(np.float32)
        return acc.astype(ACC_DTYPES[dtype])


def mma_sync(a: np.ndarray, b: np.ndarray, c: np.ndarray, form: frag.MmaForm) -> np.ndarray:
    """D registers ``(W, 32, regs_d)`` of ``mma.sync`` ``form`` for every warp of the batch."""
    ra, rb, rc = form.registers
    for name, regs, want in (("A", a, ra), ("B", b, rb), ("C", c, rc)):
        if regs.ndim != 3 or regs.shape[1:] != (32, want):
            raise ValueError(f"mma {form}: {name} must be (warps, 32, {want}), not {regs.shape}")
    amat = frag.scatter(unpack(as_b32(a), form.atype), *frag.a_map(form), (frag.M, form.k))
    bmat = frag.scatter(unpack(as_b32(b), form.btype), *frag.b_map(form), (form.k, frag.N))
    cmat = frag.scatter(accumulator_elements(c, form.dtype), *frag.c_map(form), (frag.M, frag.N))
    d = matmul_accumulate(amat, bmat, cmat, form.dtype)
    return accumulator_registers(frag.gather(d, *frag.c_map(form)), form.dtype)
