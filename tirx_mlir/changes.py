"""What a pass reports changing, for the verification after it (`tirx_mlir.verification`).

A pass whose class states ``REPORTS_CHANGES = True`` reports to `current_changes()` while
`ModuleVerifier.run_pass` runs it; the rules a report follows are in `tirx_mlir.verification`'s
docstring. This module imports nothing of the project, so a dialect helper that removes ops
(`buffer_ops.erase_dead_views`) can report without an import cycle.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from xdsl.ir import Block, Operation


class ChangeLog:
    """What a pass changed, as it reports it: the existing ops it changed (operands, types,
    properties, attributes) or moved (`changed`, after the change), the ops it removes
    (`removed`, before) and, by either, the blocks it inserted ops into: a new op in a block
    the report names is found without being named. The users of a removed op's results are
    kept apart (``users``): only which values their operands are changes, not their results,
    properties, attributes or place, so what reads them (their own users) is not reached
    through them. An op only moved (`moving`: the same op, its operands, results, types,
    properties and attributes as they were) is kept apart too (``moved``): its users read it as
    before, only the dominance of their uses of it may change. `listener` reports what a
    `PatternRewriter` does."""

    __slots__ = ("ops", "own", "blocks", "users", "moved", "rebuilds", "_redirecting", "_moving",
                 "_left")

    def __init__(self) -> None:
        self.ops: list[Operation] = []
        self.own: list[Operation] = []
        self.blocks: list[Block] = []
        self.users: list[Operation] = []
        """The users of the results of the ops reported removed: their operands change."""
        self.moved: list[Operation] = []
        """The ops reported moved (`moving`), after the move."""
        self.rebuilds: list[Operation] = []
        """The region ops reported built around the blocks of the ops they replace
        (`rebuilt`)."""
        self._moving: Operation | None = None
        """The op `moving` announced, until its removal from its block is reported."""
        self._left: Operation | None = None
        """That op once it left its block, until its insertion is reported (`changed`)."""
        self._redirecting: set[int] = set()
        """While a rewriter replaces an op (`replaced` .. `removed`): the ids of its users,
        whose modifications the rewriter then reports are the redirection of their operands."""

    @property
    def empty(self) -> bool:
        """Nothing reported: the pass left the IR as it was (every change is reported as a
        changed or removed op, or the block it inserted into)."""
        return not (self.ops or self.own or self.blocks or self.users or self.moved)

    def moving(self, op: Operation) -> None:
        """``op`` is about to move (its block or place changes; nothing else of it does: the
        same op, operands, results and their types, properties and attributes): call it before
        reporting the move as usual, ``removed(op)`` before it leaves its block and
        ``changed(op)`` once inserted (or a rewriter's listener hearing both). The block it
        leaves is named as for a removal, but its users are not taken as redirected: they
        read the same values, whose definition moved, so the verification after the pass
        checks only the dominance of their uses (``moved``); ``op`` itself is verified where
        it now is."""
        self._moving = op

    def rebuilt(self, new: Operation, old: Operation) -> None:
        """Region op ``new``, just inserted in ``old``'s block to replace it (``old`` reported
        removed), holds ``old``'s regions (moved, not copied), and every change the pass makes
        to the ops in them is reported (`changed`, `removed`; new ops found by their blocks):
        the ops there that the report does not reach are checked for their dominance only,
        not keyed again (a new region op is otherwise verified with all it holds). Only when
        ``new`` is of ``old``'s class and in its block (the ops in it keep their parent's
        class, their kernel and their ``HasParent`` facts); otherwise nothing is recorded."""
        if type(new) is type(old) and new.parent is not None and new.parent is old.parent:
            self.rebuilds.append(new)

    def changed(self, op: Operation, inside: bool = True) -> None:
        """``op`` changed: it, the users of its results and (``inside``: its properties, which
        a kernel's ops read as its launch, or its regions changed) every op in its regions are
        verified again; ``inside=False``: only its own attributes changed, which only it and,
        of an allocation, the ops reading their views' allocation attributes read (the
        verification reaches those through the views)."""
        if inside and id(op) in self._redirecting:
            return  # a rewriter's `replace` redirecting the uses of the op it replaces
        if op is self._left:  # inserted where `moving` announced it goes
            self._left = None
            self.moved.append(op)
            return
        if op is self._moving:  # not reported leaving its block: an ordinary change
            self._moving = None
        (self.ops if inside else self.own).append(op)

    def removed(self, op: Operation) -> None:
        """``op`` is about to be detached, erased or replaced (for a move, call `changed`
        after it): its block changes, and so do the operands of the users of its results
        (``users``)."""
        self._redirecting = set()
        if op.parent is not None:
            self.blocks.append(op.parent)
        if op is self._moving:  # its users read the same values: only their dominance
            self._moving, self._left = None, op
            return
        if op is self._left:  # removed again before its insertion: an ordinary removal
            self._left = None
        users = self.users
        for result in op.results:
            use = result.first_use  # the uses by their links, first to last (`result.uses`)
            while use is not None:
                users.append(use.operation)
                use = use._next_use  # noqa: SLF001

    def replaced(self, op: Operation, new_results: object = ()) -> None:
        """A `PatternRewriter` is replacing ``op``: it reports its users modified when it
        redirects their uses, then ``op`` removed (xDSL's ``PatternRewriter.replace``)."""
        self.removed(op)
        self._redirecting = {id(use.operation) for result in op.results for use in result.uses}

    def listener(self):
        """A new `PatternRewriterListener` reporting insertions, modifications, replacements
        and removals here. The log does not keep it: its handlers name the log, so a log
        holding it would be a reference cycle, and the ops it names (erased ones among them)
        would wait for the cyclic collector instead of going with the log."""
        from xdsl.pattern_rewriter import PatternRewriterListener

        return PatternRewriterListener(
            operation_insertion_handler=[self.changed],
            operation_modification_handler=[self.changed],
            operation_replacement_handler=[self.replaced],
            operation_removal_handler=[self.removed])


_active: list[ChangeLog] = []
_closed: list[ChangeLog | None] = [None]
"""The log of the `reporting_to` block that ended last (`last_closed`)."""


@contextmanager
def reporting_to(log: ChangeLog) -> Iterator[ChangeLog]:
    """`current_changes` is ``log`` inside (what `ModuleVerifier.run_pass` runs a pass in);
    when the block ends, ``log`` is `last_closed`."""
    _active.append(log)
    try:
        yield log
    finally:
        _active.pop()
        _closed[0] = log


def last_closed() -> ChangeLog | None:
    """The log of the `reporting_to` block that ended last (None after `forget_closed`): what a
    reporting pass that `ModuleVerifier.run_pass` just ran reported (a block nested in the pass
    ends before the pass's own)."""
    return _closed[0]


def forget_closed() -> None:
    """`last_closed` is None until the next `reporting_to` block ends (it would keep the ops the
    log names alive)."""
    _closed[0] = None


def reports_changes(p: object) -> bool:
    """Whether pass ``p`` reports every change it makes (class attribute
    ``REPORTS_CHANGES = True``) to `current_changes`."""
    return bool(getattr(p, "REPORTS_CHANGES", False))


def current_changes() -> ChangeLog:
    """The log the running pass reports to (`ModuleVerifier.run_pass`); outside one, a log
    nobody reads."""
    return _active[-1] if _active else ChangeLog()


def change_listener():
    """`current_changes().listener()`: give it to a `PatternRewriteWalker` (``listener=``)."""
    return current_changes().listener()
