"""The table of lane implementations: op class -> how the SIMT interpreter runs it.

An implementation module decorates functions with `lane_impl`::

    @lane_impl(ThreadIdxOp)
    def run_thread_idx(ctx, op, args):          # -> a tuple of result lane arrays
        return (ctx.wave.thread_idx[:, op.dim_index],)

    @lane_impl(WaitOp, blocking=True)
    def run_wait(ctx, op, args):                 # a generator: yields waits, returns results
        while not ready(...):
            yield ctx.poll()
        return ()

``ctx`` is the running group's `engine.LaneContext`; ``args`` are the operands' lane values.
Structured ops (``scf.if``/``for``/``while``) are ``kind="region"``: they receive the engine
and run their regions through it (see engine.py). Modules register themselves on import;
`IMPL_MODULES` lists the ones the engine imports before its first run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from xdsl.ir import Operation

PLAIN, BLOCKING, REGION = 0, 1, 2


@dataclass(frozen=True)
class LaneImpl:
    fn: Callable[..., Any]
    kind: int


IMPLS: dict[type[Operation], LaneImpl] = {}
"""op class -> its implementation."""

IMPL_MODULES = (
    "tirx_mlir.backends.cuda.interpreter.control",
    "tirx_mlir.backends.cuda.interpreter.arith_ops",
    "tirx_mlir.backends.cuda.interpreter.cuda_ops",
    "tirx_mlir.backends.cuda.interpreter.core_ops",
    "tirx_mlir.backends.cuda.interpreter.local_arrays",
    "tirx_mlir.backends.cuda.interpreter.barriers",
    "tirx_mlir.backends.cuda.interpreter.ptx_memory_ops",
    "tirx_mlir.backends.cuda.interpreter.lane_ops.cuda_math_impls",
    "tirx_mlir.backends.cuda.interpreter.lane_ops.ptx_convert_impls",
    "tirx_mlir.backends.cuda.interpreter.tensor_core.lane_impls",
    "tirx_mlir.backends.cuda.interpreter.warp_ops",
    "tirx_mlir.backends.cuda.interpreter.atomic_ops",
    "tirx_mlir.backends.cuda.interpreter.diagnostic_ops",
    "tirx_mlir.backends.cuda.interpreter.ptx_sync_ops",
    "tirx_mlir.backends.cuda.interpreter.ptx_registers",
    "tirx_mlir.backends.cuda.interpreter.ptx_address_ops",
    "tirx_mlir.backends.cuda.interpreter.mbarrier",
    "tirx_mlir.backends.cuda.interpreter.async_copy",
    "tirx_mlir.backends.cuda.interpreter.tma",
    "tirx_mlir.backends.cuda.interpreter.nvshmem_ops",
)
"""Modules whose import registers implementations (each op family in its own module)."""


def lane_impl(*op_types: type[Operation], blocking: bool = False, kind: int | None = None):
    """Register the decorated function as the implementation of ``op_types``."""
    def register(fn):
        entry = LaneImpl(fn, kind if kind is not None else (BLOCKING if blocking else PLAIN))
        for op_type in op_types:
            IMPLS[op_type] = entry
        return fn
    return register


_loaded = False


def load_impls() -> dict[type[Operation], LaneImpl]:
    """`IMPLS` with every module of `IMPL_MODULES` imported."""
    global _loaded
    if not _loaded:
        import importlib

        for name in IMPL_MODULES:
            importlib.import_module(name)
        _loaded = True
    return IMPLS
