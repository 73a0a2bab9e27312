"""Print-time unrolling for the PTX printer: loops over a thread's local arrays expanded.

Dispatch rolls a register tile's rounds into ``scf.for`` loops (`dispatch.rounds`) whose body
indexes the tile's local array with an affine function of the induction variables. The IR,
the interpreters and ``-t cuda`` (``#pragma unroll`` over a C array) keep the loop; PTX
registers cannot be indexed, so before printing, `expand_register_loops` rewrites a copy of
the module (the input is never changed):

* a loop **must be expanded** when its body (nested ops included) loads or stores a local
  array at an index that depends on the loop's induction variable or carried values;
* it is expanded by cloning its body once per iteration in place of the loop, the induction
  variable a constant, the carried values the previous iteration's yields, the results the
  last yields; each clone is **folded** as it is made (`_fold`: the ``arith`` folders,
  ``index_cast`` of a constant, ``x + 0``, ``x * 1``), so the array index of every access is a
  constant and `local_registers.promotable` names each element's register, as if dispatch had
  unrolled the rounds itself (``(x + c1) + c2`` becomes ``x + (c1 + c2)``, as an unrolled
  round's ``thread part + constant``); constants and equal ``arith`` ops are made once per
  block (the CSE the unrolled rounds got in the pipeline: equal comparisons of a causal
  mask, loop-invariant index arithmetic);
* inner loops first, siblings in program order (each expansion's ops then come after every
  earlier one's in its block, so constants and equal ops are shared safely); an outer loop
  is expanded once its inner loops are, its index arithmetic folding the rest;
* a loop that must be expanded but whose bounds are not constants, or with more than
  `MAX_ITERATIONS` iterations, is a located error at the loop.

The printer runs these decisions without copying where it can (expansion_plan.py: the same
expansion as records, printed in the loops' place by direct_loops.py); this copy remains for
the loops the plan does not cover (carried values, nested regions, other ops), and is the
reference the plan is tested against (tests/backends/cuda/printers/ptx/test_direct_loops.py).

Cost: this expansion is most of ``-t ptx``'s time on register-tile kernels (thousands of
copied ops), so the module copy and every op copy go through `copy_tree` / `copy_op`, which set
an op's fields directly (what xDSL's ``clone`` makes, about a fifth of its time; the test
compares them), and the placed constants' values are remembered (`Expander.ints`) instead of
read back from their ops. The printer pauses the cyclic garbage collector while it expands and
prints (`tirx_mlir.gc_pause.collector_paused`): the copies are thousands of new objects with
reference cycles, which otherwise trigger collections that rescan every live IR object
(bench/README.md).
"""

from __future__ import annotations

from typing import Callable

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.folder import Folder
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue, SSAValues, Use
from xdsl.traits import HasFolder

from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.memory import LOCAL
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.op_build import arith_constant, integer_attr
from tirx_mlir.type_tests import IsInstance

MAX_ITERATIONS = 1024
"""The most iterations one expanded loop may have (its body is printed that many times)."""

Fail = Callable[[str, Operation], Exception]


def needs_expansion(loop: scf.ForOp) -> bool:
    """Whether ``loop``'s body accesses a local array at an index that depends on the loop's
    induction variable or carried values (module docstring)."""
    return _varying_local_access(loop.body, set(map(id, loop.body.block.args)))


_IS_LOAD_STORE = IsInstance(LoadOp, StoreOp)


def _varying_local_access(region: Region, varying: set[int]) -> bool:
    """`needs_expansion`'s walk of ``region`` (its ops in ``Region.walk``'s order: an op, then
    its regions), ``varying`` the ids of the values that vary with the loop (grown with the
    results of each op reading one): the ops followed by their links, values by ``id``
    (xDSL hashes a value in Python)."""
    for block in region.blocks:
        op = block._first_op  # noqa: SLF001
        while op is not None:
            if _IS_LOAD_STORE(op) and id(op.index) in varying and _local(op.memory):
                return True
            for v in op._operands:  # noqa: SLF001
                if id(v) in varying:
                    varying.update(map(id, op.results))
                    break
            for inner in op.regions:
                if _varying_local_access(inner, varying):
                    return True
            op = op._next_op  # noqa: SLF001
    return False


def expand_register_loops(module: ModuleOp, fail: Fail,
                          loops: list[scf.ForOp] | None = None) -> ModuleOp:
    """``module``, or a copy of it with every loop that `needs_expansion` expanded
    (``loops``: `_expanded_loops` of it, when known)."""
    loops = _expanded_loops(module) if loops is None else loops
    if not loops:
        return module
    expander = Expander(fail)
    for loop in loops:  # refused in the input, where errors have locations
        expander.bounds(loop)
    copies: dict[Operation, Operation] = {}
    module = copy_tree(module, {}, copies)
    for loop in loops:  # the copy's loops, in the same order (`_expanded_loops`)
        expander.expand(copies[loop])
    return module


class Expander:
    """Expands loops (innermost first, `_expanded_loops`), sharing constants and equal ``arith``
    ops per block: one block's expansions come in program order, so what an earlier one
    placed dominates every later one.

    Cost (the PTX printer's largest part): a region-free op is copied by `copy_op` (fields set
    directly, not through xDSL's ``clone``), and the integer constants it places are built by
    `arith_constant` and remembered in `ints`, so folding reads their values from a dict.
    Values, blocks, types and op shapes are keyed by ``id`` or by a number (xDSL hashes a
    value or a block in Python, a type or a shape by all its parameters, at every look-up);
    every object whose ``id`` a key holds is kept alive (`alive`, or the dict's own entry), so
    no ``id`` is reused while the expander lives."""

    def __init__(self, fail: Fail) -> None:
        self.fail = fail
        self.folder = Folder(_context())
        self.known: dict[tuple[int, tuple[int, ...], int], tuple[SSAValue, ...]] = {}
        """(id of a block, ids of an arith op's operands, its shape's number) -> the values
        already computed before the loop."""
        self.constants: dict[tuple[int, int, int], SSAValue] = {}
        """(id of a block, value, its type's number) -> the constant placed there."""
        self.ints: dict[int, tuple[SSAValue, int]] = {}
        """id of an integer constant placed by `constant` -> (it, its value)."""
        self.facts: dict[int, _OpFacts] = {}
        """id of an op cloned -> what `clone` asks of it (a loop body's ops are cloned once
        per iteration; a clone is never changed once placed); the facts keep the op."""
        self.shapes: dict[tuple, int] = {}
        """`_shape` -> its number (equal shapes, one number)."""
        self.types: dict[int, tuple[object, int]] = {}
        """id of a type -> (it, its number); equal types, one number (`type_numbers`)."""
        self.type_numbers: dict[object, int] = {}
        self.templates: dict[int, tuple[object, arith.ConstantOp]] = {}
        """id of a type -> (it, a constant of it to copy: `new_constant`)."""
        self.alive: list[object] = []
        """The blocks and operand tuples whose ids `known` and `constants` keys hold."""

    def int_value(self, value: SSAValue) -> int | float | None:
        """`constant_value`, read from `ints` for the constants this expander placed."""
        known = self.ints.get(id(value))
        return constant_value(value) if known is None else known[1]

    def new_constant(self, value: int, t) -> arith.ConstantOp:
        """``arith_constant(value, t)``: a copy of one such constant per type object, its
        value set (the same class, type, properties, attributes and location)."""
        known = self.templates.get(id(t))
        if known is None:
            known = self.templates[id(t)] = (t, arith_constant(0, t))
        op = copy_op(known[1], [])
        op.properties = {"value": integer_attr(value, t)}
        return op

    def shape_number(self, shape: tuple) -> int:
        return self.shapes.setdefault(shape, len(self.shapes))

    def type_number(self, t: object) -> int:
        known = self.types.get(id(t))
        if known is None:
            known = self.types[id(t)] = \
                (t, self.type_numbers.setdefault(t, len(self.type_numbers)))
        return known[1]

    def expand(self, loop: scf.ForOp) -> None:
        """Replace ``loop`` by one folded copy of its body per iteration."""
        lb, ub, step = self.bounds(loop)
        block = loop.body.block
        parent = loop.parent_block()
        self.alive.append(parent)
        iv, carried = block.args[0], block.args[1:]
        body = list(block.ops)
        values: list[SSAValue] = list(loop.iter_args)
        for i in range(lb, ub, step):
            mapping: dict[int, SSAValue] = {id(arg): v for arg, v in zip(carried, values)}
            mapping[id(iv)] = self.constant(loop, parent, i, iv.type)
            for op in body:
                if isinstance(op, scf.YieldOp):
                    values = [mapping.get(id(v), v) for v in op._operands]
                    break
                self.clone(loop, parent, op, mapping)
        for result, value in zip(loop.results, values):
            result.replace_all_uses_with(value)
        loop.detach()
        loop.erase()

    def bounds(self, loop: scf.ForOp) -> tuple[int, int, int]:
        bounds = [constant_value(v) for v in (loop.lb, loop.ub, loop.step)]
        why = "this loop indexes a thread's local array (registers in PTX) with its " \
              "induction variable, so it must be unrolled, but "
        if not all(isinstance(x, int) for x in bounds) or bounds[2] <= 0:
            raise self.fail(why + "its bounds and step are not constants (a positive step)",
                            loop)
        lb, ub, step = bounds
        if len(range(lb, ub, step)) > MAX_ITERATIONS:
            raise self.fail(why + f"it has {len(range(lb, ub, step))} iterations (at most "
                                  f"{MAX_ITERATIONS})", loop)
        return lb, ub, step

    def clone(self, loop: scf.ForOp, block: Block, op: Operation,
              mapping: dict[int, SSAValue]) -> None:
        """Clone ``op`` before ``loop`` (in ``block``) with ``mapping`` (id of a value of the
        body -> its value in this iteration): folded when its operands allow, an equal
        ``arith`` op's results when one was computed already."""
        operands = [mapping.get(id(v), v) for v in op._operands]
        facts = self.facts.get(id(op))
        if facts is None:  # an op of a loop body is cloned once per iteration
            facts = self.facts[id(op)] = _OpFacts(op, self)
        folded = self.fold_constants(loop, block, op, operands) if facts.cheap else None
        first_key = None
        shape = facts.shape
        if folded is None and shape is not None:  # an equal op already made: no clone
            first_key = (id(block), tuple(map(id, operands)), shape)
            folded = self.known.get(first_key)
        if folded is not None:
            for result, value in zip(op.results, folded):
                mapping[id(result)] = value
            return
        if facts.nested:
            new = copy_tree(op, mapping, {})
        else:  # most ops: `copy_tree`'s own step, without its region walk
            new = copy_op(op, operands)
            mapping.update(zip(map(id, op.results), new.results))
        folded = self.fold(loop, block, new) if facts.may_fold else None
        key = None
        if folded is None and shape is not None:
            if new.properties != op.properties:  # reassociated: other overflow flags
                shape = self.shape_number(_shape(new))
            key = (id(block), tuple(map(id, new._operands)), shape)
            folded = self.known.get(key)
            if folded is None:
                self.known[first_key] = tuple(new.results)
                self.alive.append(operands)
        if folded is None:
            _insert_before(block, new, loop)
            if key is not None:
                self.known[key] = tuple(new.results)
                self.alive.append(new._operands)
            return
        for result, value in zip(op.results, folded):
            mapping[id(result)] = value
        _discard(new)

    def fold_constants(self, loop: scf.ForOp, block: Block, op: Operation,
                       operands: list[SSAValue]) -> list[SSAValue] | None:
        """Without cloning (the common cases, cheap): an integer constant, an index cast of
        one, ``+ - *`` of two, ``x + 0``, ``x * 1``; None otherwise. ``op`` is of a class of
        `_CHEAP` (one result; its fields read without xDSL's accessors)."""
        kind = type(op)
        result, = op.results
        t = result.type
        if kind is arith.ConstantOp:
            value = self.int_value(result)
            if isinstance(value, int) and isinstance(t, (IndexType, IntegerType)):
                return [self.constant(loop, block, value, t)]
            return None
        if kind is arith.IndexCastOp:
            value = self.int_value(operands[0])
            return [self.constant(loop, block, value, t)] if isinstance(value, int) else None
        lhs, rhs = operands
        a, b = self.int_value(lhs), self.int_value(rhs)
        if isinstance(a, int) and isinstance(b, int):
            value = _EXACT[kind](a, b)
            bits = 64 if isinstance(t, IndexType) else t.width.data
            if -(1 << (bits - 1)) <= value < (1 << (bits - 1)):
                return [self.constant(loop, block, value, t)]
            return None
        unit = 1 if kind is arith.MuliOp else 0
        if b == unit:
            return [lhs]
        if a == unit and kind is not arith.SubiOp:
            return [rhs]
        return None

    def fold(self, loop: scf.ForOp, block: Block, op: Operation) -> list[SSAValue] | None:
        """The values ``op`` (of a class `_may_fold` admits) folds to (constants placed
        before ``loop``), or None."""
        if isinstance(op, arith.ConstantOp):
            value = self.int_value(op.result)
            if isinstance(value, int) and isinstance(op.result.type, (IndexType, IntegerType)):
                return [self.constant(loop, block, value, op.result.type)]
            return None
        if isinstance(op, arith.IndexCastOp):
            value = self.int_value(op.input)
            return None if value is None else \
                [self.constant(loop, block, value, op.result.type)]
        self.reassociate(loop, block, op)
        identity = self.identity(op)
        if identity is not None:
            return [identity]
        if not all(isinstance(self.int_value(v), int) for v in op._operands):
            return None
        folded = self.folder.try_fold(op)
        if folded is None:
            return None
        results, new_ops = folded
        out = []
        for value in results:
            c = self.int_value(value)
            out.append(self.constant(loop, block, c, value.type) if isinstance(c, int) else value)
        for new_op in new_ops:
            new_op.erase(safe_erase=False)
        return out

    def reassociate(self, loop: scf.ForOp, block: Block, op: Operation) -> None:
        """``(x + c1) + c2`` -> ``x + (c1 + c2)`` in place (one add per index, as an unrolled
        round's ``thread part + constant``); the add keeps the overflow flags both had."""
        if not isinstance(op, arith.AddiOp):
            return
        operands = tuple(op._operands)
        for side in (0, 1):
            outer_c, add = self.int_value(operands[1 - side]), operands[side].owner
            if not isinstance(outer_c, int) or not isinstance(add, arith.AddiOp):
                continue
            add_lhs, add_rhs = add._operands
            for x, c1 in ((add_lhs, add_rhs), (add_rhs, add_lhs)):
                inner_c = self.int_value(c1)
                if isinstance(inner_c, int) and not isinstance(self.int_value(x), int):
                    op.operands[side] = x
                    op.operands[1 - side] = self.constant(loop, block, inner_c + outer_c,
                                                          op.result.type)
                    flags = set(op.overflow_flags.data) & set(add.overflow_flags.data)
                    op.properties["overflowFlags"] = arith.IntegerOverflowAttr(flags or "none")
                    return

    def identity(self, op: Operation) -> SSAValue | None:
        """``x`` for ``x + 0``, ``0 + x``, ``x - 0``, ``x * 1`` and ``1 * x``."""
        unit = _UNITS.get(type(op))
        if unit is None:
            return None
        lhs, rhs = op._operands
        if self.int_value(rhs) == unit:
            return lhs
        if self.int_value(lhs) == unit and not isinstance(op, arith.SubiOp):
            return rhs
        return None

    def constant(self, loop: scf.ForOp, block: Block, value: int, t) -> SSAValue:
        """One ``arith.constant`` per block, value and type (placed before ``loop``)."""
        key = (id(block), value, self.type_number(t))
        result = self.constants.get(key)
        if result is None:
            op = self.new_constant(value, t)
            _insert_before(block, op, loop)
            result = self.constants[key] = op.result
            self.ints[id(result)] = (result, value)
        return result


_EXACT = {arith.AddiOp: lambda a, b: a + b, arith.SubiOp: lambda a, b: a - b,
          arith.MuliOp: lambda a, b: a * b}
"""Integer ops `Expander.fold_constants` computes (exact; a result out of range is left to
the op)."""
_CHEAP = {arith.ConstantOp, arith.IndexCastOp, *_EXACT}
"""The op classes `Expander.fold_constants` may fold (others go straight to a copy)."""
_UNITS = {arith.AddiOp: 0, arith.SubiOp: 0, arith.MuliOp: 1}
"""The unit of each op `Expander.identity` drops (``x + 0``, ``x * 1``)."""


class _OpFacts:
    """What `Expander.clone` asks of an op it clones: whether `Expander.fold_constants`
    may fold it (``cheap``), the number of its `_shape` when it is `_pure` (else None),
    whether it has regions or successors (``nested``: copied by `copy_tree`), whether its
    copy may fold (`_may_fold`)."""

    __slots__ = ("op", "cheap", "shape", "nested", "may_fold")

    def __init__(self, op: Operation, expander: Expander) -> None:
        self.op = op  # alive while its id keys `Expander.facts`
        kind = type(op)
        self.cheap = kind in _CHEAP
        self.shape = expander.shape_number(_shape(op)) if _pure(op) else None
        self.nested = bool(op.regions or op._successors)
        self.may_fold = _may_fold(kind)


def _insert_before(block: Block, new: Operation, existing: Operation) -> None:
    """``block.insert_op_before(new, existing)`` for a detached op ``new`` without regions
    (what xDSL's checks would refuse cannot happen: ``existing`` is in ``block``, ``new`` has
    no parent and holds no block), its links set directly."""
    prev = existing._prev_op
    new.parent = block
    new._prev_op, new._next_op = prev, existing
    existing._prev_op = new
    if prev is None:
        block._first_op = new
    else:
        prev._next_op = new


def _discard(op: Operation) -> None:
    """``op.erase(safe_erase=False)`` for a detached copy without regions or successors: its
    operands' uses removed (what the erasure does when no result is used; else the erasure
    itself)."""
    if op.regions or op._successors or any(r.first_use is not None for r in op.results):
        op.erase(safe_erase=False)
        return
    for value, use in zip(op._operands, op._operand_uses):
        value.remove_use(use)
    op._operand_uses = ()


def _pure(op: Operation) -> bool:
    """An ``arith`` op without regions (equal ones compute equal values)."""
    arith_op = _ARITH.get(type(op))
    if arith_op is None:
        arith_op = _ARITH[type(op)] = op.dialect_name() == "arith"
    return arith_op and not op.regions


_ARITH: dict[type, bool] = {}
"""op class -> whether it is an ``arith`` op."""


def _may_fold(kind: type[Operation]) -> bool:
    """Whether `Expander.fold` may fold an op of class ``kind``: a class it rewrites itself, or
    one with an xDSL folder (``HasFolder``: the only ones ``Folder.try_fold`` folds)."""
    may = _MAY_FOLD.get(kind)
    if may is None:
        may = _MAY_FOLD[kind] = kind in _CHEAP or kind in _UNITS or \
            kind.get_trait(HasFolder) is not None
    return may


_MAY_FOLD: dict[type, bool] = {}


def _shape(op: Operation) -> tuple:
    """What, besides its operands, makes two ``arith`` ops equal: the name, the properties and
    the result types."""
    return (op.name, tuple(sorted(op.properties.items())), tuple(r.type for r in op.results))


def copy_op(op: Operation, operands: list[SSAValue]) -> Operation:
    """A detached copy of ``op`` on ``operands``, without regions or successors: what
    ``op.clone_without_regions()`` makes (the same class, properties, attributes, location,
    result types and name hints), its fields set directly instead of through xDSL's builder
    (the cost of the expansion: thousands of ops per kernel); each use is put first in its
    value's use list, as xDSL's ``add_use`` does."""
    new = object.__new__(type(op))
    new._operands = SSAValues(operands)
    uses = []
    for i, value in enumerate(operands):
        use = object.__new__(Use)  # Use(new, i), put first in the value's list
        use._operation, use._index, use._prev_use = new, i, None
        use._next_use = first = value.first_use
        if first is not None:
            first._prev_use = use
        value.first_use = use
        uses.append(use)
    new._operand_uses = tuple(uses)
    results = []
    for i, old in enumerate(op.results):
        result = object.__new__(OpResult)
        result._type, result.op, result.index = old._type, new, i
        result.first_use, result._name = None, old._name
        results.append(result)
    new.results = SSAValues(results)
    new._successors, new._successor_uses, new.regions = (), (), ()
    new.properties, new.attributes = dict(op.properties), dict(op.attributes)
    new.location = op.location
    new.parent = new._next_op = new._prev_op = None
    return new


def copy_tree(op: Operation, values: dict[int, SSAValue],
              copies: dict[Operation, Operation]) -> Operation:
    """``op.clone()`` (``values``: id of an old value -> its copy, the old values alive while
    it is used; ``copies``: old op -> its copy), each op by `copy_op`. The printed IR is
    structured (SSA dominance: a value is defined before its uses in program order); an op
    with successors is left to xDSL's ``clone``."""
    if op._successors:
        mapper = {v: values[id(v)] for inner in op.walk() for v in inner._operands
                  if id(v) in values}
        new = op.clone(value_mapper=mapper)
        values.update((id(old), copy) for old, copy in mapper.items())
        copies.update(zip(op.walk(), new.walk()))
        return new
    new = copy_op(op, [values.get(id(v), v) for v in op._operands])
    copies[op] = new
    values.update(zip(map(id, op.results), new.results))
    for region in op.regions:
        copy = Region()
        for block in region.blocks:
            into = Block(arg_types=block.arg_types)
            for old, arg in zip(block.args, into.args):
                arg._name = old._name
                values[id(old)] = arg
            copy.add_block(into)
        for block, into in zip(region.blocks, copy.blocks):
            for inner in block.ops:
                into.add_op(copy_tree(inner, values, copies))
        new.add_region(copy)
    return new


def _local(memory: SSAValue) -> bool:
    t = memory.type
    return isinstance(t, BufferType) and t.scope_name == LOCAL


def _expanded_loops(op: Operation) -> list[scf.ForOp]:
    """The loops under ``op`` that `needs_expansion`, innermost first, siblings in program
    order. The list stays right while they are expanded in this order: an expansion copies
    only loops that need none (the ones that did were expanded before their parent), and an
    outer loop's need does not change when its inner loops are expanded."""
    out: list[scf.ForOp] = []
    _collect_expanded(op, out)
    return out


def _collect_expanded(op: Operation, out: list[scf.ForOp]) -> None:
    """`_expanded_loops` of ``op`` appended to ``out`` (only ops with regions descended)."""
    for region in op.regions:
        for block in region.blocks:
            inner = block._first_op  # noqa: SLF001
            while inner is not None:
                if inner.regions:
                    _collect_expanded(inner, out)
                    if isinstance(inner, scf.ForOp) and needs_expansion(inner):
                        out.append(inner)
                inner = inner._next_op  # noqa: SLF001


def _context() -> Context:
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(arith.Arith)
    return ctx


__all__ = ["MAX_ITERATIONS", "Expander", "copy_op", "copy_tree", "expand_register_loops",
           "needs_expansion"]
