"""What the CUDA dispatch variants share: predicates, thread ids, physical addressing through
views and layouts, the per-thread register arrays of register tiles, and the barriers that keep
the tile-level program order.

Addressing (`physical_index`): a view (``tirx.slice``/``transpose``/``reshape``) is resolved to
its underlying buffer (`access.resolve_access`); the element's base coordinate is mapped
through the buffer's layout (row-major when it has none; strided iterators; an XOR swizzle on
``m``) to the flat physical element index a ``cuda.load``/``cuda.address`` takes.

Registers (`registers`): every logical ``local`` tile gets one physical per-thread array
``!tirx.buffer<N x T, local>`` (N = its layout's span on ``m``), allocated once per kernel and
keyed by the tile's allocation; `register_slots` says, for each element a variant's thread
handles, which register of that thread holds it in an operand tile, checked over every thread of
the scope (a layout that puts it in another thread, or in a register that depends on the thread,
is refused: the variant declines).

Barriers (`cuda_variant`): the tile level runs ops in program order over whole tiles, so a
variant that touches shared memory at warp, warpgroup or CTA scope ends with the barrier of its
scope (``__syncwarp``, ``bar.sync 1 + w, 128`` for warpgroup ``w``, ``__syncthreads``); a CTA-scope op that writes shared
memory right after a narrower op also starts with ``__syncthreads`` (the narrower op's barrier
does not order other warps' reads before these writes), and so does a narrower op that writes
a shared tile that ops narrower than the CTA, or wgmmas, touched before (shared_refill.py).
``copy_async`` adds none: the user
waits (commit/wait, mbarriers) as in TIRx; a program that never waits for a cp.async gets the
wait before the first op that touches its destination (`async_completion`).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerAttr, UnitAttr, i32, i64
from xdsl.ir import Attribute, SSAValue

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.dialects.cuda.address import AddressOp
from tirx_mlir.backends.cuda.dialects.cuda.ids import ThreadIdxOp
from tirx_mlir.backends.cuda.dispatch import shared_refill
from tirx_mlir.backends.cuda.dispatch.async_completion import complete_cp_async, unwaited_cp_async
from tirx_mlir.backends.cuda.dialects.ptx import collective
from tirx_mlir.backends.cuda.dialects.cuda.sync import (SyncThreadsOp, SyncWarpgroupOp,
                                                        SyncWarpOp)
from tirx_mlir.backends.cuda.layout.defaults import scope_threads
from tirx_mlir.backends.cuda.layout.partition import (PartitionError, RegisterPartition, _refine,
                                                     partition_of)
from tirx_mlir.backends.cuda.memory import GLOBAL, LOCAL, SHARED_SCOPES
from tirx_mlir.backends.cuda.target_tags import parse_arch
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import (IndexExpr, const_index, insert_binary, materialize,
                                            resolve_access)
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope, decoded
from tirx_mlir.dialects.tirx.buffer_ops import VIEW_OPS, AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp, ScopeIdOp
from tirx_mlir.dialects.tirx.op_build import arith_constant
from tirx_mlir.dialects.tirx.layout import TileLayout
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dispatch import Predicate, fail, predicate, register_dispatch
from tirx_mlir.dispatch.builders import check_config, is_buffer, scope_of
from tirx_mlir.ir_insert import SharingBuilder

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

MEMORY_SCOPES = (GLOBAL, *SHARED_SCOPES)

# --- the target -----------------------------------------------------------------------------------


def sm_version(ctx) -> int:
    """The target's compute capability as an integer (``sm_90a`` -> 90)."""
    return parse_arch(str(ctx.target.get("arch") or "sm_80"))[0]


def is_arch_specific(ctx) -> bool:
    """Whether the target is an ``a`` arch (sm_90a: wgmma, setmaxnreg)."""
    return parse_arch(str(ctx.target.get("arch") or "sm_80"))[1] == "a"


def sm_at_least(number: int) -> Predicate:
    def check(op, ctx) -> tuple[bool, str]:
        return sm_version(ctx) >= number, f"needs sm_{number} or newer, the target is " \
                                          f"{ctx.target.get('arch')}"
    return predicate(f"sm>={number}", check)


def scopes_of(op: TileOp) -> dict[str, str]:
    """Operand name -> memory scope, for the buffer operands."""
    return {n: scope_of(v) for n, v in op.named_operands().items() if is_buffer(v)}


def operands_in(*scopes: str) -> Predicate:
    """Every buffer operand lives in one of ``scopes``."""
    def check(op, ctx) -> tuple[bool, str]:
        for name, scope in scopes_of(op).items():
            if scope not in scopes:
                return False, f"operand '{name}' is in {scope}; this variant takes " \
                              f"{', '.join(scopes)}"
        return True, ""
    return predicate(f"operands in {'/'.join(scopes)}", check)


def dst_in(scopes: Sequence[str]) -> Predicate:
    """The destination operand lives in one of ``scopes``."""
    def check(op, ctx) -> tuple[bool, str]:
        s = scope_of(op.dst)
        return s in scopes, f"the destination is in {s}; this variant writes {', '.join(scopes)}"
    return predicate(f"dst in {'/'.join(scopes)}", check)


def block_threads(ctx) -> int:
    return math.prod(ctx.threads)


def one_dim_block(op, ctx) -> tuple[bool, str]:
    return len(ctx.threads) == 1, f"the CUDA variants take 1-D blocks, the kernel has threads " \
                                  f"{list(ctx.threads)}"


ONE_DIM_BLOCK = predicate("1-D block", one_dim_block)


def whole_groups(unit: int, what: str) -> Predicate:
    """The block holds whole warps (``unit`` 32) or warpgroups (128), as ``what``, the collective
    instructions a variant emits, need (`collective.launch_error`, the ptx ops' own rule)."""
    def check(op, ctx) -> tuple[bool, str]:
        message = collective.launch_error(what, unit, ctx.threads)
        return message is None, message or ""
    return predicate(f"whole {collective.GROUPS[unit][0]}s", check)

# --- thread ids -----------------------------------------------------------------------------------

_DERIVED = {"laneid": (None, 32), "warpid": (32, None), "wgid": (128, None),
            "tid_in_wg": (None, 128), "wid_in_wg": (32, 4)}
"""axis -> (divisor, modulus) of ``threadIdx.x`` (TIRx's layout thread axes)."""


def axis_values_np(tx: np.ndarray) -> dict[str, np.ndarray]:
    """Every thread axis's value for the threads ``tx`` (numpy, for static checks)."""
    out = {"tx": tx}
    for axis, (div, mod) in _DERIVED.items():
        v = tx // div if div else tx
        out[axis] = v % mod if mod else v
    return out


class ThreadIds:
    """The thread-axis values of the executing thread, built on first use at ``builder``."""

    def __init__(self, builder: Builder):
        self.b = builder
        self._values: dict[str, SSAValue] = {}

    def __getitem__(self, axis: str) -> SSAValue:
        if axis not in self._values:
            if axis == "tx":
                self._values[axis] = self.b.insert(ThreadIdxOp(dim="x")).result
            elif axis in _DERIVED:
                div, mod = _DERIVED[axis]
                v = self["tx"]
                if div:
                    v = insert_binary(self.b, arith.DivUIOp, v, const_index(self.b, div))
                if mod:
                    v = insert_binary(self.b, arith.RemUIOp, v, const_index(self.b, mod))
                self._values[axis] = v
            else:
                fail(f"layout axis '{axis}' is not a thread axis of a CTA")
        return self._values[axis]

    def digit(self, value: SSAValue, stride: int, extent: int, offset: int = 0) -> SSAValue | int:
        """``((value - offset) // stride) % extent`` as index arithmetic."""
        b = self.b
        v = value
        if offset:
            v = insert_binary(b, arith.SubiOp, v, const_index(b, offset))
        if stride != 1:
            v = insert_binary(b, arith.DivUIOp, v, const_index(b, stride))
        return insert_binary(b, arith.RemUIOp, v, const_index(b, extent))

    def thread_coords(self, part: RegisterPartition) -> tuple[IndexExpr, ...]:
        axes = {ax: self[ax] for ax in part.threads}
        return part.thread_coords(axes, self.digit)


# --- addressing -----------------------------------------------------------------------------------


def base_coords(view: SSAValue, coords: Sequence[IndexExpr]) -> tuple[SSAValue, tuple[IndexExpr, ...]]:
    """(underlying buffer, base coordinate) of ``view[coords]``."""
    pattern = resolve_access(view)
    out = list(pattern.offset)
    for k, c in enumerate(coords):
        for d, step in enumerate(pattern.steps[k]):
            if step:
                out[d] = out[d] + IndexExpr.of(c).scale(step)
    if pattern.flat:
        fail("the view reshapes its buffer across dims; copy it into a buffer of that shape")
    return pattern.buffer, tuple(out)


def buffer_layout(btype: BufferType) -> TileLayout:
    layout = btype.get_layout()
    return layout if layout is not None else TileLayout.row_major(btype.get_shape())


def linear_index(btype: BufferType, coords: Sequence[IndexExpr]) -> IndexExpr | None:
    """The physical flat index of the element at base ``coords`` as an affine expression, when
    the buffer's layout is one stride per dim on ``m`` without swizzle (None otherwise)."""
    plan = decoded(btype, "_cuda_linear_strides", _linear_strides)
    if plan is None:
        return None
    offset, strides = plan
    expr = IndexExpr(offset)
    for d, stride in strides:
        expr = expr + IndexExpr.of(coords[d]).scale(stride)
    return expr


def _linear_strides(btype: BufferType) -> tuple[int, tuple[tuple[int, int], ...]] | None:
    """(offset, ((dim, stride), ...)) of `linear_index` for ``btype``, read once per type."""
    layout = buffer_layout(btype)
    shape = btype.get_shape()
    if layout.swizzle is not None or any(it.axis != "m" for it in layout.shard) or layout.replica:
        return None
    try:
        iters = _refine(layout.shard, shape)
    except PartitionError:
        return None
    per_dim: dict[int, list] = {}
    for it in iters:
        per_dim.setdefault(it.dim, []).append(it)
    strides = []
    for d, its in per_dim.items():
        # one stride per dim: each iterator's stride is the innermost one's times its weight
        its = sorted(its, key=lambda i: i.weight)
        base = its[0].stride
        if any(i.stride != base * i.weight for i in its):
            return None
        strides.append((d, base))
    return layout.offset_of("m"), tuple(strides)


def physical_index(b: Builder, btype: BufferType, coords: Sequence[IndexExpr],
                   cache: dict | None = None) -> SSAValue | int:
    """The flat physical element index of base ``coords`` in ``btype`` (index arithmetic, or an
    int when constant). ``cache`` (one per variant call) shares the thread-dependent part."""
    lin = linear_index(btype, coords)
    if lin is not None:
        return materialize_cached(b, lin, cache)
    layout = buffer_layout(btype)
    if any(it.axis != "m" for it in (*layout.shard, *layout.replica)):
        fail(f"buffer layout {layout} places elements on thread axes; it is not memory")
    iters = decoded(btype, "_cuda_refined_shard", _refined_shard)
    if isinstance(iters, str):
        fail(iters)
    acc = _add(b, _affine_digits(b, iters, coords, cache), layout.offset_of("m"))
    if layout.swizzle is None:
        return acc
    return _swizzle(b, layout.swizzle, acc)


def _refined_shard(btype: BufferType) -> list | str:
    """``_refine`` of ``btype``'s layout's shard over its shape (the iterators `physical_index`
    reads), or the message of its `PartitionError`; read once per type (`decoded`)."""
    try:
        return _refine(buffer_layout(btype).shard, btype.get_shape())
    except PartitionError as err:
        return str(err)


def _affine_digits(b, iters, coords, cache) -> SSAValue | int:
    total: SSAValue | int = 0
    for it in iters:
        c = coords[it.dim]
        digit: SSAValue | int
        if IndexExpr.of(c).is_const():
            digit = (IndexExpr.of(c).const // it.weight) % it.extent
        else:
            v = materialize_cached(b, IndexExpr.of(c), cache)
            if it.weight != 1:
                v = insert_binary(b, arith.DivUIOp, v, const_index(b, it.weight))
            digit = insert_binary(b, arith.RemUIOp, v, const_index(b, it.extent))
        total = _add(b, total, _mul(b, digit, it.stride))
    return total


def _add(b, x, y):
    if isinstance(x, int) and isinstance(y, int):
        return x + y
    if isinstance(x, int) and x == 0:
        return y
    if isinstance(y, int) and y == 0:
        return x
    xv = const_index(b, x) if isinstance(x, int) else x
    yv = const_index(b, y) if isinstance(y, int) else y
    return insert_binary(b, arith.AddiOp, xv, yv)


def _mul(b, x, k: int):
    if isinstance(x, int):
        return x * k
    if k == 1:
        return x
    return insert_binary(b, arith.MuliOp, x, const_index(b, k))


def _swizzle(b, sw, m):
    if isinstance(m, int):
        return int(sw.apply(m))
    x = insert_binary(b, arith.ShRUIOp, m, const_index(b, sw.per_element))
    mask = ((1 << sw.swizzle_len) - 1) << sw.atom_len
    hi = insert_binary(b, arith.AndIOp, x, const_index(b, mask))
    hi = insert_binary(b, arith.ShRUIOp, hi, const_index(b, sw.atom_len))
    x = insert_binary(b, arith.XOrIOp, x, hi)
    x = insert_binary(b, arith.ShLIOp, x, const_index(b, sw.per_element))
    low = (1 << sw.per_element) - 1
    if low:
        lo = insert_binary(b, arith.AndIOp, m, const_index(b, low))
        x = insert_binary(b, arith.OrIOp, x, lo)
    return x


def materialize_cached(b: Builder, expr: IndexExpr, cache: dict | None) -> SSAValue | int:
    """``materialize``, sharing the non-constant part between calls with the same ``cache``:
    ``thread_part + c`` for many constants ``c`` costs one add each."""
    if expr.is_const():
        return expr.const
    key = expr.terms
    if cache is None or key not in cache:
        value = materialize(b, IndexExpr(0, expr.terms))
        if cache is None:
            return _add(b, value, expr.const)
        cache[key] = value
    return _add(b, cache[key], expr.const)


def index_value(b: Builder, index: SSAValue | int) -> SSAValue:
    return const_index(b, index) if isinstance(index, int) else index


def ptx_access(b: Builder, buf: SSAValue, index: SSAValue) -> tuple[str, SSAValue]:
    """(state space, address) of ``buf[index]`` for a ``ptx.ld``/``ptx.st``: a shared-window
    i32 address for shared memory, a generic i64 one for global memory."""
    shared = scope_of(buf) in SHARED_SCOPES
    addr = b.insert(AddressOp(buf, index, result_types=[i32 if shared else i64])).result
    return ("shared" if shared else "global"), addr


def ptx_type(t: Attribute) -> str:
    """The ``ld``/``st`` type of elements of ``t``: f32/f64 as such, others by width (a ``.bN``
    register holds any type of N bits)."""
    if isinstance(t, AnyFloat) and t.bitwidth in (32, 64):
        return f"f{t.bitwidth}"
    return f"b{dtypes.bit_width(t)}"


# --- registers ------------------------------------------------------------------------------------


def local_alloc(value: SSAValue) -> AllocOp:
    buf = resolve_access(value).buffer
    if not isinstance(buf.owner, AllocOp):
        fail("a register tile must be a tirx.alloc in local (or a view of one)")
    return buf.owner


def register_partition(value: SSAValue) -> RegisterPartition:
    """The partition of the register tile ``value`` views (its allocation's layout)."""
    btype = resolve_access(value).buffer_type
    layout = btype.get_layout()
    if layout is None:
        fail(f"register tile {btype} has no layout: run cuda-default-layout first")
    try:
        return partition_of(layout, btype.get_shape())
    except PartitionError as err:
        fail(str(err))


def registers(ctx, value: SSAValue) -> SSAValue:
    """The per-thread physical register array of the register tile ``value`` views."""
    alloc = local_alloc(value)
    part = register_partition(value)
    btype = alloc.result.type
    assert isinstance(btype, BufferType)
    return ctx.alloc_private(("registers", id(alloc), alloc.result),
                             register_array_type(part.nregs, btype.element_type))


_REGISTER_ARRAYS: dict[tuple[int, Attribute], BufferType] = {}


def register_array_type(nregs: int, element_type: Attribute) -> BufferType:
    """``BufferType([nregs], element_type, LOCAL)``, made once per count and element type (an
    attribute is immutable; dispatch asks for a tile's register array at every use of it)."""
    key = (nregs, element_type)
    found = _REGISTER_ARRAYS.get(key)
    if found is None:
        found = _REGISTER_ARRAYS[key] = BufferType([nregs], element_type, LOCAL)
    return found


def scope_thread_ids(scope: ExecScope, nthreads: int) -> np.ndarray:
    """The ``threadIdx.x`` values of the first instance of ``scope`` (every instance behaves
    the same: a layout at that scope uses only the scope's own axes)."""
    return np.arange(scope_threads(scope, nthreads), dtype=np.int64)


def register_slots(part: RegisterPartition, view: SSAValue, iter_part: RegisterPartition,
                   iter_shape: Sequence[int], scope: ExecScope, nthreads: int) -> list[int]:
    """For each register slot ``r`` of ``iter_part`` (the iteration a variant runs; its slots in
    `RegisterPartition.registers` order), the register of the operand tile (``view`` of a tile
    partitioned by ``part``, broadcast to ``iter_shape``) that holds that element in the same
    thread. Raises `PartitionError` when a thread of the scope does not hold it, or when the
    register differs between threads. The answer depends on the layouts, shapes and the view's
    static offsets and steps only, so it is computed once per distinct question."""
    pattern = resolve_access(view)
    if pattern.static_offset() is None:
        raise PartitionError("a view of a register tile must have constant offsets")
    key = (part.layout, part.shape, pattern.static_offset(), pattern.sizes, pattern.steps,
           pattern.buffer_type.get_shape(), iter_part.layout, iter_part.shape,
           tuple(iter_shape), scope, nthreads)
    found = _SLOTS.get(key)
    if found is None:
        try:
            found = tuple(_register_slots(part, pattern, iter_part, iter_shape, scope, nthreads))
        except PartitionError as err:
            found = err
        _SLOTS[key] = found
    if isinstance(found, PartitionError):
        raise PartitionError(str(found))
    return list(found)


_SLOTS: dict[tuple, "tuple[int, ...] | PartitionError"] = {}
"""`register_slots`'s answers (or refusals), by the question's immutable parts."""


def _register_slots(part: RegisterPartition, pattern, iter_part: RegisterPartition,
                    iter_shape: Sequence[int], scope: ExecScope, nthreads: int) -> list[int]:
    vshape = pattern.sizes
    aligned = (1,) * (len(iter_shape) - len(vshape)) + tuple(vshape)
    if math.prod(aligned) != math.prod(vshape) or len(aligned) != len(iter_shape):
        raise PartitionError("operand does not broadcast to the iteration space")
    own = _own_slots(part, pattern, iter_part, iter_shape, scope, nthreads)
    if own is not None:
        return own
    tx = scope_thread_ids(scope, nthreads)
    axes = axis_values_np(tx)
    # threads beyond the iteration layout's extent on an axis hold nothing of it (the writer
    # guard keeps them from writing memory); only the others must find their elements
    covered = np.all([axes[a] < n for a, n in iter_part.threads.items() if a in axes], axis=0) \
        if iter_part.threads else np.ones(len(tx), dtype=bool)
    tx, axes = tx[covered], {a: v[covered] for a, v in axes.items()}
    slots = iter_part.registers()
    # logical coordinate in the iteration space, [threads, slots, rank]
    rank = len(iter_shape)
    thread_part = iter_part.thread_coords_array(axes, len(tx))
    reg_part = np.array([iter_part.reg_coords(r) for r in slots], dtype=np.int64).reshape(
        len(slots), rank)
    coords = thread_part[:, None, :] + reg_part[None, :, :]
    # the operand view's coordinate (broadcast dims read index 0), then the base coordinate
    lead = rank - len(vshape)
    vcoords = np.where(np.array(aligned) == 1, 0, coords)[..., lead:]
    base = np.array(pattern.static_offset(), dtype=np.int64) + np.einsum(
        "tsk,kd->tsd", vcoords, np.array(pattern.steps, dtype=np.int64).reshape(
            len(vshape), -1)) if vshape else np.broadcast_to(
        np.array(pattern.static_offset(), dtype=np.int64), coords.shape[:2] + (
            len(pattern.offset),))
    bshape = pattern.buffer_type.get_shape()
    table = part.layout.apply_array(bshape)
    idx = tuple(base[..., d] for d in range(len(bshape)))
    regs = table["m"][idx] if "m" in table else np.zeros(base.shape[:2], dtype=np.int64)
    holds = np.ones(regs.shape, dtype=bool)
    for axis in part.threads:
        mine = axes[axis][:, None] if axis in axes else None
        if mine is None:
            raise PartitionError(f"thread axis '{axis}' is not a CTA axis")
        where = table[axis][idx]
        ok = np.zeros(regs.shape, dtype=bool)
        for rep in part.layout.replica_offsets():
            ok |= (where + rep.get(axis, 0)) == mine
        holds &= ok
    if not holds.all():
        t, s = map(int, np.argwhere(~holds)[0])
        raise PartitionError(f"thread {t} needs element {tuple(int(c) for c in base[t, s])} of "
                             f"the register tile, which another thread holds; copy the tile "
                             f"through shared memory or give the operands matching layouts")
    if not (regs == regs[:1]).all():
        raise PartitionError("the register holding an element differs between threads")
    return [int(r) for r in regs[0]]


def _own_slots(part: RegisterPartition, pattern, iter_part: RegisterPartition,
               iter_shape: Sequence[int], scope: ExecScope, nthreads: int) -> list[int] | None:
    """`_register_slots` for the iteration's own tile, without numpy: the same layout and
    shape, the whole tile viewed (offset 0, unit steps). None for any other question (the
    general check answers it), and for a thread axis that is not a CTA axis (its error).

    An element's coordinate is then a thread part plus a register part that sit on disjoint
    digits of the layout (`RegisterPartition`), so the layout maps it back to the slot's own
    register and to the thread axes' values that the thread part's digits give, whatever the
    slot. The check over threads x slots becomes one per thread: each axis value the layout
    gives back, plus one of its replicas' offsets, is the thread's own. The answer, and the
    thread and element an error names (its first slot), are the general check's. Importing
    numpy costs a fresh compile more than the whole check (bench/README.md, "Start-up, fourth
    round")."""
    shape = tuple(part.shape)
    rank = len(shape)
    identity = tuple(tuple(int(i == j) for j in range(rank)) for i in range(rank))
    if (part.layout != iter_part.layout or tuple(iter_part.shape) != shape
            or tuple(iter_shape) != shape or tuple(pattern.sizes) != shape
            or tuple(pattern.buffer_type.get_shape()) != shape
            or any(pattern.static_offset())
            or tuple(tuple(row) for row in pattern.steps) != identity
            or any(axis != "tx" and axis not in _DERIVED for axis in part.threads)):
        return None
    offsets = dict(part.layout.offset)
    digits = part.thread_digits()
    replicas = part.layout.replica_offsets()
    shifts = {axis: {rep.get(axis, 0) for rep in replicas} for axis in part.threads}
    slots = iter_part.registers()
    covered = 0
    for tx in range(scope_threads(scope, nthreads)):
        values = axis_values(tx)
        if any(values[a] >= n for a, n in iter_part.threads.items() if a in values):
            continue  # beyond the iteration's threads: holds nothing of it
        for axis in part.threads:
            where = offsets.get(axis, 0) + sum(
                ((values[it.axis] - offsets.get(it.axis, 0)) // it.stride % it.extent) * it.stride
                for it in digits if it.axis == axis)
            if values[axis] - where not in shifts[axis]:  # no replica's offset reaches it
                element = tuple(t + r for t, r in zip(part.thread_coords_of(values),
                                                      part.reg_coords(slots[0])))
                raise PartitionError(
                    f"thread {covered} needs element {element} of the register tile, which "
                    f"another thread holds; copy the tile through shared memory or give the "
                    f"operands matching layouts")
        covered += 1
    return list(slots) if covered else None


def axis_values(tx: int) -> dict[str, int]:
    """`axis_values_np` for one thread."""
    out = {"tx": tx}
    for axis, (div, mod) in _DERIVED.items():
        v = tx // div if div else tx
        out[axis] = v % mod if mod else v
    return out


# --- registration with the barriers of the tile-level order ----------------------------------------


def _touches_shared(op: TileOp) -> tuple[bool, bool]:
    """(reads shared, writes shared)."""
    reads = any(is_buffer(v) and scope_of(v) in SHARED_SCOPES for v in op.src_operands())
    writes = any(is_buffer(v) and scope_of(v) in SHARED_SCOPES for v in op.dst_operands())
    return reads, writes


WARPGROUP_BARRIER = 1
"""Warpgroup ``w`` synchronises on named barrier ``1 + w`` (0 is ``__syncthreads``'): at most 8
warpgroups (1024 threads) use ids 1..8 of the 16."""


def scope_barrier(b: Builder, scope: ExecScope):
    """The barrier of ``scope``'s instance (none for a thread), inserted; the op or None."""
    if scope == ExecScope.CTA:
        return b.insert(SyncThreadsOp())
    if scope == ExecScope.WARPGROUP:
        return b.insert(SyncWarpgroupOp(barrier=IntegerAttr(WARPGROUP_BARRIER, i32),
                                        per_warpgroup=UnitAttr()))
    if scope == ExecScope.WARP:
        mask = b.insert(arith_constant(-1, i32)).result
        return b.insert(SyncWarpOp(mask))
    return None


def is_scope_barrier(op, scope: ExecScope) -> bool:
    """Whether ``op`` is the barrier `scope_barrier` emits for ``scope``."""
    kinds = {ExecScope.CTA: SyncThreadsOp, ExecScope.WARPGROUP: SyncWarpgroupOp,
             ExecScope.WARP: SyncWarpOp}
    return scope in kinds and isinstance(op, kinds[scope])


_NO_WORK = (AllocOp, arith.ConstantOp, ScopeIdOp, *VIEW_OPS)


def barrier_before(op: TileOp, scope: ExecScope):
    """The `scope_barrier` op that ends the code right before ``op`` (only allocations,
    constants, ids, views and index arithmetic between them), or None."""
    prev = op.prev_op
    while prev is not None and (isinstance(prev, _NO_WORK) or prev.dialect_name() == "arith"):
        prev = prev.prev_op
    return prev if prev is not None and is_scope_barrier(prev, scope) else None


def _after_other_work(op: TileOp) -> bool:
    """Whether threads may still be touching shared memory for earlier work when ``op``
    starts: something other than allocations, constants, ids and views precedes it in its
    block (and it is not right after a barrier), or its block is a loop or branch body."""
    if isinstance(op.prev_op, SyncThreadsOp):
        return False
    if not isinstance(op.parent_op(), KernelOp):
        return True
    prev = op.prev_op
    while prev is not None:
        if not isinstance(prev, _NO_WORK) and not (prev.dialect_name() == "arith"):
            return True
        prev = prev.prev_op
    return False


def cuda_variant(op_name, variant: str, priority: int, when: list[Predicate],
                 barriers: bool = True, config: Sequence[str] = ()) -> Callable:
    """`register_dispatch` for target kind ``cuda``, adding the barriers of the tile-level
    order around the impl's code (module docstring). ``config``: the config keys the variant
    reads; an op with any other key is declined before anything is built, the reason naming
    the keys it takes (`check_config`: a TIRx key this variant does not implement is an error
    at the op, never silently ignored)."""
    def wrap(impl):
        def run(op: TileOp, ctx) -> None:
            check_config(op, config)
            if not isinstance(ctx.builder, SharingBuilder):  # each index constant built once
                ctx.builder = SharingBuilder(ctx.builder.insertion_point)
            reads, writes = _touches_shared(op) if barriers else (False, False)
            scope = op.exec_scope
            if unwaited_cp_async(op, ctx):
                shared_refill.note_barrier(ctx, complete_cp_async(ctx.builder))
            elif writes and scope == ExecScope.CTA and _after_other_work(op):
                shared_refill.note_barrier(ctx, scope_barrier(ctx.builder, scope))
            elif writes and scope != ExecScope.CTA:  # after narrower accesses or wgmmas
                shared_refill.refill_before_writes(ctx, ctx.builder, op)
            impl(op, ctx)
            if (reads or writes) and scope != ExecScope.THREAD:
                after = scope_barrier(ctx.builder, scope)
                if scope == ExecScope.CTA:
                    shared_refill.note_barrier(ctx, after)
            shared_refill.note_unordered(ctx, op)
        run.__name__ = impl.__name__
        run.__doc__ = impl.__doc__
        register_dispatch(op_name, "cuda", variant=variant, priority=priority, when=when)(run)
        return impl
    return wrap
