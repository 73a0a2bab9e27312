"""``cuda-hoist-invariants``: loop-invariant index arithmetic computed once, before its loop.

Dispatch builds every address where it is used: a pipelined K loop's prefetch (under the
``scf.if`` of its last stages) recomputes each thread's swizzled shared offsets and global
offsets every iteration, though only the K offset changes. xDSL's ``licm`` moves invariant ops
of a loop body's top level only; ptxas does not move them out of the branch either. This pass
moves an integer ``arith`` op out of the ``scf.for`` around it when none of its operands is
defined inside that loop, from any depth of the body (``scf.if`` regions included), innermost
loops first, so a chain of invariant ops leaves together.

Moving an op out of an ``scf.if`` makes it run when the branch would not: only ops that cannot
fault move (no division or remainder unless by a non-zero constant), so every value and every
side effect is what it was.

A sum of the loop's values and invariant ones hoists only as far as its association allows:
``((k + a) + b) + c`` keeps ``a``, ``b`` and ``c`` live across the loop and adds all three
every iteration. After a first hoisting, `reassociate_in` regroups such a sum as ``(k + (a +
b)) + c`` for invariant ``a``, ``b`` and a constant ``c`` (LLVM's Reassociate ranks operands
the same way for LICM), and the invariant part leaves the loop in a second hoisting.

An address of the loop, ``cuda.address %buf, (variant + invariant + c)`` with ``%buf`` and the
invariant terms defined before it, is split by `split_addresses_in` into the invariant
element's address, computed once before the loop, plus the variant part's bytes, plus ``c``'s
bytes (outermost, where an immediate takes it): ``&buf[v + i + c] = &buf[i] + v * size + c *
size`` as integers. A ring slot read through several per-thread offsets is then one add per
address and iteration (ptxas otherwise rebuilds ``base + 2 * offset`` in every iteration:
``LEA`` then ``IMAD`` per ``ldmatrix``), and a global tile's chunks step from one 64-bit
pointer of the iteration.

The pass reports what it changes (`tirx_mlir.changes`): each op it moves (the block it leaves and
the one it enters), replaces or erases, and each address base it adds before a loop.
Whether it states so (``REPORTS_CHANGES``): `index_ranges.REPORTS_CUDA_INDEX_CHANGES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tirx_mlir.backends.cuda.dialects.cuda.address import AddressOp
from tirx_mlir.backends.cuda.transforms.index_ranges import (REPORTS_CUDA_INDEX_CHANGES, Range,
                                                           fits_signed, int_bits, value_ranges)
from tirx_mlir.backends.cuda.transforms.narrow_index import NSW
from tirx_mlir.changes import ChangeLog, current_changes
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.kernel import kernels
from tirx_mlir.dialects.tirx.op_build import arith_binary, arith_constant, arith_index_cast
from tirx_mlir.dominance import defined_in
from tirx_mlir.ir_walk import walk_ops, walk_region_ops
from tirx_mlir.ir_insert import InsertBefore, insert_before
from tirx_mlir.ir_uses import erase_op, replace_uses

_MOVABLE = (arith.ConstantOp, arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.AndIOp,
            arith.OrIOp, arith.XOrIOp, arith.ShLIOp, arith.ShRUIOp, arith.ShRSIOp,
            arith.MinSIOp, arith.MaxSIOp, arith.MinUIOp, arith.MaxUIOp, arith.IndexCastOp,
            arith.ExtSIOp, arith.ExtUIOp, arith.TruncIOp, arith.CmpiOp, arith.SelectOp)
_DIVIDING = (arith.DivUIOp, arith.RemUIOp, arith.DivSIOp, arith.RemSIOp)
_MOVABLE_CLASSES = frozenset(_MOVABLE)
_DIVIDING_CLASSES = frozenset(_DIVIDING)
"""The two, matched by exact class (a set lookup per op, not an ABC `isinstance` per class)."""


def movable(op: Operation) -> bool:
    """Pure and unable to fault (a division by a non-zero constant divisor only)."""
    op_class = type(op)
    if op_class in _MOVABLE_CLASSES:
        return True
    if op_class in _DIVIDING_CLASSES:
        d = constant_value(op.operands[1])
        return isinstance(d, int) and d != 0 and not (d == -1 and isinstance(
            op, arith.DivSIOp | arith.RemSIOp))
    return False


def hoist_out_of(loop: scf.ForOp, log: ChangeLog | None = None) -> int:
    """Move ``loop``'s invariant ops before it (program order: a moved op's users are checked
    after it); the number moved. Which values are defined inside is followed along the walk
    (`_values_inside`) instead of asked of each operand (`defined_in`: a walk up its parents)."""
    moved = 0
    log = log or ChangeLog()
    inside: set[int] = set()  # ids of the values defined in ``loop`` and left there
    for op in _values_inside(loop, inside):
        if not movable(op) or any(id(v) in inside for v in op._operands):  # noqa: SLF001
            for result in op.results:
                inside.add(id(result))
            continue
        log.moving(op)  # the same op: its users need only their dominance
        log.removed(op)  # the block it leaves
        op.detach()
        insert_before(op, loop)
        log.changed(op)  # and where it goes
        moved += 1
    return moved


def _values_inside(loop: scf.ForOp, inside: set[int]):
    """``walk_region_ops(loop.body)``, each op given when the values defined before it in
    ``loop`` are in ``inside`` (by ``id``: the walk's list holds every op, so no id is
    reused meanwhile): the block arguments of each block as the walk enters it (the loop's
    own too); the caller adds each op's results unless it moves the op out. An op's operands
    are defined before it in this order (SSA: by an op before it in its block or an
    enclosing one, or as an argument of such a block)."""
    ops = walk_region_ops(loop.body)
    for arg in loop.body.block.args:
        inside.add(id(arg))
    for op in ops:
        yield op
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    inside.add(id(arg))


def _single_use(v: SSAValue) -> Operation | None:
    """The one op reading ``v``, not counting unused ``arith`` ops (the earlier passes leave
    some, e.g. the index casts of narrowed values, until the cleanup); None when there are
    more or none. (The uses by their links: no generator per use.)"""
    found = None
    use = v.first_use
    while use is not None:
        user = use.operation
        if not _dead(user):
            if found is not None:
                return None
            found = user
        use = use._next_use  # noqa: SLF001
    return found


def _dead(op: Operation) -> bool:
    """An ``arith`` op none of whose results has a use."""
    if not op.name.startswith("arith."):
        return False
    for result in op.results:
        if result.first_use is not None:
            return False
    return True


def _terms(add: arith.AddiOp, inside) -> list[SSAValue]:
    """The summands of the tree of ``addi`` ops rooted at ``add``: an operand that is itself
    an ``addi`` of the same block used only here is flattened (``inside`` tells the loop's
    values; invariant operands are leaves)."""
    out = []
    for v in add.operands:
        inner = v.owner
        if isinstance(inner, arith.AddiOp) and inner.parent is add.parent and \
                _single_use(v) and inside(v):
            out += _terms(inner, inside)
        else:
            out.append(v)
    return out


def reassociate_in(loop: scf.ForOp, ranges: dict[SSAValue, Range],
                   log: ChangeLog | None = None) -> int:
    """Regroup every sum of ``loop``'s body that mixes values of the loop with two or more
    invariant ones as ``(variant + invariant) + constant``: the invariant part one value that
    `hoist_out_of` then moves out (one register live across the loop instead of one per term,
    one add per iteration instead of one per term), the constant outermost (where an
    address's immediate takes it). Integer addition is associative, so every value is what it
    was; the new adds carry ``nsw`` when every term is non-negative by its range and the sum
    fits its type (then no partial sum wraps). The number of sums regrouped."""
    inside = partial(defined_in, loop)
    done = 0
    log = log or ChangeLog()
    for op in walk_region_ops(loop.body):
        if type(op) is not arith.AddiOp or op.parent is None or not inside(op.result):
            continue
        user = _single_use(op.result)
        if isinstance(user, arith.AddiOp) and user.parent is op.parent:
            continue  # not a root: its root regroups it
        terms = _terms(op, inside)
        consts = [t for t in terms if isinstance(constant_value(t), int)]
        invariant = [t for t in terms if t not in consts and not inside(t)]
        variant = [t for t in terms if t not in consts and inside(t)]
        if len(invariant) < 2 or not variant:
            continue
        r = ranges.get(op.result)
        nsw = r is not None and fits_signed(r, int_bits(op.result.type) or 64) and all(
            (tr := ranges.get(t)) is not None and tr.nonneg for t in terms)
        flags = NSW if nsw else None
        b = InsertBefore(op)

        def total(values: list[SSAValue]) -> SSAValue:
            acc = values[0]
            for v in values[1:]:
                acc = b.insert(arith_binary(arith.AddiOp, acc, v, flags)).result
            return acc

        new = total([total(variant), total(invariant), *consts])
        new.name_hint = op.result.name_hint
        log.removed(op)  # its block (where the new sum went) and its users
        replace_uses(op.result, new)
        _erase_tree(op, log)
        done += 1
    return done


def _erase_tree(add: arith.AddiOp, log: ChangeLog) -> None:
    inner = {v.owner for v in add.operands if isinstance(v.owner, arith.AddiOp) and
             v.owner.parent is add.parent}
    log.removed(add)
    erase_op(add)
    for op in inner:
        if all(_dead(u.operation) for u in op.result.uses):  # the regrouped sum's part
            for use in list(op.result.uses):
                log.removed(use.operation)
                erase_op(use.operation)
            _erase_tree(op, log)


def _index_terms(index: SSAValue, inside) -> list[SSAValue] | None:
    """The summands of the index (through an index cast): its tree of ``addi`` ops of the loop
    flattened (shared ones too: only read), None when it is no sum."""
    v = index
    if isinstance(v.owner, arith.IndexCastOp):
        v = v.owner.input
    if not isinstance(v.owner, arith.AddiOp):
        return None
    out, work = [], [v]
    while work:
        t = work.pop()
        add = t.owner
        if isinstance(add, arith.AddiOp) and (inside(t) or any(
                isinstance(constant_value(x), int) for x in add.operands)):
            work += reversed(add.operands)  # the loop's sums; an invariant one's constant
        else:
            out.append(t)
    return out


def split_addresses_in(loop: scf.ForOp, ranges: dict[SSAValue, Range],
                       log: ChangeLog | None = None) -> int:
    """Split every address of ``loop``'s body into its invariant part's address (before the
    loop) plus the bytes of the rest (module docstring); the number split."""
    inside = partial(defined_in, loop)
    done = 0
    log = log or ChangeLog()
    bases: dict[tuple, SSAValue] = {}
    order: dict[SSAValue, int] = {}
    for op in walk_region_ops(loop.body):
        if type(op) is not AddressOp or inside(op.memory):
            continue
        terms = _index_terms(op.index, inside)
        if terms is None:
            continue
        consts = [t for t in terms if isinstance(constant_value(t), int)]
        invariant = [t for t in terms if t not in consts and not inside(t)]
        variant = [t for t in terms if t not in consts and inside(t)]
        if not invariant or not variant:
            continue
        size = dtypes.bit_width(op.memory.type.element_type) // 8
        result_type = op.result.type
        assert isinstance(result_type, IntegerType)
        if len(invariant) > 1:  # one base for every order the sums were built in
            order = order or _definition_order(loop)
            invariant.sort(key=order.__getitem__)  # by the IR, not by addresses: same output
        key = (op.memory, tuple(invariant), result_type)
        base = bases.get(key)
        if base is None:
            pre = InsertBefore(loop)
            base_index = _sum(pre, invariant)
            if base_index.type != IndexType():
                base_index = pre.insert(arith_index_cast(base_index, IndexType())).result
            base = bases[key] = pre.insert(AddressOp(op.memory, base_index,
                                                     result_types=[result_type])).result
            log.changed(base.owner)  # new, before the loop: its block
        b = InsertBefore(op)
        offset = _as_int(b, _sum(b, variant), result_type, _nonneg_sum(variant, ranges))
        if size != 1:
            offset = b.insert(arith_binary(arith.MuliOp, offset,
                                           _int(b, size, result_type))).result
        addr = b.insert(arith_binary(arith.AddiOp, base, offset)).result
        c = sum(constant_value(t) for t in consts)
        if c:
            addr = b.insert(arith_binary(arith.AddiOp, addr,
                                         _int(b, c * size, result_type))).result
        addr.name_hint = op.result.name_hint
        log.removed(op)  # its block (where the new ops went) and its users
        replace_uses(op.result, addr)
        erase_op(op)
        done += 1
    return done


def _definition_order(loop: scf.ForOp) -> dict[SSAValue, int]:
    """Every value of the IR around ``loop`` numbered in the order it is defined (a walk)."""
    top: Operation = loop
    while (parent := top.parent_op()) is not None:
        top = parent
    order: dict[SSAValue, int] = {}
    for op in walk_ops(top):
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    order[arg] = len(order)
        for result in op.results:
            order[result] = len(order)
    return order


def _sum(b: InsertBefore, values: list[SSAValue]) -> SSAValue:
    acc = values[0]
    for v in values[1:]:
        acc = b.insert(arith_binary(arith.AddiOp, acc, v)).result
    return acc


def _int(b: InsertBefore, value: int, t: IntegerType) -> SSAValue:
    return b.insert(arith_constant(value, t)).result


def _nonneg_sum(terms: list[SSAValue], ranges: dict[SSAValue, Range]) -> bool:
    """Every term is non-negative by its range and so is their sum in its type (no wrap)."""
    got = [ranges.get(t) for t in terms]
    if not all(r is not None and r.nonneg for r in got):
        return False
    return sum(r.hi for r in got) < 1 << ((int_bits(terms[0].type) or 64) - 1)


def _as_int(b: InsertBefore, v: SSAValue, t: IntegerType, nonneg: bool) -> SSAValue:
    """``v`` (an index or a narrower integer, signed as index casts are) as a ``t``; widened
    with zeros when it is ``nonneg`` (the same value; ptxas then multiplies with
    ``IMAD.WIDE.U32`` instead of shifting the sign into the high word)."""
    if v.type == t:
        return v
    if isinstance(v.type, IndexType):
        return b.insert(arith_index_cast(v, t)).result
    assert isinstance(v.type, IntegerType)
    if v.type.width.data < t.width.data:
        widen = arith.ExtUIOp if nonneg else arith.ExtSIOp
        return b.insert(widen(v, t)).result
    return b.insert(arith.TruncIOp(v, t)).result


@dataclass(frozen=True)
class CudaHoistInvariantsPass(ModulePass):
    """Loop-invariant integer arithmetic moved before its loop, from any depth of the body."""

    name = "cuda-hoist-invariants"
    REPORTS_CHANGES = REPORTS_CUDA_INDEX_CHANGES  # what it reports: the module docstring

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        log = current_changes()
        for kernel in kernels(op):
            ranges = value_ranges(kernel)
            loops = [o for o in walk_ops(kernel) if isinstance(o, scf.ForOp)]
            for loop in reversed(loops):  # innermost first: pre-order, reversed
                hoist_out_of(loop, log)
                if reassociate_in(loop, ranges, log):
                    hoist_out_of(loop, log)  # the regrouped invariant sums
                split_addresses_in(loop, ranges, log)
