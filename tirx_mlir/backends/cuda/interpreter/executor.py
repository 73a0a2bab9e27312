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
``cuda.dynamic_shared`` views span, as the runtime's launch gives), ``max_wave_lanes``, ``grid``/``block`` (launch another
shape than the kernel's, as a host can). After a run, `last_run(interp)` gives
the statistics and per-PE outputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from tirx_mlir.backends.cuda.dialects.cuda.shared import (DynamicSharedOp, dynamic_shared_bytes,
                                                         static_shared_array)
from tirx_mlir.backends.cuda.dialects.cuda.sync import SyncGridOp
from tirx_mlir.backends.cuda.interpreter.checks.observers import (race_observer,
                                                                  shared_stats_observer)
from tirx_mlir.backends.cuda.interpreter.checks.proxies import proxy_observer
from tirx_mlir.backends.cuda.interpreter import global_params
from tirx_mlir.backends.cuda.interpreter.engine import WAVE_SETUP_STEPS_PER_LANE, Engine
from tirx_mlir.backends.cuda.interpreter.memory import (DYNAMIC_ALIGN, GLOBAL, SHARED,
                                                        BufferRef, Memory)
from tirx_mlir.backends.cuda.interpreter.stats import SimtStats
from tirx_mlir.backends.cuda.interpreter.tensor_map import map_tensor_maps
from tirx_mlir.backends.cuda.interpreter.values import lane_dtype
from tirx_mlir.backends.cuda.interpreter.wave import Wave, pad3
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.interpreter.runtime import InterpretError

MAX_THREADS_PER_BLOCK = 1024
"""CUDA's limit on every architecture."""

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


OBSERVERS: list[Callable[[SimtOptions, Any], Any]] = [shared_stats_observer, race_observer,
                                                     proxy_observer]
"""Factories ``(options, engine) -> observer or None`` called for every wave: the memory
checks (race check, bank conflicts, proxy fences) register here."""

EXIT_CHECKS: list[Callable[[Any], None]] = []
"""Checks ``(engine) -> None`` run when a wave's threads have all exited (they raise an
`InterpretError` for what the wave left undone, e.g. copies still in flight)."""


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


def physical_shape(t: BufferType) -> tuple[int, ...]:
    """The shape a memory buffer is addressed with: a laid-out shared tile (a dispatched kernel
    before cuda-lower-layout) by its footprint, a flat index into its layout's span."""
    layout = t.get_layout()
    return tuple(t.get_shape()) if layout is None else (layout.span("m"),)


def shared_layout(kernel: KernelOp, dynamic_bytes: int | None) -> tuple[dict, int]:
    """(op -> its arena offset, arena bytes): static arrays (``cuda.shared_alloc``, ``tirx.alloc``
    in shared) in program order at their alignment, then the dynamic arena at a
    `DYNAMIC_ALIGN` boundary, of ``dynamic_bytes`` (default: what the views reach)."""
    offsets: dict = {}
    end = 0
    views = []
    for op in kernel.body.walk():
        static = static_shared_array(op)
        if static is not None:
            btype, align = static
            offset = -(-end // align) * align
            offsets[op] = offset
            end = offset + math.prod(physical_shape(btype)) * lane_dtype(btype.element_type).itemsize
        elif isinstance(op, DynamicSharedOp):
            views.append(op)
    if not views and not dynamic_bytes:
        return offsets, end
    base = -(-end // DYNAMIC_ALIGN) * DYNAMIC_ALIGN
    arena = dynamic_shared_bytes(kernel) if dynamic_bytes is None else dynamic_bytes
    for view in views:
        offsets[view] = base + view.int_prop("offset")
    return offsets, base + arena


def wave_ctas(grid: tuple[int, int, int], cluster: tuple[int, int, int] | None, start: int,
              count: int) -> np.ndarray:
    """Linear CTA ids ``start .. start + count`` in the order waves take them: clusters
    contiguous, each by rank (``start`` and ``count`` whole clusters). Computed per wave, so a
    huge grid costs nothing up front."""
    n = math.prod(grid)
    ids = np.arange(start, min(start + count, n), dtype=np.int64)
    if cluster is None:
        return ids
    cx, cy, cz = cluster
    size = cx * cy * cz
    gx, gy = grid[0] // cx, grid[1] // cy
    c, r = ids // size, ids % size
    x = (c % gx) * cx + r % cx
    y = ((c // gx) % gy) * cy + (r // cx) % cy
    z = (c // (gx * gy)) * cz + r // (cx * cy)
    return x + grid[0] * (y + grid[1] * z)


def cta_order(grid: tuple[int, int, int], cluster: tuple[int, int, int] | None) -> np.ndarray:
    """Every linear CTA id in wave order (`wave_ctas` of the whole grid)."""
    return wave_ctas(grid, cluster, 0, math.prod(grid))


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
    cluster_size = math.prod(cluster) if cluster else 1
    if T > MAX_THREADS_PER_BLOCK:
        raise InterpretError(f"a block of {block[0]}x{block[1]}x{block[2]} = {T} threads; CUDA "
                             f"blocks have at most {MAX_THREADS_PER_BLOCK}", kernel,
                             hint="launch fewer threads per block")
    if T * P * cluster_size > MAX_GRID_BARRIER_LANES:
        raise InterpretError(f"{P} PEs x a cluster of {cluster_size} CTAs x {T} threads must "
                             f"run together: more than the interpreter's "
                             f"{MAX_GRID_BARRIER_LANES} lanes", kernel,
                             hint="simulate fewer PEs")
    offsets, arena = shared_layout(kernel, opts.dynamic_shared_bytes)
    mem = Memory()
    params = kernel.body.block.args
    allocations = []
    refs = []
    placements = []
    for i, (param, arr) in enumerate(zip(params, args)):
        ptype = param.type
        assert isinstance(ptype, BufferType)
        name = _param_name(kernel, i)
        placements.append(global_params.placement(ptype))
        memory = global_params.physical(arr, placements[-1])
        per_pe = [mem.map_global(name if P == 1 else f"{name} of PE {p}", memory, p)
                  for p in range(P)]
        allocations.append(per_pe)
        refs.append(BufferRef(GLOBAL, arr.dtype, tuple(memory.shape),
                              np.array([a.base for a in per_pe], dtype=np.int64), name))
    tensor_maps = map_tensor_maps(kernel, mem, allocations, lambda i: _param_name(kernel, i),
                                  args)
    shared_refs = {}
    for op, offset in offsets.items():
        t = op.results[0].type
        shared_refs[op] = BufferRef(SHARED, lane_dtype(t.element_type), physical_shape(t),
                                    np.array([offset], dtype=np.int64), op.name)
    n_ctas = math.prod(grid)
    if any(isinstance(op, SyncGridOp) for op in kernel.body.walk()):
        per_wave = n_ctas
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
    for start in range(0, n_ctas, per_wave):
        ctas = wave_ctas(grid, cluster, start, per_wave)
        wave = Wave(block, grid, cluster, ctas, P)
        mem.reset_shared(wave.W, arena)
        mem.observers = []
        engine = Engine(wave, mem, stats, steps=steps, max_steps=getattr(interp, "max_steps", 0))
        engine.shared_buffers = shared_refs
        engine.kernel = kernel
        engine.options = opts
        engine.output = getattr(interp, "file", None)  # device printf's file (None: stdout)
        for factory in OBSERVERS:
            observer = factory(opts, engine)
            if observer is not None:
                mem.observers.append(observer)
        stats.waves += 1
        stats.ctas += len(ctas) * P
        try:
            engine.charge(int(wave.L * WAVE_SETUP_STEPS_PER_LANE) + 1, kernel.body)
            engine.run(kernel.body, tuple(refs))
            for check in EXIT_CHECKS:
                check(engine)
        except InterpretError as err:
            if n_ctas > len(ctas):
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
            global_params.read_logical(alloc.data[:alloc.nbytes], out, placements[i])
            outs.append(out)
        outputs_per_pe.append(tuple(outs))
    interp.set_data(_Key, "last", SimtRun(stats, outputs_per_pe))
    return outputs_per_pe[0]


def _cta_span(ctas: np.ndarray, grid) -> str:
    def name(c: int) -> str:
        x, y, z = c % grid[0], (c // grid[0]) % grid[1], c // (grid[0] * grid[1])
        return f"({x},{y},{z})"
    return f"{name(int(ctas[0]))}..{name(int(ctas[-1]))}"
