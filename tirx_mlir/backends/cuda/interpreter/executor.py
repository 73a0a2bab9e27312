"""Running a CUDA-level ``tirx.kernel``: the kernel executor the cuda backend registers.

The core's ``tirx.kernel`` implementation hands a kernel that uses the ``cuda``, ``ptx`` or
``nvshmem`` dialect to `run_kernel` (``registry.register_kernel_executor``), so
``tirx_mlir.interpret``, ``KernelRunner`` and ``tirx-run`` run CUDA-level kernels unchanged.

A launch runs wave by wave (wave.py): each wave holds as many CTAs as fit in `SimtOptions
.max_wave_lanes` lanes, whole clusters (a cluster's CTAs share distributed shared memory and
a barrier, so they run together), the whole grid when the kernel has a grid barrier. Each
buffer parameter is mapped into global memory (per simulated PE: ``pes`` > 1 gives every PE
its own copy, the symmetric heap of NVSHMEM); outputs are read back from PE 0 (all PEs' in
`SimtRun.outputs_per_pe`). Shared memory is laid out once (`shared_layout`) and fresh for
every wave.

Options (`SimtOptions`, set with `configure(interp, ...)` or ``tirx-run`` flags): ``pes``,
``racecheck``, ``dynamic_shared_bytes`` (the launch's dynamic arena; default: what the
``cuda.dynamic_shared`` views span), ``max_wave_lanes``, ``grid``/``block`` (launch another
shape than the kernel's, as a host can). After a run, `last_run(interp)` gives
the statistics and per-PE outputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from tirx_mlir.backends.cuda.dialects.cuda.shared import DynamicSharedOp, SharedAllocOp
from tirx_mlir.backends.cuda.dialects.cuda.sync import SyncGridOp
from tirx_mlir.backends.cuda.interpreter.checks.observers import (race_observer,
                                                                  shared_stats_observer)
from tirx_mlir.backends.cuda.interpreter.engine import Engine
from tirx_mlir.backends.cuda.interpreter.memory import (DYNAMIC_ALIGN, GLOBAL, SHARED,
                                                        BufferRef, Memory)
from tirx_mlir.backends.cuda.interpreter.stats import SimtStats
from tirx_mlir.backends.cuda.interpreter.tensor_map import map_tensor_maps
from tirx_mlir.backends.cuda.interpreter.values import lane_dtype
from tirx_mlir.backends.cuda.interpreter.wave import Wave, pad3
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.interpreter.runtime import InterpretError

MAX_GRID_BARRIER_LANES = 1 << 20
"""A kernel with a grid barrier runs its whole grid as one wave: at most this many lanes."""


@dataclass
class SimtOptions:
    pes: int = 1
    racecheck: bool = True
    dynamic_shared_bytes: int | None = None
    max_wave_lanes: int = 16384
    grid: tuple[int, ...] | None = None
    """Launch this grid instead of the kernel's (as a host may launch any grid)."""
    block: tuple[int, ...] | None = None
    """Launch blocks of this shape instead of the kernel's ``threads``."""


@dataclass
class SimtRun:
    """What the last run left: its statistics and, per PE, the output arrays."""

    stats: SimtStats
    outputs_per_pe: list[tuple[np.ndarray, ...]] = field(default_factory=list)


OBSERVERS: list[Callable[[SimtOptions, Any], Any]] = [shared_stats_observer, race_observer]
"""Factories ``(options, engine) -> observer or None`` called for every wave: the memory
checks (race check, bank conflicts) register here."""


class _Key:
    """Key of the SIMT data on an interpreter (``interp.get_data``)."""


def options(interp) -> SimtOptions:
    return interp.get_data(_Key, "options", SimtOptions)


def configure(interp, **values: Any) -> SimtOptions:
    """Set SIMT options on ``interp`` (``pes=2``, ``racecheck=False``...)."""
    opts = options(interp)
    for name, value in values.items():
        if not hasattr(opts, name):
            raise TypeError(f"unknown SIMT option {name!r}")
        setattr(opts, name, value)
    if isinstance(opts.pes, bool) or not isinstance(opts.pes, int) or opts.pes < 1:
        raise ValueError(f"pes must be an integer >= 1, got {opts.pes!r}")
    for name in ("grid", "block"):
        dims = getattr(opts, name)
        if dims is not None:
            dims = tuple(dims)
            if not 1 <= len(dims) <= 3 or any(isinstance(d, bool) or not isinstance(d, int)
                                              or d < 1 for d in dims):
                raise ValueError(f"{name} must be 1 to 3 positive integers, got {dims!r}")
            setattr(opts, name, dims)
    return opts


def last_run(interp) -> SimtRun | None:
    return interp.get_data(_Key, "last", lambda: None)


def outputs_per_pe(interp) -> list | None:
    """Every PE's outputs of the last run on ``interp`` (the registry's hook for tools)."""
    run = last_run(interp)
    return None if run is None else run.outputs_per_pe


def stats_report(interp) -> str | None:
    """The statistics table of the last run on ``interp`` (``tirx-run --stats``), if any."""
    run = last_run(interp)
    return None if run is None else run.stats.table()


def shared_layout(kernel: KernelOp, dynamic_bytes: int | None) -> tuple[dict, int]:
    """(op -> its arena offset, arena bytes): static arrays in program order at their
    alignment, then the dynamic arena at a `DYNAMIC_ALIGN` boundary."""
    offsets: dict = {}
    end = 0
    views = []
    for op in kernel.body.walk():
        if isinstance(op, SharedAllocOp):
            align = op.alignment()
            offset = -(-end // align) * align
            offsets[op] = offset
            end = offset + op.nbytes()
        elif isinstance(op, DynamicSharedOp):
            views.append(op)
    if not views and not dynamic_bytes:
        return offsets, end
    base = -(-end // DYNAMIC_ALIGN) * DYNAMIC_ALIGN
    spanned = max((v.int_prop("offset") + v.nbytes() for v in views), default=0)
    arena = spanned if dynamic_bytes is None else dynamic_bytes
    for view in views:
        offsets[view] = base + view.int_prop("offset")
    return offsets, base + arena


def cta_order(grid: tuple[int, int, int], cluster: tuple[int, int, int] | None) -> np.ndarray:
    """Linear CTA ids in the order waves take them: clusters contiguous, by rank."""
    n = math.prod(grid)
    ids = np.arange(n, dtype=np.int64)
    if cluster is None:
        return ids
    x, y, z = ids % grid[0], (ids // grid[0]) % grid[1], ids // (grid[0] * grid[1])
    cx, cy, cz = cluster
    gx, gy = grid[0] // cx, grid[1] // cy
    cluster_id = (x // cx) + gx * ((y // cy) + gy * (z // cz))
    rank = (x % cx) + cx * ((y % cy) + cy * (z % cz))
    return ids[np.lexsort((rank, cluster_id))]


def _param_name(kernel: KernelOp, i: int) -> str:
    hint = kernel.body.block.args[i].name_hint
    return f"%{hint}" if hint else f"parameter #{i}"


def run_kernel(interp, kernel: KernelOp, args: tuple) -> tuple[np.ndarray, ...]:
    """Run ``kernel`` on ``args`` (inputs then outputs, checked by the core); returns the
    outputs (PE 0's)."""
    opts = options(interp)
    grid = pad3(opts.grid or kernel.grid_dims())
    block = pad3(opts.block or kernel.thread_dims())
    cluster = None if kernel.cluster_dims() is None else pad3(kernel.cluster_dims())
    if cluster is not None and any(g % c for g, c in zip(grid, cluster)):
        raise InterpretError(f"the grid {list(grid)} is not a whole number of clusters "
                             f"{list(cluster)}", kernel, hint="launch a grid the cluster divides")
    T = math.prod(block)
    P = opts.pes
    offsets, arena = shared_layout(kernel, opts.dynamic_shared_bytes)
    mem = Memory()
    params = kernel.body.block.args
    allocations = []
    refs = []
    for i, (param, arr) in enumerate(zip(params, args)):
        ptype = param.type
        assert isinstance(ptype, BufferType)
        name = _param_name(kernel, i)
        per_pe = [mem.map_global(name if P == 1 else f"{name} of PE {p}", arr, p)
                  for p in range(P)]
        allocations.append(per_pe)
        refs.append(BufferRef(GLOBAL, arr.dtype, tuple(arr.shape),
                              np.array([a.base for a in per_pe], dtype=np.int64), name))
    tensor_maps = map_tensor_maps(kernel, mem, allocations, lambda i: _param_name(kernel, i))
    shared_refs = {}
    for op, offset in offsets.items():
        t = op.buffer_type()
        shared_refs[op] = BufferRef(SHARED, lane_dtype(t.element_type), tuple(t.get_shape()),
                                    np.array([offset], dtype=np.int64), op.name)
    order = cta_order(grid, cluster)
    cluster_size = math.prod(cluster) if cluster else 1
    if any(isinstance(op, SyncGridOp) for op in kernel.body.walk()):
        per_wave = len(order)
        if per_wave * T * P > MAX_GRID_BARRIER_LANES:
            raise InterpretError(
                f"a kernel with a grid barrier runs its whole grid at once; {per_wave} CTAs of "
                f"{T} threads is more than the interpreter's {MAX_GRID_BARRIER_LANES} lanes",
                kernel, hint="run a smaller grid")
    else:
        per_wave = max(1, opts.max_wave_lanes // (T * P)) // cluster_size * cluster_size
        per_wave = max(per_wave, cluster_size)
    stats = SimtStats()
    steps = [getattr(interp, "_steps_left", 1 << 62)]
    for start in range(0, len(order), per_wave):
        ctas = order[start:start + per_wave]
        wave = Wave(block, grid, cluster, ctas, P)
        mem.reset_shared(wave.W, arena)
        mem.observers = []
        engine = Engine(wave, mem, stats, steps=steps, max_steps=getattr(interp, "max_steps", 0))
        engine.shared_buffers = shared_refs
        engine.options = opts
        engine.output = getattr(interp, "file", None)  # device printf's file (None: stdout)
        for factory in OBSERVERS:
            observer = factory(opts, engine)
            if observer is not None:
                mem.observers.append(observer)
        stats.waves += 1
        stats.ctas += len(ctas) * P
        try:
            engine.run(kernel.body, tuple(refs))
        except InterpretError as err:
            if len(order) > len(ctas):
                err.add_context(f"in the wave of CTAs {_cta_span(ctas, grid)} of "
                                f"@{kernel.kernel_name}")
            raise
        finally:
            if hasattr(interp, "_steps_left"):
                interp._steps_left = steps[0]  # noqa: SLF001 - the budget is shared
    tensor_maps.read_back()
    outputs_per_pe = []
    for p in range(P):
        outs = []
        for i in range(kernel.n_inputs, len(params)):
            out = args[i] if p == 0 else np.empty_like(args[i])
            alloc = allocations[i][p]
            out[...] = alloc.data[:alloc.nbytes].view(out.dtype).reshape(out.shape)
            outs.append(out)
        outputs_per_pe.append(tuple(outs))
    interp.set_data(_Key, "last", SimtRun(stats, outputs_per_pe))
    return outputs_per_pe[0]


def _cta_span(ctas: np.ndarray, grid) -> str:
    def name(c: int) -> str:
        x, y, z = c % grid[0], (c // grid[0]) % grid[1], c // (grid[0] * grid[1])
        return f"({x},{y},{z})"
    return f"{name(int(ctas[0]))}..{name(int(ctas[-1]))}"
