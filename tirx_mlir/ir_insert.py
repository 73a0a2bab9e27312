"""Inserting a new op next to another without xDSL's builder: `InsertBefore`, `insert_before`,
`insert_after`, `insert_at_start`, `insert_at_end`; a builder that links what it inserts the same
way, `LinkingBuilder`, and one that also builds each constant once per insertion point,
`SharingBuilder` (with `insert_pure` for its equal arithmetic); moving a block's ops before an
op in one splice, `move_ops_before`.

``Builder(InsertPoint.before(op)).insert(new)`` costs about 4 us an op at a loop depth of three
on this machine (the builder and insertion point made, the implicit-builder check, and
`Block._attach_op`'s walk up every ancestor to check that ``new`` does not contain the block), of
which linking ``new`` into the block's list is 0.2 us. The cuda index passes insert thousands
of ops on a GEMM. An op without regions contains no block, so that walk cannot fail for it;
these helpers link such an op where xDSL's insertion would put it (the same place, the same
links and parent) and leave an op with regions, or one already in a block, to xDSL's
``Rewriter.insert_op`` (which checks and raises as it always does). Nobody is told of the
insertion: they are for passes that insert without a rewriter listener.
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.builder import Builder, _current_builder
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.type_tests import IsInstance

OpT = TypeVar("OpT", bound=Operation)


def insert_before(new: OpT, anchor: Operation) -> OpT:
    """``Rewriter.insert_op(new, InsertPoint.before(anchor))``; ``new``."""
    block = anchor.parent
    if new.regions or new.parent is not None or block is None:
        Rewriter.insert_op(new, InsertPoint.before(anchor))
        return new
    new.parent = block
    prev = anchor._prev_op  # noqa: SLF001 - `Operation._insert_prev_op`'s links
    if prev is None:
        block._first_op = new  # noqa: SLF001
    else:
        prev._next_op = new  # noqa: SLF001
    new._prev_op, new._next_op = prev, anchor  # noqa: SLF001
    anchor._prev_op = new  # noqa: SLF001
    return new


def insert_after(new: OpT, anchor: Operation) -> OpT:
    """``Rewriter.insert_op(new, InsertPoint.after(anchor))``; ``new``."""
    following = anchor._next_op  # noqa: SLF001
    if following is not None:
        return insert_before(new, following)
    block = anchor.parent
    if new.regions or new.parent is not None or block is None:
        Rewriter.insert_op(new, InsertPoint.after(anchor))
        return new
    new.parent = block
    anchor._next_op = new  # noqa: SLF001
    new._prev_op, new._next_op = anchor, None  # noqa: SLF001
    block._last_op = new  # noqa: SLF001
    return new


def insert_at_start(new: OpT, block: Block) -> OpT:
    """``Rewriter.insert_op(new, InsertPoint.at_start(block))``; ``new``."""
    first = block._first_op  # noqa: SLF001
    if first is not None:
        return insert_before(new, first)
    Rewriter.insert_op(new, InsertPoint.at_start(block))
    return new


def insert_at_end(new: OpT, block: Block) -> OpT:
    """``Rewriter.insert_op(new, InsertPoint.at_end(block))``; ``new``."""
    last = block._last_op  # noqa: SLF001
    if last is not None:
        return insert_after(new, last)
    Rewriter.insert_op(new, InsertPoint.at_end(block))
    return new


_IS_OP = IsInstance(Operation)


class LinkingBuilder(Builder):
    """xDSL's `Builder`, whose ``insert`` of one op without regions (not yet in a block, no
    insertion point given, no name hint, no insertion callbacks, no implicit builder open)
    links it where ``Builder.insert`` puts it, by `insert_before` / `insert_at_end`: the same
    links and parent, without the builder's walk up the ancestors. Anything else (a list of
    ops, an op with regions or already placed, an anchor no longer in the insertion point's
    block) goes to ``Builder.insert``, which checks and raises as it always does. Tile
    dispatch builds its ops through it (a few hundred per small kernel)."""

    def insert(self, op, insertion_point=None):  # type: ignore[override]
        if insertion_point is None and _IS_OP(op) and not op.regions and \
                op.parent is None and self._name_hint is None and \
                not self.operation_insertion_handler and _current_builder.builder is None:
            point = self.insertion_point
            anchor = point.insert_before
            if anchor is None:
                return insert_at_end(op, point.block)
            if anchor.parent is point.block:
                return insert_before(op, anchor)
        return super().insert(op, insertion_point)


class SharingBuilder(LinkingBuilder):
    """A `LinkingBuilder` that builds one ``arith.constant`` per value and type at its
    insertion point (`constant`): a second request returns the first op's result while that
    op is still where it was put (the same block, inserted at the same point, so before
    anything inserted after it). Tile dispatch on CUDA builds through it (`nested_builder`
    for the regions it opens): a kernel's addresses ask for the same few strides and masks
    hundreds of times, each of which ``canonicalize`` then moved out of its loop and ``cse``
    merged into the first (flash_attention_sm80: ~630 of ~920). The first of equal constants
    at one insertion point is the one ``cse`` keeps, so the IR after the cleanup is the same;
    the IR right after dispatch has fewer constants. `pure` (`insert_pure`) does the same for
    the index arithmetic of addresses and thread coordinates (~200 more on flash)."""

    def constant(self, value: int, type_, build) -> Operation:
        """The ``arith.constant value : type_`` op at the insertion point: the one built
        earlier here, else ``build()`` inserted."""
        point = self.insertion_point
        block, anchor = point.block, point.insert_before
        known = self.__dict__.setdefault("_constants", {})
        # the block and anchor by id (xDSL hashes an IR node in Python); the entry keeps them
        # alive, so no id is reused while it is there
        key = (value, type_, id(block), id(anchor))
        got = known.get(key)
        if got is not None and got[0].parent is block:
            return got[0]
        op = self.insert(build())
        known[key] = (op, block, anchor)
        return op

    def pure(self, op: OpT) -> OpT:
        """``insert(op)`` for an op whose value depends only on its class, operands,
        properties and result types (integer ``arith`` arithmetic, no regions): the equal op
        inserted earlier at this insertion point instead, while it is still in this block
        (``op`` is then dropped), as `constant` does for constants."""
        if op.regions or op.attributes or op.parent is not None:
            return self.insert(op)
        point = self.insertion_point
        block, anchor = point.block, point.insert_before
        known = self.__dict__.setdefault("_pure", {})
        key = (type(op), tuple(op._operands), tuple(op.properties.items()),  # noqa: SLF001
               tuple(r._type for r in op.results), block, anchor)  # noqa: SLF001
        got = known.get(key)
        if got is not None and got.parent is block:
            op.drop_all_references()  # never inserted: only its operands' uses to undo
            return got
        known[key] = self.insert(op)
        return op

    def binary(self, op_cls: type, lhs, rhs, build) -> Operation:
        """`pure` of ``build()``, an ``op_cls`` of ``lhs`` and ``rhs`` whose properties and
        result type follow from those three (`access.insert_binary`: `arith_binary` without
        flags), looked up by them before anything is built: the op that equal arguments built
        at this insertion point, while it is still in this block, else ``build()`` inserted
        (where `pure` would share it). Equal arguments build equal ops, so it shares what
        `pure` shares; an op never built costs no uses to undo."""
        point = self.insertion_point
        block, anchor = point.block, point.insert_before
        known = self.__dict__.setdefault("_binary", {})
        key = (op_cls, id(lhs), id(rhs), id(block), id(anchor))  # the entry keeps them alive
        got = known.get(key)
        if got is not None and got[0].parent is block:
            return got[0]
        op = build()
        if op.regions or op.attributes or op.parent is not None:
            return self.insert(op)
        known[key] = (self.insert(op), lhs, rhs, block, anchor)
        return op


def insert_pure(builder: Builder, op: OpT) -> OpT:
    """``builder.insert(op)``, shared with an equal op at a `SharingBuilder`'s insertion point
    (`SharingBuilder.pure`: ``op`` must not read memory or have effects)."""
    return builder.pure(op) if isinstance(builder, SharingBuilder) else builder.insert(op)


def nested_builder(outer: Builder, point: InsertPoint) -> LinkingBuilder:
    """A builder at ``point`` (inside a region ``outer`` just built) of ``outer``'s kind: a
    `SharingBuilder` for one, else a `LinkingBuilder`."""
    return SharingBuilder(point) if isinstance(outer, SharingBuilder) else LinkingBuilder(point)


class InsertBefore:
    """``Builder(InsertPoint.before(anchor))`` for its ``insert`` of one op at a time: each
    new op goes before ``anchor``, so they stay in the order inserted."""

    __slots__ = ("anchor",)

    def __init__(self, anchor: Operation) -> None:
        self.anchor = anchor

    def insert(self, new: OpT) -> OpT:
        return insert_before(new, self.anchor)


def move_ops_before(source: Block, anchor: Operation) -> list[Operation]:
    """Every op of ``source``, in order, detached and inserted before ``anchor`` (what
    ``for o in list(source.ops): o.detach(); anchor_block.insert_op_before(o, anchor)`` does),
    the whole list spliced in at once; the ops moved. When ``anchor`` is inside ``source``
    (an op would hold its own block), xDSL's per-op path runs and raises."""
    ops = [o for o in source.ops]  # not list(): xDSL's BlockOps.__len__ walks the block
    block = anchor.parent
    if not ops:
        return ops
    if block is None or source.is_ancestor(block):
        for o in ops:
            o.detach()
            Rewriter.insert_op(o, InsertPoint.before(anchor))
        return ops
    for o in ops:
        o.parent = block
    first, last = ops[0], ops[-1]
    prev = anchor._prev_op  # noqa: SLF001
    if prev is None:
        block._first_op = first  # noqa: SLF001
    else:
        prev._next_op = first  # noqa: SLF001
    first._prev_op = prev  # noqa: SLF001
    last._next_op = anchor  # noqa: SLF001
    anchor._prev_op = last  # noqa: SLF001
    source._first_op = source._last_op = None  # noqa: SLF001
    return ops
