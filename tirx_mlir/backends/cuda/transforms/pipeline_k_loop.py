"""``cuda-pipeline-k-loop``: software pipelining of loops that stage global tiles in shared memory
through a ring of ``num_stages`` cp.async buffers (option ``num_stages``, default 3).

Where it runs: on CUDA-level IR, after ``cuda-lower-layout`` (shared buffers are 1-D physical
arrays, so a ring is ``num_stages`` times the array and a stage an element offset) and before
shared-memory planning (which then sees the ring's size). Not on tile IR: the tile interpreter
runs kernels of tile ops only, so the cp.async commit/wait and the barrier a pipeline needs could
not be placed at the tile level without leaving the reference semantics. The tile program stays
the plain loop the user wrote (``tirx.copy cta`` of the K tile into shared memory, then its
consumer, e.g. ``tirx.gemm``); its meaning does not change, only its schedule.

What it pipelines: an ``scf.for`` with constant bounds (``lb`` a non-negative multiple of
``step``) and at least 2 iterations whose body, at
its top level, copies global memory into shared arrays — dispatched synchronous copies
(``cuda.load`` of global memory whose value only feeds a ``cuda.store`` to a shared array, 4, 8
or 16 bytes) or ``ptx.cp_async`` into a shared array — where each such array is used only inside
the loop, by ``cuda.address``/``cuda.load``/``cuda.store``. The rest of the body is the
consumer. A loop without such copies is left alone.

The result, with S stages and iteration ``i = (k - lb) / step``::

    ring_X = S copies of X                          (each copied array X)
    for s in 0 .. S-2:  copies of iteration s into stage s (cp.async; none past the last
                        iteration); commit_group
    for k:
        cp.async.wait_group S-2; barrier            (stage i has landed, everywhere; every
                                                     thread is done with iteration i - 1)
        if k + (S-1)*step < ub: copies of iteration i + S-1 into stage (i + S-1) % S (cp.async)
        commit_group                                (one group per iteration, maybe empty)
        consumer, reading stage i % S
    cp.async.wait_group 0

The copies' address arithmetic is cloned with the induction variable advanced; barriers and
cp.async commit/waits that only separated the copies from the consumer (leading and trailing ones
of the consumer) are dropped: the one wait and barrier per iteration orders everything they did.
A loop with a cp.async commit/wait inside its consumer is left alone. The ring loop is marked
``cuda.nounroll`` (`loop_hints`: ptxas would otherwise unroll a short ring completely).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp, VectorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx import forms
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.loop_hints import mark_nounroll
from tirx_mlir.backends.cuda.memory import GLOBAL, SHARED, SHARED_SCOPES, STATIC_SHARED_LIMIT
from tirx_mlir.diagnostics import PassError
from tirx_mlir.changes import current_changes
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import kernels
from tirx_mlir.ir_walk import walk_ops
from tirx_mlir.type_tests import IsInstance, find_ops

_IS_FOR = IsInstance(scf.ForOp)
I32, I64 = IntegerType(32), IntegerType(64)
CP_ASYNC_BYTES = (4, 8, 16)
SHARED_SPACES = ("shared", "shared::cta")
ASYNC_GROUP_ROWS = ("cp_async_commit_group", "cp_async_wait_group", "cp_async_wait_all")
_ACCESS = (cuda.AddressOp, cuda.LoadOp, cuda.StoreOp)


@dataclass
class _Copy:
    """One staged copy: ``bytes`` from ``src`` (a global i64 address, or the global buffer and
    index of a load) to shared array ``dst`` at element ``index``."""

    ops: list[Operation]
    dst: SSAValue
    index: SSAValue
    bytes: int
    src_buffer: SSAValue | None = None
    src_index: SSAValue | None = None
    src_address: SSAValue | None = None
    extra: list[SSAValue] = field(default_factory=list)     # cp.async src-size
    cache: str = "cg"
    l2: str | None = None                                    # cp.async's L2 prefetch size


def _buffer_type(value: SSAValue) -> BufferType | None:
    t = value.type
    return t if isinstance(t, BufferType) else None


def _is_shared_array(value: SSAValue) -> bool:
    t = _buffer_type(value)
    return t is not None and t.scope_name in SHARED_SCOPES and \
        isinstance(value.owner, (AllocOp, cuda.SharedAllocOp))


def _copy_of(op: Operation, body: Block) -> _Copy | None:
    """The staged copy ``op`` (a store to a shared array, or a cp.async into one) finishes,
    with the ops that are only its own (the load, the addresses)."""
    if _IS_STORE(op) and _is_shared_array(op.memory):
        return _load_store(op, body)
    if not _IS_PTX(op):
        return None
    if op.ENTRY.name == "st":
        return _ptx_load_store(op, body)
    if op.ENTRY.name in ("cp_async", "cp_async_zfill"):
        addr = _own_address(op.args[0], body)
        if addr is None or not _is_shared_array(addr.memory):
            return None
        mods = op.mods()
        return _Copy([addr, op], addr.memory, addr.index, int(mods["cp_size"]),
                     src_address=op.args[1], extra=list(op.args[2:]), cache=str(mods["cache"]),
                     l2=None if mods.get("l2") is None else str(mods["l2"]))
    return None


def _sole_use(value: SSAValue, user: Operation) -> bool:
    return [u.operation for u in value.uses] == [user]


def _own_address(value: SSAValue, body: Block) -> cuda.AddressOp | None:
    addr = value.owner
    if isinstance(addr, cuda.AddressOp) and addr.parent_block() is body and \
            len(list(addr.result.uses)) == 1:
        return addr
    return None


def _is_global(value: SSAValue) -> bool:
    t = _buffer_type(value)
    return t is not None and t.scope_name == GLOBAL


def _sized(size: int) -> str | None:
    """The cp.async cache operator of a ``size``-byte copy (None: no cp.async moves it)."""
    return None if size not in CP_ASYNC_BYTES else "cg" if size == 16 else "ca"


def _load_store(store: cuda.StoreOp, body: Block) -> _Copy | None:
    load = store.value.owner
    if not isinstance(load, cuda.LoadOp) or load.parent_block() is not body or \
            not _sole_use(store.value, store) or not _is_global(load.memory) or load.properties:
        return None
    t = store.value.type
    lanes = t.get_shape()[0] if isinstance(t, VectorType) else 1
    elem = t.element_type if isinstance(t, VectorType) else t
    size = lanes * dtypes.bit_width(elem) // 8
    cache = _sized(size)
    if cache is None:
        return None
    return _Copy([load, store], store.memory, store.index, size, load.memory, load.index,
                 cache=cache)


def _ptx_load_store(st: PtxOp, body: Block) -> _Copy | None:
    """``ptx.ld`` of global memory whose registers only feed, in order, a ``ptx.st`` to a
    shared array (the form of vectorised copies)."""
    smods = st.mods()
    if smods.get("space") not in SHARED_SPACES or smods.get("sem") or smods.get("scope"):
        return None
    saddr = _own_address(st.args[0], body)
    values = list(st.args[1:])
    ld = values[0].owner if values else None
    if saddr is None or not _is_shared_array(saddr.memory) or not isinstance(ld, PtxOp) or \
            ld.ENTRY.name != "ld" or ld.parent_block() is not body or \
            list(ld.results) != values or not all(_sole_use(v, st) for v in values):
        return None
    lmods = ld.mods()
    gaddr = _own_address(ld.args[0], body)
    if gaddr is None or not _is_global(gaddr.memory) or lmods.get("space") != "global" or \
            lmods.get("sem") or lmods.get("scope") or lmods.get("l1") or lmods.get("l2"):
        return None
    size = len(values) * forms.PTX_REG_WIDTH[str(lmods["type"])] // 8
    cache = _sized(size)
    if cache is None:
        return None
    return _Copy([gaddr, ld, saddr, st], saddr.memory, saddr.index, size, gaddr.memory,
                 gaddr.index, cache=cache)


@dataclass
class _Plan:
    loop: scf.ForOp
    lb: int
    ub: int
    step: int
    trip: int
    copies: list[_Copy]
    arrays: list[SSAValue]
    slice_ops: list[Operation]
    edge_ops: list[Operation]


_PURE = (arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.DivUIOp,
         arith.RemUIOp, arith.DivSIOp, arith.RemSIOp, arith.FloorDivSIOp, arith.AndIOp,
         arith.OrIOp, arith.XOrIOp, arith.ShLIOp, arith.ShRUIOp, arith.IndexCastOp,
         arith.CmpiOp, arith.SelectOp, arith.MinUIOp, arith.MaxUIOp, arith.MinSIOp,
         arith.MaxSIOp, arith.TruncIOp,
         arith.ExtUIOp, arith.ExtSIOp, cuda.AddressOp, cuda.ThreadIdxOp, cuda.BlockIdxOp)
"""Ops a copy's address may be computed by in the loop body (cloned for the stages ahead):
no effects; the thread and block ids are loop-invariant reads that ``cse`` leaves in the body
when no equal op precedes the loop."""
_IS_PURE = IsInstance(*_PURE)
_IS_STORE = IsInstance(cuda.StoreOp)
_IS_PTX = IsInstance(PtxOp)
_IS_SYNC = IsInstance(cuda.SyncThreadsOp)
_IS_YIELD = IsInstance(scf.YieldOp)
"""The class tests of every body op `_plan` reads, answered once per class (`IsInstance`:
not an ABC ``isinstance`` per op and class)."""


def _plan(loop: scf.ForOp) -> _Plan | None:
    lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
    if not all(isinstance(v, int) for v in (lb, ub, step)) or step <= 0 or lb < 0 or lb % step:
        return None
    trip = -(-(ub - lb) // step)
    body = loop.body.block
    copies = [c for c in (_copy_of(op, body) for op in body.ops) if c is not None]
    if trip < 2 or not copies:
        return None
    arrays = list(dict.fromkeys(c.dst for c in copies))
    for x in arrays:
        for use in x.uses:
            user = use.operation
            inside = user is not loop and loop.is_ancestor(user)
            if not isinstance(user, _ACCESS) or use.index != 0 or not inside:
                return None
    slice_ops = _backward_slice(copies, body)
    if slice_ops is None:
        return None
    edges = _edge_ops(body, copies, slice_ops)
    if edges is None:
        return None
    return _Plan(loop, lb, ub, step, trip, copies, arrays, slice_ops, edges)


def _is_async_sync(op: Operation) -> bool:
    return _IS_SYNC(op) or _IS_PTX(op) and op.ENTRY.name in ASYNC_GROUP_ROWS


def _edge_ops(body: Block, copies: list[_Copy], slice_ops: list[Operation]
              ) -> list[Operation] | None:
    """The barriers and cp.async commit/waits at the start and end of the consumer (the body
    without the copies), with only pure ops around them: they ordered the copies against the
    consumer, which the pipeline's one wait and barrier per iteration now do. None when a
    cp.async commit/wait or a cp.async is left inside the consumer (its group counting would
    mix with the pipeline's)."""
    own = {o for c in copies for o in c.ops}
    consumer = [o for o in body.ops if o not in own and not _IS_YIELD(o)]
    edges: list[Operation] = []
    for seq in (consumer, consumer[::-1]):
        for o in seq:
            if _is_async_sync(o):
                edges.append(o)
            elif not _IS_PURE(o):
                break
    rest = [o for o in consumer if o not in edges]
    inner = [o for top in rest for o in walk_ops(top)]
    if any(_IS_PTX(o) and (o.ENTRY.name in ASYNC_GROUP_ROWS or
                                     o.ENTRY.name.startswith("cp_async")) for o in inner):
        return None
    return list(dict.fromkeys(edges))


def _backward_slice(copies: list[_Copy], body: Block) -> list[Operation] | None:
    """The body ops the copies' operands are computed by (pure ops only), in body order."""
    seen: set[Operation] = set()
    work = [v for c in copies for v in _copy_inputs(c)]
    while work:
        v = work.pop()
        owner = v.owner
        if not isinstance(owner, Operation) or owner.parent_block() is not body or owner in seen:
            continue
        if not _IS_PURE(owner):
            return None
        seen.add(owner)
        work.extend(owner.operands)
    return [op for op in body.ops if op in seen]


def _copy_inputs(c: _Copy) -> list[SSAValue]:
    vals = [c.index, *c.extra]
    vals += [c.src_index] if c.src_index is not None else [c.src_address]
    return [v for v in vals if v is not None]


# --- the rewrite ----------------------------------------------------------------------------


def _const(rw_insert, value: int) -> SSAValue:
    return rw_insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def _stage_elements(x: SSAValue) -> int:
    """One stage of the ring of ``x``: its elements, rounded up to 16 bytes."""
    t = _buffer_type(x)
    elem_bytes = dtypes.bit_width(t.element_type) // 8
    return t.numel + (-t.numel * elem_bytes) % 16 // elem_bytes


def _check_static_limit(kernel, plan: _Plan, stages: int) -> None:
    """The rings must fit the target's shared memory per block with the kernel's other shared
    arrays (all of them become views of the dynamic arena in cuda-allocate-shared, which checks
    the final, reused layout; this is the early check with the stages as its cause): else a
    located error, fewer stages or smaller tiles."""
    arrays = [op for op in walk_ops(kernel) if isinstance(op, cuda.SharedAllocOp) or
              (isinstance(op, AllocOp) and op.result.type.scope_name == SHARED)]
    total = 0
    for op in arrays:
        t = op.results[0].type
        elems = stages * _stage_elements(op.results[0]) if op.results[0] in plan.arrays \
            else t.numel
        total += elems * dtypes.bit_width(t.element_type) // 8
    limit = checks.max_shared_bytes(kernel) or STATIC_SHARED_LIMIT
    if total > limit:
        raise PassError(f"a {stages}-stage ring of this loop's shared tiles takes {total} bytes "
                        f"of shared memory with the kernel's other arrays, more than the {limit} "
                        f"a block may use on its target", plan.loop, code="CUDA-PIPELINE",
                        hint="use fewer stages (num_stages) or smaller tiles")


def _ring(rewriter: Rewriter, x: SSAValue, stages: int) -> tuple[SSAValue, int]:
    """Replace shared array ``x`` by a ring of ``stages`` copies (a 1-D array); returns it and
    the stage size in elements (`_stage_elements`)."""
    t = _buffer_type(x)
    span = _stage_elements(x)
    ring_type = BufferType((stages * span,), t.element_type, t.scope_name)
    old = x.owner
    new = AllocOp(ring_type) if isinstance(old, AllocOp) else \
        cuda.SharedAllocOp(result_types=[ring_type],
                           **({"align": old.align} if old.align is not None else {}))
    rewriter.insert_op(new, InsertPoint.before(old))
    return new.results[0], span


def _emit_copies(b_insert, plan: _Plan, iv: SSAValue, stage_offsets: dict[SSAValue, SSAValue],
                 rings: dict[SSAValue, SSAValue]) -> None:
    """Clone the copies' address arithmetic with ``iv`` for the loop variable and issue them as
    cp.async into the rings at ``stage_offsets``."""
    mapping: dict[SSAValue, SSAValue] = {plan.loop.body.block.args[0]: iv}
    for op in plan.slice_ops:
        clone = op.clone(value_mapper=mapping)
        b_insert(clone)
        for old, new in zip(op.results, clone.results):
            mapping[old] = new
    get = lambda v: mapping.get(v, v)  # noqa: E731
    for c in plan.copies:
        index = b_insert(arith.AddiOp(get(c.index), stage_offsets[c.dst])).result
        dst = b_insert(cuda.AddressOp(rings[c.dst], index, result_types=[I32])).result
        src = get(c.src_address) if c.src_address is not None else \
            b_insert(cuda.AddressOp(c.src_buffer, get(c.src_index), result_types=[I64])).result
        row = "cp_async_zfill" if c.extra else "cp_async"
        b_insert(ptx(row, [dst, src, *map(get, c.extra)], cache=c.cache, space="shared",
                     cp_size=c.bytes, l2=c.l2))


def _pipeline(plan: _Plan, stages: int) -> None:
    rewriter = Rewriter()
    loop, body = plan.loop, plan.loop.body.block
    # reported: the loop itself (marked not to unroll; its body, where the new ops go, is
    # walked), its block (the prologue before it, the final wait after it), each replaced array
    # (its block, where the ring is allocated) and each op rewired to a ring or erased below;
    # the body's other ops are as they were
    changes = current_changes()
    changes.changed(loop, inside=False)
    for x in plan.arrays:
        changes.removed(x.owner)
    before = lambda op: rewriter.insert_op(op, InsertPoint.before(loop)) or op  # noqa: E731
    rings, spans = {}, {}
    for x in plan.arrays:
        rings[x], spans[x] = _ring(rewriter, x, stages)
    # prologue: S - 1 groups, empty ones past the trip count (the loop's wait_group S-2
    # counts on them: with fewer, iteration 0's wait left stage 0 in flight)
    for s in range(stages - 1):
        if s < plan.trip:
            iv = _const(before, plan.lb + s * plan.step)
            offsets = {x: _const(before, s * spans[x]) for x in plan.arrays}
            _emit_copies(before, plan, iv, offsets, rings)
        before(ptx("cp_async_commit_group", []))
    # steady state: wait, barrier, issue ahead, commit
    first = body.first_op
    assert first is not None
    top = lambda op: rewriter.insert_op(op, InsertPoint.before(first)) or op  # noqa: E731
    iv = body.args[0]
    # stage of iteration i = (k - lb) / step: (k / step + S - (lb / step) % S) % S, all
    # unsigned arithmetic on non-negative values (the printers divide only such)
    q = top(arith.DivUIOp(iv, _const(top, plan.step))).result
    t = top(arith.AddiOp(q, _const(top, stages - (plan.lb // plan.step) % stages))).result
    cons = top(arith.RemUIOp(t, _const(top, stages))).result
    prod = top(arith.RemUIOp(top(arith.AddiOp(t, _const(top, stages - 1))).result,
                             _const(top, stages))).result
    top(ptx("cp_async_wait_group", [], n=stages - 2))
    top(cuda.SyncThreadsOp())
    ahead = top(arith.AddiOp(iv, _const(top, (stages - 1) * plan.step))).result
    more = top(arith.CmpiOp(ahead, _const(top, plan.ub), "ult")).result
    guarded = scf.IfOp(more, [], [Block()])
    top(guarded)
    then = guarded.true_region.block
    inside = lambda op: then.add_op(op) or op  # noqa: E731
    offsets = {x: inside(arith.MuliOp(prod, _const(inside, spans[x]))).result
               for x in plan.arrays}
    _emit_copies(inside, plan, ahead, offsets, rings)
    then.add_op(scf.YieldOp())
    top(ptx("cp_async_commit_group", []))
    # the consumer reads stage i % S
    for x in plan.arrays:
        off = top(arith.MuliOp(cons, _const(top, spans[x]))).result
        for use in list(x.uses):
            user = use.operation
            if any(user in c.ops for c in plan.copies):
                continue
            idx = arith.AddiOp(user.operands[1], off)
            rewriter.insert_op(idx, InsertPoint.before(user))
            user.operands[1] = idx.result
            user.operands[0] = rings[x]
            changes.changed(user)
    for c in plan.copies:
        for op in reversed(c.ops):
            changes.removed(op)
            rewriter.erase_op(op, safe_erase=False)
    for edge in plan.edge_ops:
        changes.removed(edge)
        rewriter.erase_op(edge)
    _drop_dead(body, plan.slice_ops)
    rewriter.insert_op(ptx("cp_async_wait_group", [], n=0), InsertPoint.after(loop))
    mark_nounroll(loop)
    for x in plan.arrays:
        rewriter.erase_op(x.owner)


def _drop_dead(body: Block, ops: list[Operation]) -> None:
    for op in reversed(ops):
        if op.parent_block() is body and all(not list(r.uses) for r in op.results):
            current_changes().removed(op)
            op.detach()
            op.erase()


@dataclass(frozen=True)
class PipelineKLoopPass(ModulePass):
    """Multi-stage cp.async software pipelining of shared-memory-staged loops."""

    name = "cuda-pipeline-k-loop"
    REPORTS_CHANGES = True  # each pipelined loop and the arrays it rings (`_pipeline`)

    num_stages: int = 3

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.num_stages < 2:
            raise PassError(f"cuda-pipeline-k-loop needs num_stages >= 2 (got "
                            f"{self.num_stages}); leave the pass out for no pipelining", op,
                            code="CUDA-PIPELINE")
        for kernel in kernels(op):
            loops = find_ops(kernel, _IS_FOR)
            for loop in loops:
                plan = _plan(loop)
                if plan is not None:
                    _check_static_limit(kernel, plan, self.num_stages)
                    _pipeline(plan, self.num_stages)
