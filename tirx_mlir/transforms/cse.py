"""``cse`` as xDSL's pass runs it, with each op's key built once and its class's facts looked
up once.

xDSL's `CommonSubexpressionElimination` keys its scoped table by `OperationInfo`, whose hash
sums the hashes of the op's attributes and properties and hashes its operands and result types
again at every lookup (a table copy per region rehashes nothing, but every ``get`` and ``set``
does), and it asks every op whether it is a terminator, isolated from above, trivially dead,
side-effect free or read-only: facts of the op's class, or of its effects, recomputed per
visit (half the pass on the cuda pipeline's IR). Here an op's key is a tuple of the same parts
(name, operands, result types, attributes and properties as frozen sets: equal exactly when
xDSL's `OperationInfo` says equal), made once per op, and the class facts come from
canonicalize's `FactsByClass`. An op with regions keeps xDSL's key (the regions' structural
equivalence is part of its equality). Before replacing an op's results xDSL looks up the key
of each user (a user equal to a known op keeps its operand); a known key holding the result as
an operand is a stored user's, so the users are keyed only when one of them was stored. The
walk, the scopes and the order of replacements and erasures are xDSL's, so the IR out is the IR
xDSL's pass gives, which the tests check on the pipelines' examples.

Registered as ``cse`` in place of xDSL's (`tirx_mlir.transforms`), as ``canonicalize`` is. It
reports what it changes (`tirx_mlir.changes`): an op it replaces or erases, and the equal op whose
results take over its uses, so the verification after it visits only those blocks.
"""

from __future__ import annotations

from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Block, Operation, Region
from xdsl.traits import MemoryEffectKind
from xdsl.transforms.common_subexpression_elimination import (CommonSubexpressionElimination,
                                                              OperationInfo)

from tirx_mlir.changes import ChangeLog, current_changes
from tirx_mlir.transforms.canonicalize import FactsByClass, unused
from tirx_mlir.ir_uses import erase_op, replace_uses


def op_key(op: Operation) -> Any:
    """What `OperationInfo` compares, as a hashable value: two ops without regions have equal
    keys exactly when xDSL's CSE takes one for the other."""
    if op.regions:
        return OperationInfo(op)
    name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
    attrs = op.attributes
    props = op.properties
    return (name, op._operands, tuple(r._type for r in op.results),  # noqa: SLF001 - a tuple
            frozenset(attrs.items()) if attrs else None,
            frozenset(props.items()) if props else None)


class _CSEDriver:
    """xDSL's `CSEDriver` over `op_key` keys and cached class facts."""

    def __init__(self, log: ChangeLog) -> None:
        self.log = log
        self.facts = FactsByClass.shared()
        self.known: dict[Any, Operation] = {}
        self.stored: set[Operation] = set()
        """Every op `known` has held (in any scope): a key holding a value as an operand is
        an op's that used it when it was stored."""
        self.to_erase: dict[Operation, bool] = {}
        """The ops to erase after the walk, in order, each with whether it was reported
        removed already (a replaced op: `_replace_and_delete` reported its block and users)."""

    def _write_between(self, from_op: Operation, to_op: Operation) -> bool:
        """`has_other_side_effecting_op_in_between`."""
        next_op: Operation | None = from_op
        while next_op is not to_op:
            assert next_op is not None, "Incorrect order of ops in side-effect search"
            effects = self.facts.effects(next_op)
            if effects is None or any(e.kind is MemoryEffectKind.WRITE for e in effects):
                return True
            next_op = next_op.next_op
        return False

    def _replace_and_delete(self, op: Operation, existing: Operation) -> None:
        known = self.known
        self.log.removed(op)  # its block and its users (``existing`` gains uses, no change)
        stored = self.stored
        for old, new in zip(op.results, existing.results, strict=True):
            # a key in `known` equal to a user's holds ``old``: that of a stored user
            if not any(use.operation in stored for use in old.uses) or \
                    all(op_key(use.operation) not in known for use in old.uses):
                replace_uses(old, new)
        if all(not r.uses for r in op.results):
            self.to_erase[op] = True

    def _simplify_operation(self, op: Operation) -> None:
        if self.facts[type(op)].terminator:
            return
        facts = self.facts
        if unused(op) and facts.would_be_trivially_dead(op):
            self.to_erase[op] = False
            return
        if any(len(region.blocks) > 1 for region in op.regions):
            return
        effects = facts.effects(op)
        if effects is None or effects:  # not surely side-effect free
            if effects is None or any(e.kind != MemoryEffectKind.READ for e in effects):
                return
            key = op_key(op)
            existing = self.known.get(key)
            if existing is not None and op.parent_block() is existing.parent_block() \
                    and not self._write_between(existing, op):
                self._replace_and_delete(op, existing)
                return
            self.known[key] = op
            self.stored.add(op)
            return
        key = op_key(op)
        existing = self.known.get(key)
        if existing is not None:
            self._replace_and_delete(op, existing)
            return
        self.known[key] = op
        self.stored.add(op)

    def _simplify_block(self, block: Block) -> None:
        op = block._first_op  # noqa: SLF001 - by the links (nothing is detached meanwhile)
        while op is not None:
            if op.regions:
                if self.facts[type(op)].isolated_from_above:
                    outer = self.known
                    self.known = {}
                    for region in op.regions:
                        self._simplify_region(region)
                    self.known = outer
                else:
                    for region in op.regions:
                        self._simplify_region(region)
            self._simplify_operation(op)
            op = op._next_op  # noqa: SLF001

    def _simplify_region(self, region: Region) -> None:
        if len(region.blocks) == 1:
            outer = self.known
            self.known = dict(outer)
            self._simplify_block(region.block)
            self.known = outer

    def simplify(self, op: Operation) -> None:
        for region in op.regions:
            self._simplify_region(region)
        for dead, reported in self.to_erase.items():
            if dead.parent is not None:
                if not reported:  # a replaced op's block and users are in the log already
                    self.log.removed(dead)
                erase_op(dead)  # `Rewriter.erase_op`, less the no-op work


class FastCSEPass(CommonSubexpressionElimination):
    """``cse``: the same IR as xDSL's pass, each op keyed once."""

    REPORTS_CHANGES = True
    DETERMINISTIC = True  # what it merges depends on the IR alone (`pipelines._Unchanged`)
    KEEPS_NO_DEAD_OPS = True
    """On IR without dead ops it makes none (`pipelines._Unchanged`): it finds no unused op
    dead; an op it replaces reads the values its equal op reads (its key holds its operands;
    an op with regions: the same values from outside them), so erasing it leaves none of
    them unread; the users it redirects read an op as live as the one they read; the effects
    of an op around a region it changes stay (it erases pure ops and reads equal to one left
    in the block)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _CSEDriver(current_changes()).simplify(op)
