"""Interpreter implementations of the non-tile ``tirx`` ops: kernels, scope ids and buffers.

Execution model (the tile level):

* ``tirx.kernel`` is callable by name (``interp.call_op("k", arrays)``) with one ndarray per
  buffer parameter, inputs then outputs; it returns the output arrays. The body runs once per CTA,
  CTAs one after the other in grid order (x fastest, then y, then z).
* ``tirx.cta_id``, ``tirx.cluster_id``, ``tirx.cta_id_in_cluster`` and ``tirx.cta_id_in_pair``
  give the running CTA's ids. Per-thread ids (``thread_id``, ``lane_id``, ``warp_id``,
  ``warpgroup_id``, ``warp_id_in_wg``, ``thread_id_in_wg``) have no value at the tile level,
  where tile ops are collective over their scope: they raise an error naming the op. A kernel
  that uses a dialect a backend registered a kernel executor for (`kernel_executor`: thread-level
  IR, e.g. the CUDA backend's SIMT interpreter) is run by that executor instead.
* ``tirx.alloc`` returns fresh memory (NaN / poison) each time it runs, so every CTA gets its own
  on-chip buffers (their storage is recycled through a `runtime.BufferPool` once a CTA ends);
  ``tirx.slice`` is a numpy view checked against the bounds of its source (dynamic offsets
  included); ``tirx.load`` / ``tirx.store`` check their indices and
  round stored values to the buffer's type.

The grid is walked lazily (one CTA id at a time), so a huge grid costs no memory up front and
stops at the run's step budget (`core.DEFAULT_MAX_STEPS`) or at Ctrl-C.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.interpreter import (Interpreter, InterpreterFunctions, PythonValues, ReturnedValues,
                              impl, impl_callable, impl_terminator)
from xdsl.ir import Operation

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import (DYNAMIC, AllocOp, LoadOp, ReshapeOp, SliceOp,
                                                StoreOp, TransposeOp)
from tirx_mlir.dialects.tirx.kernel import (ClusterIdOp, CtaIdInClusterOp, CtaIdInPairOp, CtaIdOp,
                                            KernelOp, LaneIdOp, ReturnOp, ScopeIdOp,
                                            ThreadIdInWgOp, ThreadIdOp, WarpgroupIdOp,
                                            WarpIdInWgOp, WarpIdOp)
from tirx_mlir.dialects.tirx.sync_ops import ClusterSyncOp
from tirx_mlir.interpreter import runtime
from tirx_mlir.interpreter.cluster import (ClusterCta, ClusterRun, cluster_members,
                                           current_cluster, require_cluster,
                                           set_current_cluster, synchronises_cluster)
from tirx_mlir.interpreter.runtime import InterpretError


@dataclass(frozen=True)
class Launch:
    """The CTA being run: its (x, y, z) id, the grid and the cluster shape (padded to 3 dims)."""

    kernel: KernelOp
    cta: tuple[int, int, int]
    grid: tuple[int, int, int]
    cluster: tuple[int, int, int] | None

    def cluster_rank(self) -> int:
        """Linear rank of the CTA inside its cluster (x fastest)."""
        assert self.cluster is not None
        x, y, z = (c % n for c, n in zip(self.cta, self.cluster))
        return x + self.cluster[0] * (y + self.cluster[1] * z)


def _pad3(dims: tuple[int, ...]) -> tuple[int, int, int]:
    return tuple(dims) + (1,) * (3 - len(dims))  # type: ignore[return-value]


def current_launch(interp: Interpreter) -> Launch | None:
    """The CTA the interpreter is running (None outside a kernel call)."""
    return interp.get_data(TirxKernelFunctions, "launch", lambda: None)


def buffer_pool(interp: Interpreter) -> runtime.BufferPool:
    """The interpreter's pool of on-chip buffer storage (released at the end of every CTA)."""
    return interp.get_data(TirxKernelFunctions, "pool", runtime.BufferPool)


def param_name(kernel: KernelOp, index: int) -> str:
    hint = kernel.body.block.args[index].name_hint
    return f"%{hint}" if hint else f"#{index}"


def check_arguments(kernel: KernelOp, args: PythonValues) -> None:
    """Each argument is an ndarray of its parameter's shape and dtype."""
    params = kernel.body.block.args
    if len(args) != len(params):
        raise InterpretError(
            f"@{kernel.kernel_name} takes {len(params)} buffers ({kernel.n_inputs} inputs, "
            f"{len(params) - kernel.n_inputs} outputs), got {len(args)}", kernel)
    for i, (param, arg) in enumerate(zip(params, args)):
        ptype = param.type
        assert isinstance(ptype, BufferType)
        want = dtypes.numpy_dtype(ptype.element_type)
        if not isinstance(arg, np.ndarray) or arg.shape != ptype.get_shape() or arg.dtype != want:
            got = (f"{list(arg.shape)} {runtime.dtype_name(arg.dtype)}"
                   if isinstance(arg, np.ndarray) else type(arg).__name__)
            raise InterpretError(
                f"parameter {param_name(kernel, i)} of @{kernel.kernel_name} is {ptype}, but the "
                f"argument is {got}", kernel,
                hint="pass a numpy array of that shape and dtype (bf16/fp8: ml_dtypes)")


def grid_ids(grid: tuple[int, int, int]):
    """Every CTA id of ``grid``, x fastest, one at a time (never materialised)."""
    for z in range(grid[2]):
        for y in range(grid[1]):
            for x in range(grid[0]):
                yield x, y, z



def kernel_executor(kernel: KernelOp):
    """The registered executor (`registry.KernelExecutor`) of a kernel whose body uses one of
    its dialects (a thread-level kernel), or None: the tile-level semantics below apply."""
    from tirx_mlir import registry

    executors = registry.kernel_executors.items()
    if not executors:
        return None
    used = {op.name.partition(".")[0] for op in kernel.body.walk()}
    for _, executor in executors:
        if used.intersection(executor.dialects):
            return executor.factory()
    return None


def _alloc_facts(op: AllocOp) -> tuple[tuple[int, ...], np.dtype]:
    btype = op.result.type
    assert isinstance(btype, BufferType)
    return tuple(btype.get_shape()), dtypes.numpy_dtype(btype.element_type)


def _slice_facts(op: SliceOp):
    """(offsets, sizes, strides, source shape, static): ``sizes`` holds DYNAMIC for a guarded
    dim; ``static`` is the index tuple of a slice whose offsets and sizes are all static and in
    bounds of its source type (checked once), else None."""
    offsets, sizes = op.static_offsets.get_values(), op.static_sizes.get_values()
    strides = op.strides()
    shape = getattr(op.source.type, "get_shape", lambda: None)()
    static = None
    if DYNAMIC not in offsets and DYNAMIC not in sizes and shape is not None:
        try:
            static = runtime.view_index(shape, offsets, sizes, strides)
        except InterpretError:
            pass  # out of bounds: each run reports it (runtime.view)
    return offsets, sizes, strides, shape, static


def _sliced(op: SliceOp, facts, args: PythonValues) -> np.ndarray:
    """The view a ``tirx.slice`` gives of ``args[0]`` (its dynamic offsets and guards follow)."""
    offsets, sizes, strides, shape, static = facts
    source = args[0]
    if len(args) == 1 and static is not None and source.shape == shape:
        return source[static]  # checked when cached, for this source shape
    if len(args) > 1:
        it = iter(args[1:])
        offsets = [next(it) if s == DYNAMIC else s for s in offsets]
        if DYNAMIC in sizes:
            sizes = [next(it) if s == DYNAMIC else s for s in sizes]  # guards: <= the maximum
            guard_error = _guard_error(op, sizes)
            if guard_error is not None:
                raise InterpretError(guard_error, op, code="out-of-bounds")
    if source.shape != shape:
        sizes = _within_guards(op, source.shape, offsets, sizes)
    return runtime.view(source, offsets, sizes, strides)


def _slice_runner(op: SliceOp, facts):
    """``tirx.slice`` made ready to run: a view of the source from an index with the static
    dims' slices made once and the dynamic offsets' bounds precomputed (written out as one
    Python function, the offsets in its locals). Anything off
    that path (a guarded size, a source of another shape, an offset out of bounds) goes
    through `_sliced`, which gives the view or the located error."""
    offsets, sizes, strides, shape, static = facts

    def run_slice(args: PythonValues) -> tuple:
        return (_sliced(op, facts, args),)

    if static is not None:
        def run_static(args: PythonValues) -> tuple:
            source = args[0]
            if source.shape == shape and len(args) == 1:
                return (source[static],)
            return (_sliced(op, facts, args),)

        return run_static
    if DYNAMIC in sizes or shape is None:
        return run_slice
    index: list[Any] = []  # the static dims' slices (None: a dynamic dim)
    dynamic = []  # (dim, operand, length, step, last valid offset) per dynamic offset
    arg = 1
    for d, (o, n, s, extent) in enumerate(zip(offsets, sizes, strides, shape)):
        span = (n - 1) * s
        if o == DYNAMIC:
            dynamic.append((d, arg, span + 1, s, extent - 1 - span))  # 0 <= offset <= last
            index.append(None)
            arg += 1
        elif 0 <= o and o + span < extent:
            index.append(slice(o, o + span + 1, s))
        else:
            return run_slice  # out of bounds whatever the dynamic offsets: each run reports it
    nargs = arg
    # the view as one Python function (the offsets' checks and the index written out: ~2x
    # cheaper than building the index per run); off its path `_sliced` as above
    scope: dict[str, Any] = {"_sliced": _sliced, "op": op, "facts": facts, "shape": shape}
    items = []
    for d, entry in enumerate(index):
        scope[f"S{d}"] = entry
        items.append(f"S{d}")
    checks = []
    for d, k, length, step, last in dynamic:
        items[d] = f"o{k}:o{k} + {length}:{step}"
        checks.append(f"0 <= o{k} <= {last}")
    source = (
        "def run_dynamic(args):\n"
        f"    if len(args) != {nargs}:\n"
        "        return (_sliced(op, facts, args),)\n"
        f"    source, {', '.join(f'o{k}' for _, k, *_ in dynamic)}, = args\n"
        f"    if source.shape != shape or not ({' and '.join(checks)}):\n"
        "        return (_sliced(op, facts, args),)  # the located out-of-bounds error\n"
        f"    return (source[{', '.join(items)},],)\n")
    exec(compile(source, "<tirx.slice>", "exec"), scope)  # noqa: S102 - our own source
    return scope["run_dynamic"]


class TirxKernelFunctions(InterpreterFunctions):
    """Kernels, scope ids, alloc, slice, load, store (combined into `TirxFunctions`)."""

    # ---- kernels ----
    @impl_callable(KernelOp)
    def call_kernel(self, interp: Interpreter, op: KernelOp, args: PythonValues) -> PythonValues:
        check_arguments(op, args)
        cache = interp.get_data(TirxKernelFunctions, "executors", dict)
        entry = cache.get(id(op))
        if entry is None or entry[0] is not op:
            entry = cache[id(op)] = (op, kernel_executor(op))
        executor = entry[1]
        if executor is not None:
            return tuple(executor(interp, op, tuple(args)))
        grid = _pad3(op.grid_dims())
        cluster = None if op.cluster_dims() is None else _pad3(op.cluster_dims())
        if cluster is not None and synchronises_cluster(op):
            return self._call_clusters(interp, op, args, grid, cluster)
        outer = current_launch(interp)
        pool = buffer_pool(interp)
        body, name, args = op.body, f"@{op.kernel_name}", tuple(args)
        try:
            with np.errstate(all="ignore"):
                for x, y, z in grid_ids(grid):
                    interp.set_data(TirxKernelFunctions, "launch",
                                    Launch(op, (x, y, z), grid, cluster))
                    try:
                        interp.run_ssacfg_region(body, args, name)
                    except InterpretError as err:
                        if grid != (1, 1, 1):
                            err.add_context(f"in CTA ({x}, {y}, {z}) of @{op.kernel_name}")
                        raise
                    pool.release()
        finally:
            interp.set_data(TirxKernelFunctions, "launch", outer)
        return tuple(args[op.n_inputs:])

    def _call_clusters(self, interp: Interpreter, op: KernelOp, args: PythonValues,
                       grid: tuple[int, int, int], cluster: tuple[int, int, int]):
        """The CTAs of each cluster together (cluster.py)."""
        outer = current_launch(interp), current_cluster(interp)
        pool = buffer_pool(interp)

        def set_launch(launch: Launch) -> None:
            interp.set_data(TirxKernelFunctions, "launch", launch)

        def body() -> None:
            interp.run_ssacfg_region(op.body, tuple(args), f"@{op.kernel_name}")

        try:
            with np.errstate(all="ignore"):
                for members in cluster_members(grid, cluster):
                    run = ClusterRun(interp, [ClusterCta(r, Launch(op, cta, grid, cluster))
                                              for r, cta in enumerate(members)])
                    set_current_cluster(interp, run)
                    try:
                        run.run(body, set_launch)
                    except InterpretError as err:
                        where = members[run.failed or 0]
                        err.add_context(f"in CTA ({where[0]}, {where[1]}, {where[2]}) of "
                                        f"@{op.kernel_name}")
                        raise
                    pool.release()
        finally:
            interp.set_data(TirxKernelFunctions, "launch", outer[0])
            set_current_cluster(interp, outer[1])
        return tuple(args[op.n_inputs:])

    @impl(ClusterSyncOp)
    def run_cluster_sync(self, interp: Interpreter, op: ClusterSyncOp, args: PythonValues):
        require_cluster(interp, op).sync(op)
        return ()

    @impl_terminator(ReturnOp)
    def run_return(self, interp: Interpreter, op: ReturnOp, args: PythonValues):
        return ReturnedValues(()), ()

    # ---- scope ids ----
    @staticmethod
    def _launch(interp: Interpreter, op: ScopeIdOp) -> Launch:
        launch = current_launch(interp)
        if launch is None:
            raise InterpretError("a scope id has a value only while a tirx.kernel runs", op)
        return launch

    @impl(CtaIdOp)
    def run_cta_id(self, interp: Interpreter, op: CtaIdOp, args: PythonValues):
        return (self._launch(interp, op).cta[op.dim_index],)

    @impl(ClusterIdOp)
    def run_cluster_id(self, interp: Interpreter, op: ClusterIdOp, args: PythonValues):
        launch = self._launch(interp, op)
        assert launch.cluster is not None  # the verifier requires a cluster launch
        return (launch.cta[op.dim_index] // launch.cluster[op.dim_index],)

    @impl(CtaIdInClusterOp)
    def run_cta_id_in_cluster(self, interp: Interpreter, op: CtaIdInClusterOp,
                              args: PythonValues):
        launch = self._launch(interp, op)
        assert launch.cluster is not None
        return (launch.cta[op.dim_index] % launch.cluster[op.dim_index],)

    @impl(CtaIdInPairOp)
    def run_cta_id_in_pair(self, interp: Interpreter, op: CtaIdInPairOp, args: PythonValues):
        return (self._launch(interp, op).cluster_rank() % 2,)

    def _per_thread_id(self, interp: Interpreter, op: ScopeIdOp, args: PythonValues):
        raise InterpretError(
            "a per-thread scope id has no value at the tile level: the body runs once per CTA "
            "and tile ops are collective over their exec scope", op, code="scope",
            hint="index by tirx.cta_id / tirx.cluster_id and let tile ops split the work; "
                 "CUDA-level (SIMT) IR is run by the CUDA backend's interpreter")

    @impl(ThreadIdOp)
    def run_thread_id(self, interp: Interpreter, op: ScopeIdOp, args: PythonValues):
        return self._per_thread_id(interp, op, args)

    @impl(LaneIdOp)
    def run_lane_id(self, interp: Interpreter, op: ScopeIdOp, args: PythonValues):
        return self._per_thread_id(interp, op, args)

    @impl(WarpIdOp)
    def run_warp_id(self, interp: Interpreter, op: ScopeIdOp, args: PythonValues):
        return self._per_thread_id(interp, op, args)

    @impl(WarpgroupIdOp)
    def run_warpgroup_id(self, interp: Interpreter, op: ScopeIdOp, args: PythonValues):
        return self._per_thread_id(interp, op, args)

    @impl(WarpIdInWgOp)
    def run_warp_id_in_wg(self, interp: Interpreter, op: ScopeIdOp, args: PythonValues):
        return self._per_thread_id(interp, op, args)

    @impl(ThreadIdInWgOp)
    def run_thread_id_in_wg(self, interp: Interpreter, op: ScopeIdOp, args: PythonValues):
        return self._per_thread_id(interp, op, args)

    # ---- buffers ----
    @impl(AllocOp)
    def run_alloc(self, interp: Interpreter, op: AllocOp, args: PythonValues):
        shape, dt = self._facts().get(op, "alloc", lambda: _alloc_facts(op))
        frame = interp._ctx._local_scope  # noqa: SLF001 - where its last buffer is held
        return (buffer_pool(interp).alloc(shape, dt, (frame, op.result)),)

    @impl(SliceOp)
    def run_slice(self, interp: Interpreter, op: SliceOp, args: PythonValues):
        facts = self._facts().get(op, "slice", lambda: _slice_facts(op))
        return (_sliced(op, facts, args),)

    @staticmethod
    def prepare_buffer_op(interp: Interpreter, op: Operation):
        """``tirx.alloc``, ``tirx.slice`` and ``tirx.cta_id`` with their types and properties
        decoded once (see `core.BlockPlan`), or None for another op."""
        if isinstance(op, AllocOp):
            shape, dt = _alloc_facts(op)
            pool, result = buffer_pool(interp), op.result
            fill = runtime.fresh_fill(dt)

            def run_alloc(args: PythonValues) -> tuple:
                frame = interp._ctx._local_scope  # noqa: SLF001 - where its last buffer is held
                return (pool.alloc(shape, dt, (frame, result), fill),)

            return run_alloc
        if isinstance(op, CtaIdOp):
            dim = op.dim_index

            def run_cta_id(args: PythonValues) -> tuple:
                launch = current_launch(interp)
                if launch is None:
                    TirxKernelFunctions._launch(interp, op)  # the located error
                return (launch.cta[dim],)

            return run_cta_id
        if isinstance(op, SliceOp):
            return _slice_runner(op, _slice_facts(op))
        return None

    def _facts(self) -> runtime.PerOpCache:
        facts = self.__dict__.get("_buffer_facts")
        if facts is None:
            facts = self.__dict__["_buffer_facts"] = runtime.PerOpCache()
        return facts

    @impl(TransposeOp)
    def run_transpose(self, interp: Interpreter, op: TransposeOp, args: PythonValues):
        return (args[0].transpose(op.perm()),)

    @impl(ReshapeOp)
    def run_reshape(self, interp: Interpreter, op: ReshapeOp, args: PythonValues):
        shape = op.result.type.get_shape()  # type: ignore[attr-defined]
        if args[0].shape != op.source.type.get_shape():  # type: ignore[attr-defined]
            shape = _guarded_reshape(op, args[0].shape, shape)
        try:  # a split of dims is always a view (writes go through to the buffer)
            return (np.reshape(args[0], shape, copy=False),)
        except ValueError:
            raise InterpretError(f"cannot view {list(args[0].shape)} as {list(shape)} without "
                                 f"a copy", op) from None

    @impl(LoadOp)
    def run_load(self, interp: Interpreter, op: LoadOp, args: PythonValues):
        buffer, *indices = args
        return (runtime.to_python(buffer[runtime.check_index(buffer, indices)]),)

    @impl(StoreOp)
    def run_store(self, interp: Interpreter, op: StoreOp, args: PythonValues):
        value, buffer, *indices = args
        buffer[runtime.check_index(buffer, indices)] = runtime.convert(value, buffer.dtype)
        return ()


def _guard_error(op: SliceOp, sizes) -> str | None:
    """Why a guarded slice's run-time sizes are invalid (None: they are not)."""
    for d, (n, m) in enumerate(zip(sizes, op.sizes())):
        if not 0 <= int(n) <= m:
            return f"slice dim {d}: the guarded size is {int(n)}, outside [0, {m}]"
    return None


def _within_guards(op: SliceOp, actual: tuple[int, ...], offsets, sizes) -> list[int]:
    """A slice of a guarded view (smaller than its type on a guarded dim) takes such a dim
    whole (offset 0, the static size: `access.resolve_access` states the rule), which is the
    run-time extent."""
    static = op.source.type.get_shape()  # type: ignore[attr-defined]
    out = list(sizes)
    for d, (a, n) in enumerate(zip(actual, static)):
        if a == n:
            continue
        if offsets[d] != 0 or sizes[d] != n:
            raise InterpretError(f"slice dim {d} cuts into a guarded dim (its extent is "
                                 f"{a} at run time, at most {n})", op)
        out[d] = a
    return out


def _guarded_reshape(op: ReshapeOp, actual: tuple[int, ...], shape: tuple[int, ...]
                     ) -> tuple[int, ...]:
    """The run-time shape of a reshape of a guarded view (fewer elements than its type on a
    guarded dim): each merged/split group of dims keeps its static shape, except a group of one
    non-unit dim on either side, which takes the guarded extent. A reshape that splits or merges
    a guarded dim has no such shape."""
    from tirx_mlir.dialects.tirx.buffer_ops import reshape_groups

    static = op.source.type.get_shape()  # type: ignore[attr-defined]
    groups = reshape_groups(static, shape)
    assert groups is not None
    out = list(shape)
    for src_dims, res_dims in groups:
        if all(actual[d] == static[d] for d in src_dims):
            continue
        src_big = [d for d in src_dims if static[d] != 1]
        res_big = [d for d in res_dims if shape[d] != 1]
        if len(src_big) != 1 or len(res_big) != 1:
            raise InterpretError(f"reshape {list(static)} -> {list(shape)} splits or merges a "
                                 f"guarded dim (run-time shape {list(actual)})", op)
        out[res_big[0]] = actual[src_big[0]]
    return tuple(out)
