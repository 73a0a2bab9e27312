"""``cuda-split-roles``: a K loop that keeps a wgmma group in flight gets one loop per role, the
consumers' inside a single ``scf.if``, as CUTLASS's warp-specialised kernels branch on the
warpgroup's role once, around the mainloop.

Dispatch lowers each tile op of a ring's K loop in place: every iteration holds the producer's
``scf.if`` (wait until a stage is empty, issue the TMA) and the consumers' (wait until it is
full, wgmma, release). With one wgmma group in flight across iterations
(dispatch/wgmma_in_flight.py) the group crosses the edge of the consumers' ``scf.if`` at every
iteration, and ptxas answers with a warpgroup wait in the divergent path that serialises the
wgmmas (advisory C7518). This pass rewrites a loop dispatch tagged ``cuda.split_roles``::

    scf.for %k { pure; scf.if %p {producer}; scf.if %c {consumer} }   // %c: "cuda.role"
    scf.if %c' {drain}                                                // "cuda.role" = "drain"

into::

    scf.if %c {                                 // %c's definition cloned before the loop
      scf.for %k { pure; consumer }  drain      // the consumer's and the drain's bodies inlined
    } else {
      scf.for %k { pure; scf.if %p {producer} }
    }

It keeps the meaning when no thread runs both roles (dispatch tags only CTAs whose producer has
a warpgroup of its own, and the drain's condition is the consumer's): each thread runs the same
operations in the same order; only the two roles no longer step through the loop together (on
the GPU warps never did; the SIMT interpreter runs the two branches as groups it interleaves).
A tagged loop it cannot split (another kind of op at its top level, a condition that depends on
the iteration, no drain after it past pure ops, a drain whose condition is not the consumers'
value or the same pure computation of it) is left as it is, untagged.

A loop of rings whose body also holds the consumers' register code (dispatch/ring_loop_roles.py: a
flash-attention loop's softmax between its GEMMs) is tagged with each role's ``scf.if``
(``cuda.role`` = ``"producer"`` on the ring copies', ``"consumer"`` on the GEMMs'), and a drain
after it when one GEMM's wait is deferred to the next one's. It splits the same way, every
consumer ``scf.if`` inlined into the consumers' loop, the register code kept there only (and the
pure ops that use its values), the producers' ``scf.if`` kept in theirs only, the other pure ops
in both, the drain (if any) after the consumers' loop::

    scf.for %k { pure; scf.if %p {producer}; scf.if %c {gemm}; registers; scf.if %c {gemm} }
      ->  scf.if %c { scf.for %k { pure; gemm; registers; gemm } }
          else      { scf.for %k { pure; scf.if %p {producer} } }

*Register code* is what reads and writes only the thread's own registers and its warp's
(`register_code`: ``cuda.load``/``cuda.store`` of ``local`` arrays, ``cuda.shfl_sync``, pure
ops, ``scf.for``/``scf.if`` of those): no barrier, no shared or global memory, so the producer
neither waits for it nor reads what it writes (dispatch tags only loops whose register tiles the
consumer warpgroups alone hold). Anything else at the top level keeps the loop whole.

The new ``scf.if`` carries ``cuda.role_split`` (`ROLE_SPLIT`), which ``cuda-set-max-nreg`` reads
(to re-balance registers between the roles) and removes.

Runs on CUDA-level IR right after dispatch's cleanup (before shared-memory planning and the
index passes, which then see the two loops). It reports what it changes (``REPORTS_CHANGES``,
`tirx_mlir.changes`): a tag dropped (the op's own attribute), an op moved before the loop, the
loop replaced (its block, where the hoisted condition and the new ``scf.if`` are found) and the
drain taken out of it; a kernel without tagged loops is left as it was, and the verification
after the pass then visits nothing.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp, StringAttr, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.cuda.warp import ShflSyncOp
from tirx_mlir.backends.cuda.dispatch.ring_loop_roles import PRODUCER_ROLE
from tirx_mlir.backends.cuda.dispatch.tma_ring import pure_loop_op
from tirx_mlir.backends.cuda.dispatch.wgmma_in_flight import (CONSUMER_ROLE, DRAIN_ROLE, ROLE,
                                                              SPLIT)
from tirx_mlir.backends.cuda.memory import LOCAL
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.changes import current_changes
from tirx_mlir.type_tests import IsInstance, find_ops

_IS_FOR = IsInstance(scf.ForOp)

ROLE_SPLIT = "cuda.role_split"
"""The attribute on the ``scf.if`` a split makes (consumers' loop, else the producers'):
``cuda-set-max-nreg`` (set_max_nreg.py) finds the roles by it, and drops it."""


def _role_split(cond: SSAValue, then_block: Block, else_block: Block) -> scf.IfOp:
    """The ``scf.if %c {consumers} else {producers}`` of a split, tagged `ROLE_SPLIT`."""
    split_if = scf.IfOp(cond, [], Region(then_block), Region(else_block))
    split_if.attributes[ROLE_SPLIT] = UnitAttr()
    return split_if


def _role(op: Operation) -> str | None:
    attr = op.attributes.get(ROLE)
    return attr.data if isinstance(attr, StringAttr) else None


def _hoistable(value: SSAValue, loop: scf.ForOp, seen: list[Operation]) -> bool:
    """Whether ``value`` is defined outside ``loop`` or by pure, region-free ops of its body
    that do not depend on the iteration; those ops are appended to ``seen`` (defs first)."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return owner is not loop.body.block
    if owner.parent_block() is not loop.body.block:
        return True
    if owner in seen:
        return True
    if not pure_loop_op(owner):
        return False
    if not all(_hoistable(v, loop, seen) for v in owner.operands):
        return False
    seen.append(owner)
    return True


def _same_value(a: SSAValue, b: SSAValue, depth: int = 0) -> bool:
    """Whether ``a`` and ``b`` are one value: the same SSA value, or results of the same position
    of two pure, region-free ops of one name, attributes and result types over the same values
    (what cse would merge; a few levels deep, as dispatch recomputes a condition from thread
    ids)."""
    if a is b:
        return True
    x, y = a.owner, b.owner
    if depth > 8 or not isinstance(x, Operation) or not isinstance(y, Operation):
        return False
    return (x.name == y.name and a.index == b.index and pure_loop_op(x) and pure_loop_op(y)
            and x.properties == y.properties and x.attributes == y.attributes
            and x.result_types == y.result_types
            and len(x.operands) == len(y.operands)
            and all(_same_value(u, v, depth + 1) for u, v in zip(x.operands, y.operands)))


def _splittable(loop: scf.ForOp) -> tuple[scf.IfOp, scf.IfOp] | None:
    """(the consumer's scf.if in the body, the drain after the loop), when the split applies."""
    consumer = None
    for op in loop.body.block.ops:
        if isinstance(op, scf.YieldOp):
            continue
        if isinstance(op, scf.IfOp) and not op.results:
            if _role(op) == CONSUMER_ROLE:
                if consumer is not None or op.false_region.blocks:
                    return None
                consumer = op
            continue
        if not pure_loop_op(op):
            return None
    drain = loop.next_op
    while drain is not None and not isinstance(drain, scf.IfOp) and pure_loop_op(drain):
        drain = drain.next_op  # the drain's condition, computed after the loop
    if consumer is None or loop.results or not isinstance(drain, scf.IfOp) or \
            _role(drain) != DRAIN_ROLE or drain.false_region.blocks or \
            not _same_value(drain.cond, consumer.cond):
        return None  # the drain moves into the consumers' branch: its threads must be theirs
    return consumer, drain


def _inline(rewriter: Rewriter, guard: scf.IfOp) -> None:
    """Replace ``guard`` (no results, no else) by the ops of its then-block."""
    block = guard.true_region.block
    rewriter.erase_op(block.last_op)
    rewriter.inline_block(block, InsertPoint.before(guard))
    rewriter.erase_op(guard)


def register_code(op: Operation) -> bool:
    """Whether ``op`` (and every op in its regions) touches only the thread's registers and
    its warp's (module docstring)."""
    if isinstance(op, (LoadOp, StoreOp)):
        memory = op.memory.type
        return isinstance(memory, BufferType) and memory.scope_name == LOCAL
    if isinstance(op, (scf.ForOp, scf.IfOp, scf.YieldOp)):
        return all(register_code(inner) for region in op.regions for block in region.blocks
                   for inner in block.ops)
    return isinstance(op, ShflSyncOp) or pure_loop_op(op)


def _roles(loop: scf.ForOp) -> tuple[list[scf.IfOp], list[Operation]] | None:
    """A loop with producer-tagged ``scf.if`` (module docstring: register code): (the
    consumers' ``scf.if``, the register code at its top level), when the split applies."""
    consumers: list[scf.IfOp] = []
    registers: list[Operation] = []
    for op in loop.body.block.ops:
        role = _role(op)
        if isinstance(op, scf.YieldOp) or (role == PRODUCER_ROLE and isinstance(op, scf.IfOp)):
            continue
        if role == CONSUMER_ROLE and isinstance(op, scf.IfOp) and not op.results and \
                not op.false_region.blocks:
            consumers.append(op)
        elif pure_loop_op(op):
            continue
        elif register_code(op):
            registers.append(op)
        else:
            return None
    if not consumers or loop.results or \
            not all(_same_value(c.cond, consumers[0].cond) for c in consumers[1:]):
        return None
    return consumers, registers


def _consumers_only(ops: list[Operation], theirs: set[Operation]) -> set[int] | None:
    """The positions in ``ops`` (a loop body) of the consumers' ops ``theirs`` and of the pure
    ops that use their values (the producers' loop drops them all); None when a producer's
    ``scf.if`` uses one (it cannot lose its operand)."""
    dropped: set[Operation] = set()
    for op in ops:
        uses = any(isinstance(v.owner, Operation) and v.owner in dropped
                   for inner in op.walk() for v in inner.operands)
        if op in theirs or (uses and pure_loop_op(op)):
            dropped.add(op)
        elif uses:
            return None
    return {i for i, op in enumerate(ops) if op in dropped}


def _drain_after(loop: scf.ForOp) -> scf.IfOp | None:
    """The drain after a loop of register code (a deferred GEMM's, dispatch/ring_loop_roles.py),
    past pure ops, or None."""
    op = loop.next_op
    while op is not None and not isinstance(op, scf.IfOp) and pure_loop_op(op):
        op = op.next_op
    return op if isinstance(op, scf.IfOp) and _role(op) == DRAIN_ROLE else None


def _split_registers(loop: scf.ForOp) -> bool:
    """Split a loop of rings and register code (module docstring); False when it does not
    apply (the loop is then left whole, untagged)."""
    found = _roles(loop)
    cond_ops: list[Operation] = []
    if found is None or not _hoistable(found[0][0].cond, loop, cond_ops):
        _untag(loop)
        return False
    consumers, registers = found
    ops = list(loop.body.block.ops)
    mine_only = _consumers_only(ops, {*consumers, *registers})
    drain = _drain_after(loop)
    if mine_only is None or (drain is not None and (
            drain.false_region.blocks or not _same_value(drain.cond, consumers[0].cond))):
        _untag(loop)
        return False
    rewriter = Rewriter()
    log = current_changes()
    if drain is not None:
        while loop.next_op is not drain:  # pure, independent of the loop (it has no results)
            between = loop.next_op
            between.detach()
            rewriter.insert_op(between, InsertPoint.before(loop))
            log.changed(between)
    mapper: dict[SSAValue, SSAValue] = {}
    for op in cond_ops:
        rewriter.insert_op(op.clone(value_mapper=mapper), InsertPoint.before(loop))
    cond = mapper.get(consumers[0].cond, consumers[0].cond)
    theirs_only = {i for i, op in enumerate(ops) if _role(op) == PRODUCER_ROLE}
    mine, theirs = loop.clone(), loop.clone()
    for i, op in enumerate(list(mine.body.block.ops)):
        if i in theirs_only:
            rewriter.erase_op(op)
        elif _role(op) == CONSUMER_ROLE:
            _inline(rewriter, op)
    for i, op in reversed(list(enumerate(theirs.body.block.ops))):
        if i in mine_only:  # erased last first: register code may use an earlier one's values
            rewriter.erase_op(op)
    for op in (*mine.walk(), *theirs.walk()):
        if _role(op) is not None:
            del op.attributes[ROLE]
    then_block, else_block = Block(), Block()
    then_block.add_op(mine)
    else_block.add_op(theirs)
    if drain is not None:
        log.removed(drain)
        drain.detach()
        then_block.add_op(drain)
        _inline(rewriter, drain)
    then_block.add_op(scf.YieldOp())
    else_block.add_op(scf.YieldOp())
    log.removed(loop)
    rewriter.replace_op(loop, _role_split(cond, then_block, else_block), [])
    return True


def split(loop: scf.ForOp) -> bool:
    """Split one tagged loop (module docstring); False when it does not apply."""
    del loop.attributes[SPLIT]
    log = current_changes()
    log.changed(loop, inside=False)  # its own attribute (the loop is replaced below if split)
    if any(_role(op) == PRODUCER_ROLE for op in loop.body.block.ops):
        return _split_registers(loop)
    found = _splittable(loop)
    cond_ops: list[Operation] = []
    if found is None or not _hoistable(found[0].cond, loop, cond_ops):
        _untag(loop)
        return False
    consumer, drain = found
    rewriter = Rewriter()
    while loop.next_op is not drain:  # pure, independent of the loop (it has no results)
        between = loop.next_op
        between.detach()
        rewriter.insert_op(between, InsertPoint.before(loop))
        log.changed(between)  # moved: its place, and its users' dominance
    mapper: dict[SSAValue, SSAValue] = {}
    for op in cond_ops:
        rewriter.insert_op(op.clone(value_mapper=mapper), InsertPoint.before(loop))
    cond = mapper.get(consumer.cond, consumer.cond)
    index = list(loop.body.block.ops).index(consumer)

    mine, theirs = loop.clone(), loop.clone()
    for i, op in enumerate(list(mine.body.block.ops)):  # the consumers: their code only
        if i == index:
            _inline(rewriter, op)
        elif isinstance(op, scf.IfOp):
            rewriter.erase_op(op)
    rewriter.erase_op(list(theirs.body.block.ops)[index])  # the others: all but theirs
    then_block, else_block = Block(), Block()
    then_block.add_op(mine)
    else_block.add_op(theirs)
    log.removed(drain)  # taken into the new scf.if (checked whole: a new region op)
    drain.detach()
    then_block.add_op(drain)
    _inline(rewriter, drain)
    then_block.add_op(scf.YieldOp())
    else_block.add_op(scf.YieldOp())
    log.removed(loop)  # its block: the hoisted condition and the new scf.if are found there
    rewriter.replace_op(loop, _role_split(cond, then_block, else_block), [])
    return True


def _untag(loop: scf.ForOp) -> None:
    """Drop the role tags of a loop left whole: its consumers' ``scf.if`` and the drain after it
    (the tags are this pass's input only; nothing after it reads them)."""
    ops = list(loop.body.block.ops)
    op = loop.next_op
    while op is not None and _role(op) != DRAIN_ROLE and not isinstance(op, scf.IfOp):
        op = op.next_op
    if op is not None:
        ops.append(op)
    log = current_changes()
    for tagged in ops:
        if _role(tagged) is not None:
            del tagged.attributes[ROLE]
            log.changed(tagged, inside=False)


class CudaSplitRolesPass(ModulePass):
    """Give each role of a tagged K loop its own loop (module docstring)."""

    name = "cuda-split-roles"
    REPORTS_CHANGES = True  # each tag dropped, op moved and loop replaced (module docstring)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for loop in [o for o in find_ops(op, _IS_FOR) if SPLIT in o.attributes]:
            split(loop)
