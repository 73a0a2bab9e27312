"""Redirecting a value's uses without xDSL's per-use views: `replace_uses`.

xDSL's ``SSAValue.replace_all_uses_with`` builds an ``OpOperands`` view per use and rebuilds the
operand tuple through its ``SSAValues.__getitem__`` (a Python call per slice), about half of a
replacement in the index passes, which replace thousands of values on a GEMM.
`replace_uses(old, new)` makes the same change, in the same order: the uses of ``old`` taken
first to last, each unlinked from ``old``'s list and put first in ``new``'s (so ``new``'s list
ends as xDSL leaves it), the user's operand tuple rebuilt with ``new`` at the use's index; then
``new`` takes ``old``'s name hint when it has none (through xDSL's setter, as xDSL does).

`erase_op(op)` is xDSL's ``Rewriter.erase_op(op)`` without what it does for nothing: xDSL erases
each result of the op by replacing its uses with a new ``ErasedSSAValue`` (a dataclass built and
named through the name-hint setter's check), also when the result has no use, as every result of
an op being erased safely has none; that value is referenced by nothing afterwards. Here a
result without uses is left as it is; an op with a used result goes to xDSL (which refuses it,
or with ``safe_erase=False`` redirects the uses to an ``ErasedSSAValue``). The erased op then
lets go of its results (``op.results`` is empty): each result names its op, so an erased op
and its results were a reference cycle, garbage that only Python's cyclic collector frees,
which the pipelines pause (`gc_pause`) and which then scanned them all in its collection after
the passes (~4,700 erased ops, 22,000 objects, 8-10 ms of a flash_attention_sm80 compile).
Freed by reference counting instead, as soon as nothing holds the op; a pass that still holds
an erased op finds it detached (``parent`` None) with no results.
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue, SSAValues
from xdsl.rewriter import Rewriter


def replace_uses(old: SSAValue, new: SSAValue) -> None:
    """``old.replace_all_uses_with(new)``, the uses redirected directly."""
    if new is old:
        return
    use = old.first_use
    while use is not None:
        after = use._next_use  # noqa: SLF001 - the list is relinked below
        # unlink from old's list (``remove_use``)
        prev = use._prev_use  # noqa: SLF001
        if prev is not None:
            prev._next_use = after  # noqa: SLF001
        if after is not None:
            after._prev_use = prev  # noqa: SLF001
        if prev is None:
            old.first_use = after
        # put first in new's list (``add_use``)
        first = new.first_use
        use._next_use, use._prev_use = first, None  # noqa: SLF001
        if first is not None:
            first._prev_use = use  # noqa: SLF001
        new.first_use = use
        op, index = use._operation, use._index  # noqa: SLF001
        operands = list(op._operands)  # noqa: SLF001
        operands[index] = new
        op._operands = SSAValues(operands)  # noqa: SLF001
        use = after
    if new.name_hint is None:
        new.name_hint = old.name_hint


def erase_op(op: Operation, safe_erase: bool = True) -> None:
    """``Rewriter.erase_op(op, safe_erase)``: ``op`` detached from its block (when it has one)
    and its references dropped (its operands' uses, its successors, its regions'); when none
    of its results has a use, they are left as they are and ``op`` lets go of them (module
    docstring)."""
    for result in op.results:
        if result.first_use is not None:
            Rewriter.erase_op(op, safe_erase=safe_erase)
            return
    block = op.parent
    if block is not None:
        block.detach_op(op)
    op.drop_all_references()
    op.results = _NO_RESULTS  # no cycle left with its results (module docstring)


_NO_RESULTS = SSAValues()
