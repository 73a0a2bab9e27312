"""``canonicalize`` as xDSL's pass runs it, with each op class's questions answered once.

xDSL's `CanonicalizePass` asks every op, at every visit, whether it is a terminator or a symbol
or declares no memory effects,
whether it has a folder, whether it is constant-like, and which canonicalization patterns its
traits give (`GreedyRewritePatternApplier` over `CanonicalizationRewritePattern`): facts of the
op's class, recomputed per visit (a third of the pass on the trn pipeline's IR). Here they are
looked up once per class (`FactsByClass.shared`: kept across runs, and by ``cse`` and ``dce``,
while the classes keep their traits), and so are the effects of a class whose effect traits state
fixed ones (``Pure``, reads, writes: `_FIXED_EFFECTS`), and with them whether its ops are dead
without uses. The driver is xDSL's (`PatternRewriteWalker`: the same worklist order, region DCE
after each sweep, sweeps repeated until nothing changes); each op is treated in the same order
as xDSL's applier does: erased when trivially dead, else folded when it has a folder and is not
constant-like, else its patterns tried in order until one rewrites. So the IR out is the IR
xDSL's pass gives, which the pipelines' tests check on every example. What the driver skips
changes nothing of that: the worklist never holds an op of an inert class (no folder, no
pattern, never trivially dead: popping it would do nothing, and its absence moves no other op;
`_ActiveWorklist`), a used op of a class that can only be erased as dead (a used constant) is
popped without the rewriter being set up for it (`_Walker`), and xDSL's integer patterns are
not called when their first step would return (the operand they read is no integer
``arith.constant``: `_NEEDS_CONSTANT`). xDSL's `RehoistConstInLoops` asks every op of a loop
body whether it is constant-like at every visit of the loop; `_RehoistConstInLoops` keeps the
answer per class, and moves each constant before the loop where xDSL puts a clone that takes
its uses (then erases it): the same IR and worklist, without a new op, redirected uses and an
erasure per constant (a thousand a flash_attention_sm80 compile, whose dispatched loop body
makes its constants inside it).

arith's integer binary folder (most of the ops tried on the cuda pipeline's IR) folds only
constant operands, or a constant unit on the right (left too when commutative); its steps are
decided here first on the operands' ``arith.constant`` values, the units kept per class and
value, and xDSL's folder runs only when they say it folds (or when a constant comes from another
op).

The liveness of region DCE runs rounds over every op until none becomes live, asking each op in
every round whether it would be dead without uses. Its result is the least set holding every op
that is not dead without uses and the op defining each operand of an op it holds (an op is live
when a user of its results is), which `_live_ops` finds in one walk; in a region of several
blocks (where xDSL walks only the blocks reachable from the entry) xDSL's rounds run, each op's
answer kept for the call (`_MemoLiveSet`). The deletions are xDSL's (`region_dce`).

A run also keeps what it knows will do nothing (`canonicalize_settled.Settled`, fed by the
rewriter's listener): an op tried without effect, nothing it reads changed since, is popped
without a try, and region DCE skips its walk when no op the run changed since the last one can
be dead. The sweeps that confirm the fixpoint (a nested loop's constants leave one loop per
sweep) then cost little; the order of the worklist, and so the IR, stays xDSL's.

The pass keeps the name ``canonicalize`` and is registered under it in place of xDSL's
(`tirx_mlir.transforms`), so ``tirx-opt -p canonicalize`` and a pipeline's replayed spec
(`Pipeline.spec`) run it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.dialects.arith import SignlessIntegerBinaryOperation
from xdsl.dialects.builtin import IntegerAttr
from xdsl.folder import Folder
from xdsl.ir import (Block, BlockArgument, ErasedSSAValue, Operation, OpResult, OpTraits,
                     Region, SSAValue)
from xdsl.pattern_rewriter import (PatternRewriter, PatternRewriterListener, PatternRewriteWalker,
                                   RewritePattern)
from xdsl.rewriter import InsertPoint
from xdsl.traits import (Commutative, ConstantLike, EffectInstance,
                         HasCanonicalizationPatternsTrait, HasFolder, IsolatedFromAbove,
                         IsTerminator,
                         MemoryAllocEffect, MemoryEffect, MemoryEffectKind, MemoryFreeEffect,
                         MemoryReadEffect, MemoryWriteEffect, NoMemoryEffect,
                         RecursiveMemoryEffect, SymbolOpInterface)
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.dead_code_elimination import LiveSet
from xdsl.utils.worklist import _MISSING, Worklist

from tirx_mlir.changes import ChangeLog, change_listener
from tirx_mlir.ir_insert import insert_at_end, insert_before
from tirx_mlir.ir_uses import erase_op, replace_uses
from tirx_mlir.ir_walk import walk_ops
from tirx_mlir.transforms.canonicalize_settled import Settled
from tirx_mlir.dialects.tirx.op_build import clone_leaf
from tirx_mlir.transforms.arith_effects import complete_arith_effects
from tirx_mlir.transforms.pattern_classes import ARITH, SCF, PatternTable
from tirx_mlir.type_tests import ClassRef, IsInstance

complete_arith_effects()  # before any FactsByClass reads arith.remui's traits


@dataclass(frozen=True)
class _ClassFacts:
    """What canonicalization asks of an op class."""

    may_be_dead: bool
    """Neither a terminator nor a symbol, and declares its memory effects (else
    `would_be_trivially_dead` is False whatever the op: unknown effects count as observable)."""
    effect_traits: tuple[MemoryEffect, ...]
    """Its memory-effect traits (`get_effects` asks for them at every call)."""
    foldable: bool
    """Has a folder and is not constant-like."""
    folds_constant_operands: bool
    """Its folder is arith's integer binary one, which folds nothing unless an operand is a
    constant its steps use (`FactsByClass.integer_fold_may_fold`)."""
    patterns: tuple[RewritePattern, ...]
    """Its canonicalization patterns, in trait order."""
    fixed_effects: frozenset[EffectInstance] | None = None
    """Its effects when every effect trait states the same ones for every op (`_FIXED_EFFECTS`:
    xDSL's ``Pure``, reads, writes...), else None (asked of the op)."""
    dead_if_unused: bool | None = None
    """`would_be_trivially_dead` of every op of the class, when the class decides it."""
    guarded: tuple[tuple[RewritePattern, int | None], ...] = ()
    """``patterns``, each with the operand it returns at once without (`_NEEDS_CONSTANT`)."""
    terminator: bool = False
    """Has ``IsTerminator`` (``cse`` leaves its ops alone)."""
    isolated_from_above: bool = False
    """Has ``IsolatedFromAbove`` (``cse`` starts its regions with no known ops)."""


_NEEDS_CONSTANT = PatternTable({(ARITH, "SignlessIntegerBinaryOperationZeroOrUnitRight"): 1,
                                (ARITH, "SignlessIntegerBinaryOperationConstantProp"): 0})
"""xDSL's patterns whose first step returns unless operand ``n`` is an ``arith.constant`` of
an integer (`const_evaluate_operand_attribute`), by class (named: `pattern_classes`)."""


_FIXED_EFFECTS = (NoMemoryEffect, MemoryReadEffect, MemoryWriteEffect, MemoryAllocEffect,
                  MemoryFreeEffect)
"""xDSL's effect traits whose ``get_effects`` ignores the op (a constant set)."""

_FIXED_GET_EFFECTS = frozenset(c.get_effects.__func__ for c in _FIXED_EFFECTS)  # type: ignore


def _states_fixed_effects(trait: MemoryEffect) -> bool:
    """Whether ``trait``'s ``get_effects`` is that of one of `_FIXED_EFFECTS` (its class or a
    subclass that keeps it: xDSL's ``Pure`` is ``NoMemoryEffect`` + ``AlwaysSpeculatable``,
    the trait of most arith ops)."""
    function = getattr(type(trait).get_effects, "__func__", None)
    return function in _FIXED_GET_EFFECTS


def _class_facts(op_class: type[Operation]) -> _ClassFacts:
    traits = op_class.get_traits_of_type(HasCanonicalizationPatternsTrait)
    effect_traits = tuple(op_class.get_traits_of_type(MemoryEffect))
    terminator = op_class.has_trait(IsTerminator)
    may_be_dead = not terminator \
        and not op_class.has_trait(SymbolOpInterface) and bool(effect_traits)
    patterns = tuple(_faster(p) for t in traits for p in t.get_patterns(op_class))
    fixed = None
    if effect_traits and all(_states_fixed_effects(t) for t in effect_traits):
        fixed = frozenset(e for t in effect_traits for e in t.get_effects(None))  # type: ignore
    return _ClassFacts(
        may_be_dead=may_be_dead,
        effect_traits=effect_traits,
        foldable=op_class.has_trait(HasFolder) and not op_class.has_trait(ConstantLike),
        folds_constant_operands=getattr(op_class, "fold", None)
        is SignlessIntegerBinaryOperation.fold,
        patterns=patterns,
        guarded=tuple((p, _NEEDS_CONSTANT.get(type(p))) for p in patterns),
        fixed_effects=fixed,
        # an allocation's effect names no value in a fixed set: it is not dead
        dead_if_unused=(False if not may_be_dead else None if fixed is None else
                        all(e.kind == MemoryEffectKind.READ for e in fixed)),
        terminator=terminator,
        isolated_from_above=op_class.has_trait(IsolatedFromAbove, value_if_unregistered=True))


class _Inert(dict[type[Operation], bool]):
    def __init__(self, facts: "FactsByClass") -> None:
        super().__init__()
        self._facts = facts

    def __missing__(self, op_class: type[Operation]) -> bool:
        f = self._facts[op_class]
        found = self[op_class] = not (f.may_be_dead or f.foldable or f.patterns)
        return found


class _EraseOnly(_Inert):
    def __missing__(self, op_class: type[Operation]) -> bool:
        f = self._facts[op_class]
        found = self[op_class] = not (f.foldable or f.patterns)
        return found


def _traits_now(op_class: type) -> object:
    """The set of traits ``op_class`` has now: xDSL's `OpTraits.add_trait` makes a new one, so
    the same object means the same traits (None for a class without traits: a block)."""
    traits = getattr(op_class, "traits", None)
    return traits.traits if isinstance(traits, OpTraits) else None


class FactsByClass(dict[type[Operation], _ClassFacts]):
    """`_ClassFacts` and the other per-class answers, made on first ask. A pass takes the
    process's (`shared`): they hold while no class they know has gained a trait."""

    _shared: "FactsByClass | None" = None

    @classmethod
    def shared(cls) -> "FactsByClass":
        """The process's facts, made anew when a class they answered for has other traits
        now than when they were made (checked at each call: once per pass run)."""
        facts = cls._shared
        if facts is None or any(_traits_now(k) is not t for k, t in facts._traits.items()):
            facts = cls._shared = cls()
        return facts

    def __init__(self) -> None:
        super().__init__()
        self._traits: dict[type, object] = {}
        """Each class answered for, with its traits then (`_traits_now`)."""
        self.inert = _Inert(self)
        """Per class: the canonicalization of its ops never does anything (`_ActiveWorklist`):
        never trivially dead, no folder, no patterns."""
        self.erase_only = _EraseOnly(self)
        """Per class: canonicalization can only erase its ops as dead (no folder, no
        patterns)."""
        self._constant_like: dict[type, bool] = {}
        self._arith_constant: dict[type, bool] = {}
        self._commutative: dict[type, bool] = {}
        self._right_units: dict[tuple[type, IntegerAttr], bool] = {}

    def __missing__(self, op_class: type[Operation]) -> _ClassFacts:
        self._traits[op_class] = _traits_now(op_class)
        found = self[op_class] = _class_facts(op_class)
        return found

    def constant_like(self, value: SSAValue) -> bool:
        """Whether ``value`` is the result of a constant-like op."""
        owner = value.owner
        op_class = type(owner)
        known = self._constant_like.get(op_class)
        if known is None:
            self._traits[op_class] = _traits_now(op_class)
            known = self._constant_like[op_class] = isinstance(owner, Operation) and \
                op_class.has_trait(ConstantLike)
        return known

    def int_constant(self, value: SSAValue) -> bool:
        """`const_evaluate_operand_attribute` finds ``value``'s: its op is an
        ``arith.constant`` (or a subclass) of an integer."""
        owner = value.owner
        op_class = type(owner)
        known = self._arith_constant.get(op_class)
        if known is None:
            known = self._arith_constant[op_class] = issubclass(op_class, arith.ConstantOp)
        return known and isinstance(owner.properties["value"], IntegerAttr)

    def integer_fold_may_fold(self, op: SignlessIntegerBinaryOperation) -> bool:
        """False when arith's integer binary folder (`SignlessIntegerBinaryOperation.fold`)
        surely returns None on ``op``: its steps, on the operands' constants (an
        ``arith.constant``'s value; any other constant-like producer: True, not decided here),
        with ``is_right_unit`` kept per class and attribute."""
        consts = []
        for v in op._operands:  # lhs, rhs  # noqa: SLF001
            owner = v.owner
            if type(owner) is arith.ConstantOp:
                consts.append(owner.properties["value"])
            elif self.constant_like(v):
                return True
            else:
                consts.append(None)
        lhs, rhs = consts
        lhs_int, rhs_int = isinstance(lhs, IntegerAttr), isinstance(rhs, IntegerAttr)
        if lhs_int and rhs_int and \
                op.py_operation(lhs.value.data, rhs.value.data) is not None:
            return True
        op_class = type(op)
        if rhs_int and self._right_unit(op_class, rhs):
            return True
        commutative = self._commutative.get(op_class)
        if commutative is None:
            self._traits[op_class] = _traits_now(op_class)
            commutative = self._commutative[op_class] = op_class.has_trait(Commutative)
        return commutative and lhs_int and self._right_unit(op_class, lhs)

    def _right_unit(self, op_class: type, attr: IntegerAttr) -> bool:
        key = (op_class, attr)
        known = self._right_units.get(key)
        if known is None:
            known = self._right_units[key] = bool(op_class.is_right_unit(attr))
        return known

    def effects(self, op: Operation) -> set[EffectInstance] | None:
        """`xdsl.traits.get_effects` (None: unknown), the traits looked up once per class and
        `RecursiveMemoryEffect`'s walk of the nested ops done here."""
        facts = self[type(op)]
        if facts.fixed_effects is not None:
            return facts.fixed_effects  # type: ignore[return-value] - read only
        traits = facts.effect_traits
        if not traits:
            return None
        effects: set[EffectInstance] = set()
        for trait in traits:
            if type(trait) is RecursiveMemoryEffect:
                for region in op.regions:
                    for block in region.blocks:
                        for child in block.ops:
                            child_effects = self.effects(child)
                            if child_effects is None:
                                return None
                            effects.update(child_effects)
                continue
            found = trait.get_effects(op)
            if found is None:
                return None
            effects.update(found)
        return effects

    def would_be_trivially_dead(self, op: Operation) -> bool:
        """`xdsl.transforms.dead_code_elimination.would_be_trivially_dead`."""
        known = self[type(op)].dead_if_unused
        if known is not None:
            return known
        effects = self.effects(op)
        return effects is not None and all(
            e.kind == MemoryEffectKind.READ
            or (e.kind == MemoryEffectKind.ALLOC and isinstance(v := e.value, SSAValue)
                and op.is_ancestor(v.owner))
            for e in effects)


_IS_FOR = IsInstance(ClassRef("xdsl.dialects.scf", "ForOp"))  # scf unimported without loops


class _RehoistConstInLoops(RewritePattern):
    """xDSL's `RehoistConstInLoops` (every constant-like op of a loop body's top level cloned
    before the loop, the copy taking its uses), whether an op is constant-like kept per class
    (xDSL asks each op's traits at each visit of its loop). Under this module's driver an op
    without operands, successors or regions (every constant) is moved before the loop instead
    (`_Rewriter.hoist_leaf`: the same IR and the same worklist as the clone's insertion, the
    replacement and the erasure leave; its users, which read only its value, stay settled);
    otherwise the clone is made without xDSL's builder (`op_build.clone_leaf`)."""

    def __init__(self) -> None:
        self._constant_like: dict[type, bool] = {}

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not _IS_FOR(op):
            return
        known = self._constant_like
        movable = type(rewriter) is _Rewriter and rewriter.walker is not None
        child_op = op.body.block.first_op
        while child_op is not None:
            following = child_op._next_op  # noqa: SLF001 - read before the op moves
            op_class = type(child_op)
            constant = known.get(op_class)
            if constant is None:
                constant = known[op_class] = op_class.has_trait(ConstantLike)
            if not constant:
                pass
            elif movable and not (child_op.regions or child_op._operands  # noqa: SLF001
                                  or child_op._successors):  # noqa: SLF001
                rewriter.hoist_leaf(child_op)  # type: ignore[attr-defined]
            else:
                rewriter.insert(new_const := clone_leaf(child_op))
                rewriter.replace(child_op, (), new_const.results)
            child_op = following


_FASTER = PatternTable({(SCF, "RehoistConstInLoops"): _RehoistConstInLoops})
"""xDSL's patterns replaced by an equivalent that costs less, by class (named:
`pattern_classes`)."""


def _faster(pattern: RewritePattern) -> RewritePattern:
    replacement = _FASTER.get(type(pattern))
    return pattern if replacement is None else replacement()


def unused(op: Operation) -> bool:
    """No result of ``op`` has a use (one result, the most common case, without a generator)."""
    results = op.results
    if len(results) == 1:
        (result,) = results
        return result.first_use is None
    return all(r.first_use is None for r in results)


@dataclass
class _CanonicalizeOp(RewritePattern):
    """xDSL's ``GreedyRewritePatternApplier([CanonicalizationRewritePattern()], ctx,
    folding_enabled=True)`` with the class facts looked up once."""

    folder: Folder
    facts: FactsByClass
    settled: Settled | None = None
    """What the run knows does nothing (`canonicalize_settled`): told of each try that does
    nothing, and of an action it cannot follow."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        facts = self.facts[type(op)]
        if unused(op) and self.facts.would_be_trivially_dead(op):
            rewriter.erase(op)
            return
        settled = self.settled
        if facts.foldable and (not facts.folds_constant_operands or
                               self.facts.integer_fold_may_fold(op)):
            folded = self.folder.try_fold(op)
            if folded is not None:
                rewriter.replace(op, new_ops=folded[1], new_results=folded[0])
                if settled is not None and not facts.folds_constant_operands:
                    settled.forget()  # another folder: not followed
                return
        operands = op._operands  # noqa: SLF001
        for pattern, needs in facts.guarded:
            if needs is not None and not self.facts.int_constant(operands[needs]):
                continue  # the pattern's first step returns
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                if settled is not None and type(pattern) not in settled.tracked_actions:
                    settled.forget()
                return
        if settled is not None:
            settled.tried(op)


@dataclass
class _MemoLiveSet(LiveSet):
    """xDSL's `LiveSet` with `would_be_trivially_dead` kept per op for one DCE call."""

    facts: FactsByClass = field(default_factory=FactsByClass)
    _dead_if_unused: dict[Operation, bool] = field(default_factory=dict)

    def propagate_op_liveness(self, op: Operation) -> None:
        for region in op.regions:
            self.propagate_region_liveness(region)
        if self.is_live(op):
            return
        dead = self._dead_if_unused.get(op)
        if dead is None:
            dead = self._dead_if_unused[op] = self.facts.would_be_trivially_dead(op)
        if not dead or any(self.is_live(use.operation)
                           for result in op.results for use in result.uses):
            self.set_live(op)


def _live_ops(region: Region, facts: FactsByClass) -> tuple[set[int], bool] | None:
    """The live set `_MemoLiveSet`'s fixpoint reaches on ``region``, found in one walk: the
    least set holding every op that is not trivially dead without uses and the op defining
    each operand of an op it holds (the fixpoint's rule read backwards: an op is live when a
    user of its results is), as the ops' ``id``s (the IR is not changed meanwhile: no id is
    reused; an op's hash is a Python call), and whether it holds every op of ``region``. None
    when a region inside has several blocks (only the blocks reachable from its entry are
    walked there: the fixpoint is run as xDSL's)."""
    live: set[int] = set()
    stack: list[Operation] = []
    regions = [region]
    by_class: dict[type, bool | None] = {}
    unused_dead: list[Operation] = []
    while regions:
        blocks = regions.pop().blocks
        if len(blocks) != 1:
            if len(blocks) > 1:
                return None
            continue
        op = blocks.first._first_op  # noqa: SLF001 - the block's ops by their links
        while op is not None:
            if op.regions:
                regions.extend(op.regions)
            kind = type(op)
            dead = by_class.get(kind, _UNASKED)
            if dead is _UNASKED:
                dead = by_class[kind] = facts[kind].dead_if_unused
            if dead is None:
                dead = facts.would_be_trivially_dead(op)
            if dead:
                unused_dead.append(op)
            else:
                live.add(id(op))
                stack.append(op)
            op = op._next_op  # noqa: SLF001
    while stack:
        for value in stack.pop()._operands:  # noqa: SLF001
            if type(value) is OpResult:  # the common case, without the `owner` property
                owner = value.op
            elif isinstance(value, BlockArgument):
                continue
            else:
                owner = value.owner
                if not isinstance(owner, Operation):
                    continue
            key = id(owner)
            if key not in live:
                live.add(key)
                stack.append(owner)
    for op in unused_dead:
        if id(op) not in live:
            return live, False
    return live, True


_UNASKED = object()


def region_dce(region: Region, listener: PatternRewriterListener | None,
               facts: FactsByClass, settled: Settled | None = None) -> bool:
    """`xdsl.transforms.dead_code_elimination.region_dce`, its live set from `_live_ops` (or
    `_MemoLiveSet`'s fixpoint), its deletions xDSL's (`LiveSet.delete_dead`: the same order of
    erasures, told to the listener; it asks only ops of ``region`` whether they are live).
    When every op is live (each region one block) nothing is deleted and xDSL's walk of the
    region that finds so is skipped. With ``settled`` (a canonicalize run's), when the changes
    since the last DCE can have made nothing dead (`Settled.nothing_dead`), nothing is walked."""
    if settled is not None and settled.nothing_dead(region):
        settled.after_dce(True)
        return False
    found = _live_ops(region, facts)
    if settled is not None:
        if found is None:
            settled.forget()  # xDSL's deletions may erase whole blocks, unheard
        settled.after_dce(found is not None)  # what is left is live: changes followed from here
    if found is None:
        live_set = _MemoLiveSet(facts=facts)
        while live_set.changed:
            live_set.changed = False
            live_set.propagate_region_liveness(region)
    else:
        live, all_live = found
        if all_live:
            return False
        ops = {op for op in region.walk() if id(op) in live}
        live_set = _MemoLiveSet(changed=False, _live_ops=ops, facts=facts)
    live_set.delete_dead(region, listener)
    return live_set.changed


class _ActiveWorklist(Worklist):
    """xDSL's `Worklist` that never holds an op of an inert class (`_ClassFacts.inert`): the
    pattern does nothing on such an op whenever it is popped, and an op the worklist does not
    hold does not change where the others are, so the rewrites are xDSL's, in its order. Its
    map is keyed by the ops' ``id`` (an op's hash is a Python call; an op in the map is on the
    stack too, so its id is not reused meanwhile)."""

    def __init__(self, facts: FactsByClass) -> None:
        super().__init__()
        self._inert = facts.inert

    def push(self, item: Operation) -> None:
        key = id(item)
        if key not in self._map and not self._inert[type(item)]:
            self._map[key] = len(self._stack)
            self._stack.append(item)

    def pop(self) -> Operation:
        stack = self._stack
        try:
            while (item := stack.pop()) is _MISSING:
                pass
        except IndexError:
            raise IndexError("pop from empty worklist") from None
        del self._map[id(item)]
        return item

    def remove(self, item: Operation) -> None:
        index = self._map.pop(id(item), None)
        if index is not None:
            self._stack[index] = _MISSING


class _Rewriter(PatternRewriter):
    """xDSL's `PatternRewriter` whose erasures and redirections make the changes xDSL's make,
    told to the listener in the same order, without the work that changes nothing: an erased
    op's results without uses get no ``ErasedSSAValue`` (`ir_uses.erase_op`), and uses are
    moved without a view per use (`ir_uses.replace_uses`). The insertion point the driver sets
    before each try (`point_before`) is made when a pattern first reads it: most tries insert
    nothing."""

    _point: InsertPoint | None = None
    _anchor: tuple[Block, Operation] | None = None
    walker: "_Walker | None" = None
    """The driver whose worklist and knowledge `hoist_leaf` keeps (set by `_Walker`)."""

    @property
    def insertion_point(self) -> InsertPoint:  # type: ignore[override]
        point = self._point
        if point is None:
            block, op = self._anchor  # type: ignore[misc]
            # what ``InsertPoint.before(op)`` made when the try began (its check passed then:
            # ``op`` was in ``block``), though ``op`` may have moved since
            point = object.__new__(InsertPoint)
            object.__setattr__(point, "block", block)
            object.__setattr__(point, "insert_before", op)
            self._point = point
        return point

    @insertion_point.setter
    def insertion_point(self, point: InsertPoint) -> None:
        self._point = point

    def point_before(self, op: Operation) -> None:
        """``insertion_point = InsertPoint.before(op)`` (its error for an op in no block), the
        point made when first read."""
        block = op.parent
        if block is None:
            raise ValueError("Operation insertion point must have a parent block")
        self._point, self._anchor = None, (block, op)

    def erase(self, op: Operation, safe_erase: bool = True) -> None:
        self.has_done_action = True
        self.handle_operation_removal(op)
        erase_op(op, safe_erase=safe_erase)

    def hoist_leaf(self, op: Operation) -> None:
        """Move ``op`` (no operands, successors or regions) to the insertion point, where
        ``insert(clone)`` then ``replace(op, (), clone.results)`` would leave its clone: the
        same IR (the clone has ``op``'s class, properties, attributes, location, result types
        and name hints, and takes its uses) without an op built, uses moved and an op erased.
        The walker's worklist ends as after those (`_Walker.leaf_moved`), and its own
        listener (`changes.ChangeLog`) hears a move: ``op`` removed from its block, then
        inserted."""
        walker = self.walker
        assert walker is not None
        point = self.insertion_point
        self.has_done_action = True
        configured = walker.listener
        for handler in configured.operation_removal_handler:
            if isinstance(log := getattr(handler, "__self__", None), ChangeLog):
                log.moving(op)  # the same op: its users need only their dominance checked
            handler(op)
        op.parent.detach_op(op)  # type: ignore[union-attr]
        if point.insert_before is None:
            insert_at_end(op, point.block)
        else:
            insert_before(op, point.insert_before)
        if self._name_hint is not None:  # what `Builder.insert` gives the clone
            for result in op.results:
                if result.name_hint is None:
                    result._name = self._name_hint  # noqa: SLF001
        for handler in configured.operation_insertion_handler:
            handler(op)
        walker.leaf_moved(op)

    def replace_all_uses_with(self, from_value: SSAValue, to_value: SSAValue | None,
                              safe_erase: bool = True) -> None:
        if to_value is None or from_value is to_value:
            super().replace_all_uses_with(from_value, to_value, safe_erase)
            return
        modified_ops = []
        use = from_value.first_use
        while use is not None:
            modified_ops.append(use.operation)
            use = use._next_use  # noqa: SLF001
        replace_uses(from_value, to_value)
        if modified_ops:
            self.has_done_action = True
        for user in modified_ops:
            self.handle_operation_modification(user)


@dataclass(eq=False)
class _Walker(PatternRewriteWalker):
    """xDSL's `PatternRewriteWalker` whose worklist loop skips, without setting up the
    rewriter, an op whose results are used when its class can only be erased as dead (no
    folder, no pattern: `FactsByClass.erase_only`; most are constants); every other step is
    xDSL's `_process_worklist`, in its order."""

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        """xDSL's (every op, by a reverse walk, regions first), the walk by the blocks' and
        ops' links (nothing changes meanwhile)."""
        if not isinstance(op, Region):
            super()._populate_worklist(op)
            return
        worklist = self._worklist
        held, stack, inert = worklist._map, worklist._stack, worklist._inert  # noqa: SLF001

        def visit(region: Region) -> None:
            block = region._last_block  # noqa: SLF001 - blocks and ops by their links
            while block is not None:
                inner = block._last_op  # noqa: SLF001
                while inner is not None:
                    if inner.regions:
                        for r in reversed(inner.regions):
                            visit(r)
                    key = id(inner)
                    if key not in held and not inert[type(inner)]:
                        held[key] = len(stack)
                        stack.append(inner)
                    inner = inner._prev_op  # noqa: SLF001
                block = block._prev_block  # noqa: SLF001

        visit(op)

    settled: Settled | None = None
    """The run's `Settled`: an op it knows does nothing is popped without a try; it hears of
    every change (`_handle_operation_*`)."""

    # The rewriter's listener: xDSL's handlers (the worklist pushes and removals, in their
    # order), with the values' uses and owners read by their links and exact classes instead of
    # `has_one_use`, `uses` generators and ABC `isinstance`s; then `Settled` hears the change.

    def _handle_operation_insertion(self, op: Operation) -> None:
        if self.apply_recursively:
            self._worklist.push(op)
        if self.settled is not None:
            self.settled.inserted(op)

    def _handle_operation_removal(self, op: Operation) -> None:
        worklist = self._worklist
        if self.apply_recursively:  # the single-use definers of its operands
            for operand in op._operands:  # noqa: SLF001
                first = operand.first_use
                if first is None or first._next_use is not None:  # noqa: SLF001
                    continue
                kind = type(operand)
                if kind is OpResult:
                    worklist.push(operand.op)
                elif kind is not ErasedSSAValue and kind is not BlockArgument and \
                        not isinstance(operand, ErasedSSAValue) and \
                        isinstance(owner := operand.owner, Operation):
                    worklist.push(owner)
        if op.regions:
            for sub_op in walk_ops(op):
                worklist.remove(sub_op)
        else:
            worklist.remove(op)
        if self.settled is not None:
            self.settled.removed(op)

    def _handle_operation_modification(self, op: Operation) -> None:
        if self.apply_recursively:
            self._worklist.push(op)
        if self.settled is not None:
            self.settled.modified(op)

    def _handle_operation_replacement(self, op: Operation,
                                      new_results: Sequence[SSAValue | None]) -> None:
        if self.apply_recursively:
            push = self._worklist.push
            for result in op.results:
                use = result.first_use
                while use is not None:
                    push(use.operation)
                    use = use._next_use  # noqa: SLF001
        if self.settled is not None:
            self.settled.replaced(op, new_results)

    def leaf_moved(self, op: Operation) -> None:
        """``op`` (no operands, successors or regions) moved (`_Rewriter.hoist_leaf`): the
        worklist as the clone's insertion, the replacement and the erasure leave it (``op``
        out, then pushed on top as the clone is, then its users as the replacement pushes
        them, in use order; the modifications push nothing new), and `Settled.moved`."""
        worklist = self._worklist
        worklist.remove(op)
        if self.apply_recursively:
            push = worklist.push
            push(op)
            for result in op.results:
                use = result.first_use
                while use is not None:
                    push(use.operation)
                    use = use._next_use  # noqa: SLF001
        if self.settled is not None:
            self.settled.moved(op)

    def _process_worklist(self, listener: PatternRewriterListener) -> bool:
        rewriter_has_done_action = False
        worklist = self._worklist
        if not worklist:
            return rewriter_has_done_action
        op = worklist.pop()
        rewriter = _Rewriter(op)
        rewriter.extend_from_listener(listener)
        rewriter.walker = self
        pattern = self.pattern
        erase_only = pattern.facts.erase_only
        clean = self.settled.clean if self.settled is not None else {}
        held, stack = worklist._map, worklist._stack  # noqa: SLF001 - `_ActiveWorklist`'s
        while True:
            if not (erase_only[type(op)] and not unused(op)) and id(op) not in clean:
                rewriter.has_done_action = False
                rewriter.current_operation = op
                rewriter.point_before(op)  # `InsertPoint.before(op)`, made when read
                rewriter.name_hint = None
                try:
                    pattern.match_and_rewrite(op, rewriter)
                except Exception as err:
                    op.emit_error(f"Error while applying pattern: {err}", underlying_error=err)
                rewriter_has_done_action |= rewriter.has_done_action
            if not held:  # `not worklist`: what the stack still holds was removed
                stack.clear()
                return rewriter_has_done_action
            while (op := stack.pop()) is _MISSING:  # `worklist.pop()`
                pass
            del held[id(op)]


def run_knowledge(facts: FactsByClass) -> Settled:
    """A new `Settled` for one run, which follows this module's rehoisting pattern too."""
    return Settled(facts, frozenset({_RehoistConstInLoops}))


class FastCanonicalizePass(CanonicalizePass):
    """``canonicalize``: the same IR as xDSL's pass, the class facts looked up once."""

    REPORTS_CHANGES = True  # through the rewriter's listener (`tirx_mlir.verification`)
    DETERMINISTIC = True  # its rewrites depend on the IR alone (`pipelines._Unchanged`)
    LEAVES_NO_DEAD_OPS = True  # its last sweep ends with a region DCE that found nothing

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        facts = FactsByClass.shared()
        settled = run_knowledge(facts)
        walker = _Walker(_CanonicalizeOp(Folder(ctx), facts, settled),
                         post_walk_func=lambda region, listener:
                         region_dce(region, listener, facts, settled),
                         listener=change_listener())
        walker.settled = settled
        walker._worklist = _ActiveWorklist(facts)  # noqa: SLF001
        walker.rewrite_module(op)
