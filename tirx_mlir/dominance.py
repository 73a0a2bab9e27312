"""SSA dominance: every value must be defined where each of its uses can see it.

MLIR's verifier checks that a value's definition dominates every use; xDSL 0.74 has block-level
dominance (`xdsl.irdl.dominance.DominanceInfo`) but no such check, and its parser resolves a use
that comes before the definition as a forward reference, so a file that uses ``%y`` before
``%y = ...``, or bounds a loop by a value defined inside the loop, would parse and then crash
later (a verifier, a pass, the interpreter). `check_dominance` is that check, run by
`tirx_mlir.located_parser.parse_module` on every parse and by the tools' verifier after every
pass.

The rule is MLIR's (docs: mlir.llvm.org/docs/LangRef/#value-scoping): a value defined by op D is
visible after D in D's block, in the blocks that block dominates, and in the regions of the ops
there; never in D's own regions; block arguments are visible in their block and the blocks it
dominates. The body of ``builtin.module`` is a graph region, where order does not matter.
Unreachable blocks are checked as if the region's entry block branched to them.

One walk with an explicit stack (no recursion): the values in scope are a set of ids with an
undo list per block, so the cost is one set lookup per operand; a region of several blocks visits
them in dominator-tree order.
"""

from __future__ import annotations

from typing import Callable

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, OpResult, Operation, SSAValue
from xdsl.irdl.dominance import DominanceInfo

from tirx_mlir.diagnostics import TirxError


class DominanceError(TirxError):
    """A use of a value whose definition does not dominate it (``op`` is the user)."""

    def __init__(self, message: str, op: Operation, name: str | None):
        super().__init__(message, op)
        self.name = name
        """The value's name as written (``%y``), when it has one."""


def check_dominance(root: Operation,
                    enter: Callable[[Operation], bool] | None = None) -> None:
    """Raise `DominanceError` at the first op (in textual order) that uses a value its
    definition does not dominate. ``root``'s own operands are not checked. With ``enter``, the
    regions of an op it answers False for are not entered (a pass left them and every value
    they use as they were: `tirx_mlir.verification.ModuleVerifier.check_dominance`)."""
    visible: set[int] = set()
    # Frames of an explicit stack (no recursion): a list [next op, ids added, dominated blocks]
    # for a block being visited, a tuple (op, entry blocks left) for the regions of an op.
    stack: list = [(root, [r.blocks.first for r in reversed(root.regions) if r.blocks])]
    while stack:
        frame = stack[-1]
        if type(frame) is tuple:  # the regions of an op
            op, entries = frame
            if entries:
                stack.append(_enter(entries.pop(), visible))
                continue
            stack.pop()
            if stack:  # the op's results are visible after its regions
                below = stack[-1]
                for result in op.results:
                    visible.add(id(result))
                    below[1].append(id(result))
            continue
        op = frame[0]
        if op is None:
            if frame[2]:
                stack.append(_enter(frame[2].pop(), visible))
                continue
            visible.difference_update(frame[1])
            stack.pop()
            continue
        for index, operand in enumerate(op._operands):  # noqa: SLF001 - the hot loop
            if id(operand) not in visible:
                raise _error(op, index, operand)
        frame[0] = op._next_op  # noqa: SLF001
        if op.regions and (enter is None or enter(op)):
            stack.append((op, [r.blocks.first for r in reversed(op.regions) if r.blocks]))
            continue
        for result in op.results:
            visible.add(id(result))
            frame[1].append(id(result))


def _enter(block: Block, visible: set[int]) -> list:
    """The frame of a block: its arguments are visible (and, in a graph region, every result
    of its ops); the blocks it immediately dominates are visited before it goes out of scope."""
    added = [id(a) for a in block.args]
    if isinstance(block.parent_op(), ModuleOp):
        added += [id(r) for op in block.ops for r in op.results]
    visible.update(added)
    children = _dominated_children(block) if block.next_block is not None or \
        block.prev_block is not None else []
    return [block.first_op, added, children]


def _dominated_children(block: Block) -> list[Block]:
    """The blocks ``block`` immediately dominates in its region (reversed: they are popped);
    unreachable blocks count as dominated by the entry block."""
    region = block.parent
    if region is None:
        return []
    info = DominanceInfo(region)
    entry = region.blocks.first
    children = []
    for other in region.blocks:
        if other is entry:
            continue
        strict = [d for d in info._dominance[other] if d is not other]  # noqa: SLF001
        idom = max(strict, key=lambda d: len(info._dominance[d])) if strict else entry  # noqa: SLF001
        if idom is block:
            children.append(other)
    return list(reversed(children))


def _error(op: Operation, index: int, value: SSAValue) -> DominanceError:
    name = f"%{value.name_hint}" if value.name_hint else None
    what = f"operand #{index}" + (f" ({name})" if name else "")
    if isinstance(value, OpResult) and value.op.parent_block() is not None:
        definer = value.op
        if definer is op or _encloses(definer, op):
            why = "is defined inside this op's own region (a value is visible only after its op)"
        elif _ancestor_in(op, definer.parent_block()) is not None:
            why = "is used before it is defined"
        else:
            why = "is defined in a region or block that does not enclose or dominate this use"
    elif isinstance(value, BlockArgument) and value.block.parent is not None:
        why = "is an argument of a block that does not enclose or dominate this use"
    else:
        why = "is used before it is defined, or where its definition is not visible"
    return DominanceError(f"{what} {why}", op, name)


def defined_in(op: Operation, value: SSAValue) -> bool:
    """Whether ``value`` is defined inside ``op``: by an op nested in its regions (at any depth)
    or as an argument of one of their blocks (a loop's induction variable and carried values);
    ``op``'s own results are not. The test a loop transform asks of a value to know whether it
    changes from one iteration to the next."""
    owner = value.owner
    if isinstance(owner, Block):
        owner = owner.parent_op()
        if owner is op:
            return True
    return owner is not None and owner is not op and _encloses(op, owner)


def _encloses(op: Operation, inner: Operation) -> bool:
    node = inner.parent_op()
    while node is not None:
        if node is op:
            return True
        node = node.parent_op()
    return False


def _ancestor_in(op: Operation, block: Block | None) -> Operation | None:
    """``op`` or the ancestor of it that is in ``block``, if any."""
    node: Operation | None = op
    while node is not None:
        if node.parent_block() is block:
            return node
        node = node.parent_op()
    return None
