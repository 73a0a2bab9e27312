"""``wgmma.mma_async`` numerics on warpgroup batches: ``D = A * B + (scale_d ? D : 0)``, with
``imm-scale-a``/``imm-scale-b`` (1 or -1) negating A/B, A and B read through shared-memory matrix
descriptors (descriptor.py) or A from registers (the ``rs`` form), and the accumulation of
mma.matmul_accumulate.

Registers are ``(G, 128, regs)`` (G warpgroups); matrices ``(G, 64, K)`` for A and ``(G, K, N)``
for B.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.tensor_core import wgmma_fragments as wf
from tirx_mlir.backends.cuda.interpreter.tensor_core.descriptor import (MatrixDescriptor,
                                                                          read_operand)
from tirx_mlir.backends.cuda.interpreter.tensor_core.mma import (accumulator_elements,
                                                                   accumulator_registers,
                                                                   matmul_accumulate)
from tirx_mlir.backends.cuda.interpreter.tensor_core.mma_fragments import gather, scatter
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import as_b32, unpack


def accumulator_matrix(d: np.ndarray, form: wf.WgmmaForm) -> np.ndarray:
    """Accumulator registers ``(G, 128, regs)`` -> D matrices ``(G, 64, N)`` of the D type."""
    _expect(d, form.acc_registers, "D", form)
    return scatter(accumulator_elements(d, form.dtype), *wf.accumulator_map(form.n), (wf.M, form.n))


def accumulator_registers_of(dmat: np.ndarray, form: wf.WgmmaForm) -> np.ndarray:
    """D matrices ``(G, 64, N)`` -> accumulator registers ``(G, 128, regs)``."""
    return accumulator_registers(gather(dmat, *wf.accumulator_map(form.n)), form.dtype)


def a_matrix_from_registers(a: np.ndarray, form: wf.WgmmaForm) -> np.ndarray:
    """``rs`` A registers ``(G, 128, 4)`` -> A matrices ``(G, 64, K)``."""
    _expect(a, 4, "A", form)
    return scatter(unpack(as_b32(a), form.atype), *wf.a_register_map(form), (wf.M, form.k))


def a_matrix_from_shared(smem: np.ndarray, desc: MatrixDescriptor, form: wf.WgmmaForm,
                         tnsp_a: int = 0, on_read=None) -> np.ndarray:
    """The 64 x K A matrix a descriptor denotes in one CTA's shared bytes (``on_read``: see
    `read_operand`)."""
    return read_operand(smem, desc, wf.M, form.atype, mn_major=bool(tnsp_a), on_read=on_read)


def b_matrix_from_shared(smem: np.ndarray, desc: MatrixDescriptor, form: wf.WgmmaForm,
                         tnsp_b: int = 0, on_read=None) -> np.ndarray:
    """The K x N B matrix a descriptor denotes (stored N x K when K-major)."""
    return read_operand(smem, desc, form.n, form.btype, mn_major=bool(tnsp_b),
                        on_read=on_read).T


def wgmma(d: np.ndarray, a: np.ndarray, b: np.ndarray, form: wf.WgmmaForm,
          scale_d: np.ndarray, scale_a: int = 1, scale_b: int = 1) -> np.ndarray:
    """New accumulator registers ``(G, 128, regs)`` of one wgmma.mma_async per warpgroup."""
    acc = accumulator_matrix(d, form)
    keep = np.asarray(scale_d, dtype=bool).reshape(-1, 1, 1)
    acc = np.where(keep, acc, np.zeros((), acc.dtype))
    a32 = a.astype(np.float32) * np.float32(scale_a)
    b32 = b.astype(np.float32) * np.float32(scale_b)
    return accumulator_registers_of(matmul_accumulate(a32, b32, acc, form.dtype), form)


def _expect(regs: np.ndarray, count: int, name: str, form: wf.WgmmaForm) -> None:
    if regs.ndim != 3 or regs.shape[1:] != (wf.THREADS, count):
        raise ValueError(f"wgmma {form.shape}: {name} must be (warpgroups, 128, {count}), not "
                         f"{regs.shape}")
