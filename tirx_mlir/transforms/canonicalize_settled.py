"""What one ``canonicalize`` run knows will not change: ops it tried that did nothing, and
whether region DCE can find a dead op, kept from the changes the run itself makes.

xDSL's driver sweeps the whole module until a sweep changes nothing (a nested loop's constants
move out one loop per sweep), and runs region DCE after each sweep; on the cuda kernels most of
a canonicalize run is sweeps and DCE walks that change nothing. `Settled` follows every change
the run makes through the rewriter's listener (insertions, removals, replacements,
modifications: the region DCE's erasures go through it too) and answers two questions exactly:

- `Settled.is_clean`: ``op`` was tried and did nothing, and nothing its try reads has changed
  since, so trying it again does nothing (the driver pops it and moves on: the worklist's order,
  and so the IR, is xDSL's). Only ops of classes whose try reads what the listener sees are kept
  (`_TRIES_FOLLOWED`): the op's operands and their defining ops (arith's integer folder and
  patterns, ``scf.for``'s trivial-loop pattern), the uses of its results (erased when unused),
  and for a loop the ops inside it (its effects; the constants its body holds). Every change
  marks what it can affect: a new op's operands' definers and its ancestors, a removed op's
  operands' definers and ancestors, a replaced op's users and its new values' definers, a
  modified op and its operands' definers (and its ancestors when its effects are not fixed by
  its class), a constant moved out of a loop (`moved`) and the ops it is now nested in.
- `Settled.nothing_dead`: after a region DCE every op left is live (the live set is the ops
  with a chain of users to an op that is not trivially dead), and an op becomes dead only if
  the top of such a chain lost a use or its effects: an op the changes since marked. When every
  marked op still reaches such an op through its users, nothing is dead and the walk over the
  whole module is skipped; otherwise the DCE runs as before.

Any action other than an erasure, arith's integer fold or a pattern of `_ACTIONS_FOLLOWED` (an
inlined loop or ``scf.if`` moves ops without telling the listener), and a region DCE of a region
with several blocks (xDSL's, which erases a block whole without telling it), forget everything
(`Settled.forget`): the next sweep tries every op again and the next DCE walks everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.ir import Operation, Region, SSAValue

from tirx_mlir.transforms.pattern_classes import ARITH, SCF, PatternTable

if TYPE_CHECKING:
    from tirx_mlir.transforms.canonicalize import FactsByClass


_ACTIONS_FOLLOWED = PatternTable({(ARITH, "SignlessIntegerBinaryOperationConstantProp"): True,
                                  (ARITH, "SignlessIntegerBinaryOperationZeroOrUnitRight"): True})
"""xDSL's patterns whose rewrites the listener sees whole (``rewriter.replace``), by name
(`pattern_classes`: their module is not imported here)."""

_TRIES_FOLLOWED = _ACTIONS_FOLLOWED | PatternTable({(SCF, "SimplifyTrivialLoops"): True})
"""xDSL's patterns whose failed try reads only the op's operands' definers (arith's constants)
(`SimplifyTrivialLoops` inlines a loop's body when it acts: an action not followed)."""


class Settled:
    """One canonicalize run's knowledge of ops that do nothing and of liveness (module
    docstring). Ops are kept by ``id`` with the op itself (so no id is reused meanwhile)."""

    def __init__(self, facts: "FactsByClass", followed: frozenset[type] = frozenset()) -> None:
        """``followed``: more pattern classes (canonicalize's own) whose rewrites the listener
        sees whole and whose failed try reads only what the module docstring lists."""
        self.facts = facts
        self.clean: dict[int, Operation] = {}
        """Ops tried with no effect, nothing they read changed since."""
        self.marked: dict[int, Operation] = {}
        """Ops whose liveness may have changed since the last region DCE."""
        self.all_live = False
        """Every op was live after the last region DCE (and `marked` holds what changed)."""
        self._memoable: dict[type, bool] = {}
        self.tracked_actions = _ACTIONS_FOLLOWED.with_classes(followed)
        self._reads_neighbours = _TRIES_FOLLOWED.with_classes(followed)

    # -- the driver's questions

    def is_clean(self, op: Operation) -> bool:
        return id(op) in self.clean

    def tried(self, op: Operation) -> None:
        """``op`` was tried and nothing changed."""
        op_class = type(op)
        memoable = self._memoable.get(op_class)
        if memoable is None:
            f = self.facts[op_class]
            memoable = self._memoable[op_class] = \
                (not f.foldable or f.folds_constant_operands) and \
                all(type(p) in self._reads_neighbours for p in f.patterns)
        if memoable:
            self.clean[id(op)] = op

    def forget(self) -> None:
        """A change the listener may not have seen: nothing is known any more."""
        self.clean.clear()
        self.marked.clear()
        self.all_live = False

    # -- the listener's events

    def _mark(self, op: Operation) -> None:
        key = id(op)
        self.clean.pop(key, None)
        if self.all_live:
            self.marked[key] = op

    def _mark_definers(self, op: Operation) -> None:
        """``op``'s operands' definers (their uses changed)."""
        mark = self._mark
        for value in op._operands:  # noqa: SLF001
            owner = value.owner
            if isinstance(owner, Operation):
                mark(owner)

    def _mark_ancestors(self, op: Operation) -> None:
        """The ops ``op`` is nested in (what they hold changed), up by the links."""
        mark = self._mark
        block = op.parent
        while block is not None:
            region = block.parent
            if region is None:
                return
            owner = region.parent
            if owner is None:
                return
            mark(owner)
            block = owner.parent

    def inserted(self, op: Operation) -> None:
        self._mark(op)
        self._mark_definers(op)
        self._mark_ancestors(op)

    def removed(self, op: Operation) -> None:
        self.clean.pop(id(op), None)
        self.marked.pop(id(op), None)
        self._mark_definers(op)
        self._mark_ancestors(op)

    def modified(self, op: Operation) -> None:
        """``op``'s operands changed: its ancestors are marked only when its effects are not
        its class's (they may read the operands; a loop's effects are its nested ops')."""
        self._mark(op)
        self._mark_definers(op)
        if self.facts[type(op)].fixed_effects is None:
            self._mark_ancestors(op)

    def moved(self, op: Operation) -> None:
        """``op``, without operands or regions, moved out of a loop's body to just before the
        loop (canonicalize's rehoisting, while that loop is tried), its uses as they were: no
        op's liveness changed, and the only tries that read what changed are those reading a
        block's ops (a loop's rehoisting): the loop being tried, which is not settled, and the
        ops ``op`` is now nested in, its old ancestors but that loop (no try reads where an
        operand's definer sits). So ``op`` and its new ancestors are marked; its users are not,
        where the clone's insertion and replacement, which change their operands, mark them."""
        self._mark(op)
        self._mark_ancestors(op)

    def replaced(self, op: Operation, new_results: "tuple[SSAValue | None, ...]") -> None:
        mark = self._mark
        for result in op.results:
            for use in result.uses:
                mark(use.operation)
        for value in new_results:
            if value is not None and isinstance(owner := value.owner, Operation):
                mark(owner)

    # -- region DCE

    def nothing_dead(self, region: Region) -> bool:
        """True when no op of ``region`` can be dead (every marked op reaches an op that is
        not trivially dead through its users); False when that is not known."""
        if not self.all_live:
            return False
        live: set[int] = set()
        for op in self.marked.values():
            if not _attached(op, region):
                continue
            if not _reaches_live(op, live, self.facts):
                return False
        return True

    def after_dce(self, all_live: bool) -> None:
        """Region DCE ran (or was found to have nothing to do): ``all_live`` when every op
        left is live and the changes are followed from here."""
        self.marked.clear()
        self.all_live = all_live


def _attached(op: Operation, region: Region) -> bool:
    """Whether ``op`` is (still) nested in ``region``."""
    block = op.parent
    while block is not None:
        parent_region = block.parent
        if parent_region is region:
            return True
        if parent_region is None:
            return False
        owner = parent_region.parent
        if owner is None:
            return False
        block = owner.parent
    return False


def _reaches_live(op: Operation, live: set[int], facts: "FactsByClass") -> bool:
    """Whether a chain of users leads from ``op`` to an op that is not trivially dead (or to
    one found so before, in ``live``); ``op`` joins ``live`` when it does. The ops whose class
    does not decide it (loops: their nested ops' effects) are asked last, when no user chain
    reaches a live op without them."""
    seen = {id(op)}
    stack = [op]
    costly: list[Operation] = []
    while stack:
        current = stack.pop()
        if id(current) in live:
            break
        dead = facts[type(current)].dead_if_unused
        if dead is False:
            break
        if dead is None:
            costly.append(current)
        for result in current.results:
            for use in result.uses:
                user = use.operation
                if id(user) not in seen:
                    seen.add(id(user))
                    stack.append(user)
    else:
        if all(facts.would_be_trivially_dead(c) for c in costly):
            return False
    live.add(id(op))
    return True
