"""``-t ptx``: PTX printed directly from IR at the cuda / ptx level.

    tirx-opt kernel.mlir -t ptx
    text = emit_ptx(module)

Contract: a module of ``tirx.kernel`` ops, all with one ``cuda`` target naming an arch, whose
parameters are global buffers and whose bodies hold ptx ops, cuda ops (but sync_grid, printf,
cta_reduce), ``scf.for`` / ``scf.if`` / ``scf.while`` (with iter_args and results), scalar
``arith``, ``tirx.alloc`` in shared or local, ``tirx.cta_id`` and ``tirx.return``. Anything else
is a located `PrintError` (code ``ptx-print``) naming the op. nvshmem ops are refused with a
hint to use ``-t cuda``: the NVSHMEM device API is header code and mangled externs, not a
PTX-callable ABI.

Modules: ``printer`` (the frame: module header, entries, registers, memory, ptx ops),
``control_flow`` (scf as labels and branches), ``arith`` (arith ops as instructions, the signed rounding divisions), ``cuda_ops`` (the
cuda ops), ``registers`` (register classes), ``local_registers`` (local arrays in registers),
``unroll`` (register loops expanded on a copy), ``expansion_plan`` and ``direct_loops`` (the
same expansion planned as records and printed in place, without a copy), ``language`` (the
base's Language record), ``target`` (the xDSL ``-t ptx`` target).
"""

from __future__ import annotations

from typing import Any


def emit_ptx(module: Any) -> str:
    """The PTX module for ``module``."""
    from tirx_mlir.backends.cuda.printers.ptx.target import print_ptx

    return print_ptx(module)
