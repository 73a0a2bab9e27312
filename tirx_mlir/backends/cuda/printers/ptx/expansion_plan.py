"""The register-loop expansion of unroll.py, planned without copying ops: what ``-t ptx``
prints for an expanded loop, as a list of records the printer emits directly.

unroll.py's `Expander` clones a loop's body once per iteration into a copy of the module and
folds each clone; the printer then prints the copy. `plan_register_loops` makes the same
decisions on lightweight records instead (`Rec`: the original op, its operands and results in
the expanded program, its properties), so nothing is copied and the module is never changed:

* a value of the expanded program is a *token*: an SSA value of the input defined outside
  every expanded loop stands for itself; a value an expansion makes is a `Tok` (its type, the
  record that defines it);
* a placed integer constant is a record without an op (``value``, ``type``); a cloned op is a
  record of its original op (its ``props`` differ from the op's only where an add was
  reassociated: other overflow flags);
* every decision is `Expander`'s, in its order: inner loops first, siblings in program order,
  each iteration's ops cloned in the order of the body (an inner loop's records in its place),
  `Expander.fold_constants`' cheap folds, reassociation, the identities, xDSL's folder (on a
  temporary op whose operands are constants: only when all of them are), constants and equal
  ``arith`` ops shared per block under the same keys; so the records of an outermost expanded
  loop are, in order, the ops its expansion leaves in the copy, and the printer prints them
  in the loop's place (direct_loops.py);
* the plan lists the uses the expanded program has (`Plan.use_list`): the records'
  operands, and the input's ops outside the expanded loops (the printer's analyses ask:
  `promotable`, `accumulates_in_place`, a tied operand's last use); a `Tok` keeps its
  constant (``const``), a placed constant also the value its ``arith.constant`` would hold
  (``printed``).

The plan covers the loops the printer can print this way (`Planner.supported`): no carried
values or results, and a body (nested expanded loops aside) of ``arith`` / ``math`` ops, the
listed ``cuda`` ops and ptx ops without read-write or sink operands. For anything else
`plan_register_loops` returns None and the printer expands a copy as before (unroll.py), so
the text is the same either way (bench/cuda_dump.py on every example; test_direct_loops.py
prints loops both ways).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue

from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.dialects.ptx.render import _sink_only, tied_values
from tirx_mlir.backends.cuda.printers.ptx.unroll import (_CHEAP, _EXACT, _UNITS, Expander, Fail,
                                                         _expanded_loops, _may_fold, _pure,
                                                         _shape, copy_op)
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.op_build import arith_constant, integer_attr
from tirx_mlir.type_tests import IsInstance

CUDA_OPS = frozenset({"cuda.load", "cuda.store", "cuda.address", "cuda.shfl_sync", "cuda.pack",
                      "cuda.unpack", "cuda.cvt", "cuda.fast", "cuda.fdividef"})
"""The cuda ops a planned loop body may hold (their printing reads registers, constant
indices and address arithmetic, which the plan answers)."""


_UNSET = object()
_IS_YIELD = IsInstance(scf.YieldOp)
_IS_OP = IsInstance(Operation)


class Unsupported(Exception):
    """A case the plan does not cover (the printer then expands a copy)."""


class Tok:
    """A value an expansion makes: ``rec.results[index]``; ``const``: its value when it is
    a constant (`Expander.int_value`), else None."""

    __slots__ = ("type", "rec", "index", "const")

    def __init__(self, type_, rec: Rec, index: int) -> None:
        self.type, self.rec, self.index, self.const = type_, rec, index, None

    @property
    def owner(self) -> Operation | None:
        """The input's op this value's record clones (None for a placed constant)."""
        return self.rec.op


def token_constant(value) -> int | float | None:
    """`constant_value` of a token: what the printer reads of an ``arith.constant`` (a
    placed constant's attribute value, as `arith_constant` makes it)."""
    if type(value) is not Tok:
        return constant_value(value)
    rec = value.rec
    if rec.op is None:
        return rec.printed
    return value.const  # a clone of a constant: its value (`Rec`); else None


class Rec:
    """One op of the expanded program: a clone of ``op`` on ``operands`` (tokens) with
    ``props``, or (``op`` None) a placed integer constant ``value`` of ``type``."""

    __slots__ = ("op", "kind", "operands", "results", "props", "value", "type", "printed")

    def __init__(self, op: Operation | None, operands, props: dict | None,
                 result_types=(), value: int = 0, type_=None) -> None:
        self.op, self.operands, self.props = op, operands, props
        self.kind = arith.ConstantOp if op is None else type(op)
        self.value, self.type = value, type_
        self.printed = None
        """A placed constant's value as its ``arith.constant`` holds it (`integer_attr`:
        an i1 true is -1), what the printer reads."""
        self.results = (Tok(result_types[0], self, 0),) if len(result_types) == 1 else \
            tuple(Tok(t, self, i) for i, t in enumerate(result_types))
        if op is not None and self.kind is arith.ConstantOp:
            self.results[0].const = constant_value(op.results[0])

    def properties(self) -> dict:
        return self.op.properties if self.props is None else self.props


class Plan:
    """The records of each outermost expanded loop (by the loop's id), in program order, and
    the uses of every token in the expanded program (`use_list`)."""

    def __init__(self, expanded: set[int]) -> None:
        self.records: dict[int, list[Rec]] = {}
        self.loops: list[scf.ForOp] = []
        """The outermost expanded loops (kept alive while their ids key `records`)."""
        self.expanded = expanded
        """ids of every expanded loop (the loops are alive while the module is)."""
        self.uses: dict[int, list[tuple[Rec | Operation, int]]] = {}
        """id of a token -> its (user, operand position)s in the expanded program: made for
        every `Tok` by `Planner.finish`, for a value of the input when first asked."""
        self.input_uses: dict[int, list[tuple[Rec, int]]] | None = None
        """id of a value of the input -> the records' uses of it (made when first asked; the
        records keep the values alive)."""
        self.keep: list[object] = []

    def release(self) -> None:
        """Let the plan go by reference counting: a record and its tokens name each other
        (`Rec.results`, `Tok.rec`), so without this every record the planner made (~1,300 on
        flash_attention_sm80) would wait, with its tuples and lists, for the cyclic
        collector. Each record's results are dropped; the plan is empty after it."""
        for kept in self.keep:
            if isinstance(kept, Planner):
                for rec in kept.made:
                    rec.results = ()
                kept.made.clear()
        self.keep.clear()
        self.records.clear()
        self.uses.clear()
        self.input_uses = None

    def use_list(self, value) -> list[tuple[Rec | Operation, int]]:
        uses = self.uses.get(id(value))
        if uses is not None:
            return uses
        if type(value) is Tok:
            return []
        # a value of the input: its uses outside the expanded loops, then the records'
        if self.input_uses is None:
            self.input_uses = {}
            for loop in self.loops:
                for rec in self.records[id(loop)]:
                    for i, operand in enumerate(rec.operands):
                        if type(operand) is not Tok:
                            self.input_uses.setdefault(id(operand), []).append((rec, i))
        uses = [(u.operation, u.index) for u in value.uses
                if not _inside_any(u.operation, self.expanded, itself=True)]
        uses += self.input_uses.get(id(value), ())
        self.uses[id(value)] = uses
        self.keep.append(value)
        return uses


def plan_register_loops(module: ModuleOp, fail: Fail,
                        loops: list[scf.ForOp] | None = None) -> Plan | None:
    """The `Plan` of ``module``'s register loops (``loops``: `_expanded_loops` of it, when
    known), or None when it has none or one the plan does not cover (module docstring). A
    loop that cannot be expanded is the located error unroll.py raises."""
    loops = _expanded_loops(module) if loops is None else loops
    if not loops:
        return None
    planner = Planner(fail)
    for loop in loops:  # the same refusals, in the same order, as `expand_register_loops`
        planner.bounds(loop)
    expanded = set(map(id, loops))
    if not all(planner.supported(loop, expanded) for loop in loops):
        return None
    try:
        for loop in loops:
            planner.expand(loop)
    except Unsupported:
        return None
    return planner.finish(loops)


class Planner(Expander):
    """`Expander`'s decisions on records (module docstring); `Expander`'s dicts keep their
    meaning, with tokens where the expander has values."""

    def __init__(self, fail: Fail) -> None:
        super().__init__(fail)
        self.placed: dict[int, list[Rec]] = {}
        """id of an expanded loop -> the records its expansion placed before it."""
        self.out: list[Rec] = []
        """The records of the expansion under way."""
        self.external: dict[int, int | float | None] = {}
        """id of a value of the input -> `constant_value` of it."""
        self.made: list[Rec] = []
        """Every record made (kept, folded or shared away), for `Plan.release`."""

    # ---- what the plan covers ----
    @staticmethod
    def supported(loop: scf.ForOp, expanded: set[int]) -> bool:
        """Whether the plan covers ``loop`` (``expanded``: ids of the loops to expand)."""
        if loop.iter_args or loop.results:
            return False
        for op in loop.body.block.ops:
            if _IS_YIELD(op) or id(op) in expanded:
                continue  # an inner expanded loop is checked on its own
            if op.regions or op._successors or not _printable(op):
                return False
        return True

    def finish(self, loops: list[scf.ForOp]) -> Plan:
        expanded = set(map(id, loops))
        plan = Plan(expanded)
        uses = plan.uses
        for loop in loops:
            if _inside_any(loop, expanded):
                continue
            records = plan.records[id(loop)] = self.placed[id(loop)]
            plan.loops.append(loop)
            for rec in records:
                for i, value in enumerate(rec.operands):
                    if type(value) is Tok:
                        known = uses.get(id(value))
                        if known is None:
                            uses[id(value)] = [(rec, i)]
                        else:
                            known.append((rec, i))
        plan.keep.append(self)  # the tokens the records' dict keys name
        return plan

    # ---- values ----
    def int_value(self, value) -> int | float | None:
        """`Expander.int_value` of a token: a `Tok`'s constant, an input value's (cached:
        the input does not change while the plan is made)."""
        if type(value) is Tok:
            return value.const
        known = self.external.get(id(value), _UNSET)
        if known is _UNSET:
            known = self.external[id(value)] = constant_value(value)
            self.alive.append(value)
        return known

    def constant(self, loop: scf.ForOp, block: Block, value: int, t,
                 number: int | None = None) -> Tok:
        """`Expander.constant` (``number``: `type_number` of ``t``, when known)."""
        key = (id(block), value, self.type_number(t) if number is None else number)
        result = self.constants.get(key)
        if result is None:
            rec = Rec(None, (), None, (t,), value, t)
            self.made.append(rec)
            rec.printed = integer_attr(value, t).value.data
            self.out.append(rec)
            result = self.constants[key] = rec.results[0]
            result.const = value
        return result

    # ---- the expansion ----
    def expand(self, loop: scf.ForOp) -> None:
        lb, ub, step = self.bounds(loop)
        block = loop.body.block
        parent = loop.parent_block()
        self.alive.append(parent)
        iv = block.args[0]
        items = [self.item(x) for x in self.body_items(block)]
        number = self.type_number(iv.type)
        saved, self.out = self.out, []
        clone = self.clone
        for i in range(lb, ub, step):
            mapping: dict[int, object] = {id(iv): self.constant(loop, parent, i, iv.type,
                                                                number)}
            for item in items:
                clone(loop, parent, item, mapping)
        self.placed[id(loop)] = self.out
        self.out = saved

    def item(self, x: Operation | Rec) -> _Item:
        """What `clone` reads of a body op or record, once per loop (`Expander.facts`)."""
        known = self.facts.get(id(x))
        if known is None:
            known = self.facts[id(x)] = _Item(x, self)
        return known

    def body_items(self, block: Block) -> list[Operation | Rec]:
        """The body's ops as the expander finds them: each inner expanded loop replaced by
        the records its expansion placed (the yield left out)."""
        items: list[Operation | Rec] = []
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                break
            placed = self.placed.get(id(op))
            if placed is None:
                items.append(op)
            else:
                items.extend(placed)
        return items

    def clone(self, loop, block, item: _Item, mapping) -> None:
        """`Expander.clone` of one body item, into `out`."""
        get = mapping.get
        operands = [get(id(v), v) for v in item.source]
        results = item.results
        if item.cheap:
            value = self.fold_constants(loop, block, item, operands)
            if value is not None:
                mapping[id(results[0])] = value
                return
        first_key = None
        shape = item.shape
        if shape is not None:
            first_key = (id(block), tuple(map(id, operands)), shape)
            folded = self.known.get(first_key)
            if folded is not None:
                for result, value in zip(results, folded):
                    mapping[id(result)] = value
                return
        new = Rec(item.op, operands, item.rec_props, item.types)
        self.made.append(new)
        mapping.update(zip(map(id, results), new.results))
        if item.may_fold:
            folded = self.fold_record(loop, block, new)
            if folded is not None:
                for result, value in zip(results, folded):
                    mapping[id(result)] = value
                return
        # (the keys' ids are of tokens the records keep, or of the input's values: alive)
        if shape is not None:
            if new.operands is not operands:  # reassociated: other operands, other flags
                if new.props != item.props:
                    shape = self.shape_number(_record_shape(new))
                key = (id(block), tuple(map(id, new.operands)), shape)
                folded = self.known.get(key)
                if folded is not None:
                    for result, value in zip(results, folded):
                        mapping[id(result)] = value
                    return
                self.known[key] = new.results
            self.known[first_key] = new.results
        self.out.append(new)

    def fold_constants(self, loop, block, item: _Item, operands) -> Tok | SSAValue | None:
        """`Expander.fold_constants` of an item of a `_CHEAP` class: the one value it folds
        to, or None."""
        kind = item.kind
        if kind is arith.ConstantOp:
            value = item.constant
            if isinstance(value, int) and item.integer:
                return self.constant(loop, block, value, item.type, item.number)
            return None
        if kind is arith.IndexCastOp:
            value = self.int_value(operands[0])
            return self.constant(loop, block, value, item.type, item.number) \
                if isinstance(value, int) else None
        lhs, rhs = operands
        a, b = self.int_value(lhs), self.int_value(rhs)
        if isinstance(a, int) and isinstance(b, int):
            value = _EXACT[kind](a, b)
            if -item.bound <= value < item.bound:
                return self.constant(loop, block, value, item.type, item.number)
            return None
        unit = 1 if kind is arith.MuliOp else 0
        if b == unit:
            return lhs
        if a == unit and kind is not arith.SubiOp:
            return rhs
        return None

    def fold_record(self, loop, block, new: Rec):
        """`Expander.fold` on a new record."""
        kind = new.kind
        if kind is arith.ConstantOp:  # a cloned constant that is not an integer: kept
            return None
        if kind is arith.IndexCastOp:
            value = self.int_value(new.operands[0])
            return None if value is None else \
                [self.constant(loop, block, value, new.results[0].type)]
        self.reassociate_record(loop, block, new)
        unit = _UNITS.get(kind)
        if unit is not None:
            lhs, rhs = new.operands
            if self.int_value(rhs) == unit:
                return [lhs]
            if self.int_value(lhs) == unit and kind is not arith.SubiOp:
                return [rhs]
        values = [self.int_value(v) for v in new.operands]
        if not all(isinstance(v, int) for v in values):
            return None
        return self.try_fold(loop, block, new, values)

    def try_fold(self, loop, block, new: Rec, values: list[int]):
        """xDSL's folder on a temporary op of ``new``'s class and properties whose operands
        are constants of ``values``."""
        temps = [arith_constant(v, tok.type) for v, tok in zip(values, new.operands)]
        op = copy_op(new.op, [c.result for c in temps])
        op.properties = dict(new.properties())
        folded = self.folder.try_fold(op)
        if folded is None:
            return None
        results, new_ops = folded
        out = []
        for value in results:
            c = self.int_value(value)
            if not isinstance(c, int):
                raise Unsupported(f"{op.name} folds to a value that is not a constant")
            out.append(self.constant(loop, block, c, value.type))
        return out

    def reassociate_record(self, loop, block, new: Rec) -> None:
        """`Expander.reassociate` on a new record."""
        if new.kind is not arith.AddiOp:
            return
        operands = new.operands
        for side in (0, 1):
            outer_c, inner = self.int_value(operands[1 - side]), operands[side]
            add = _defining(inner)
            if not isinstance(outer_c, int) or add is None or add[0] is not arith.AddiOp:
                continue
            _, (add_lhs, add_rhs), add_props = add
            for x, c1 in ((add_lhs, add_rhs), (add_rhs, add_lhs)):
                inner_c = self.int_value(c1)
                if isinstance(inner_c, int) and not isinstance(self.int_value(x), int):
                    changed = list(operands)
                    changed[side] = x
                    changed[1 - side] = self.constant(loop, block, inner_c + outer_c,
                                                      new.results[0].type)
                    new.operands = changed
                    flags = set(_flags(new.properties())) & set(_flags(add_props))
                    new.props = {**new.properties(),
                                 "overflowFlags": arith.IntegerOverflowAttr(flags or "none")}
                    return


class _Item:
    """What `Planner.clone` reads of a body item (an op of the input or a record), made once
    per item: `unroll._OpFacts` (cheap-foldable, shape number, may fold), its operands,
    results, properties, and for a `_CHEAP` class its result type, that type's number, whether
    it is an integer, its signed bound and (a constant) its value."""

    __slots__ = ("x", "op", "source", "results", "kind", "cheap", "shape", "may_fold",
                 "props", "rec_props", "types", "type", "number", "integer", "bound",
                 "constant")

    def __init__(self, x, planner: Planner) -> None:
        self.x = x  # alive while its id keys `Expander.facts`
        if isinstance(x, Rec):
            self.op, self.source, kind = x.op, x.operands, x.kind
            self.props = None if x.op is None else x.properties()
            self.rec_props = x.props
            pure = x.op is None or _pure(x.op)
            shape = _record_shape(x) if pure else None
        else:
            self.op, self.source, kind = x, x._operands, type(x)
            self.props, self.rec_props = x.properties, None
            pure = _pure(x)
            shape = _shape(x) if pure else None
        self.kind, self.results = kind, x.results
        self.types = tuple(r.type for r in x.results)
        self.cheap = kind in _CHEAP
        self.shape = planner.shape_number(shape) if pure else None
        self.may_fold = _may_fold(kind)
        self.type = self.number = self.bound = self.constant = None
        self.integer = False
        if self.cheap:
            t = self.type = self.types[0]
            self.number = planner.type_number(t)
            self.integer = isinstance(t, (IndexType, IntegerType))
            if self.integer:
                self.bound = 1 << ((64 if isinstance(t, IndexType) else t.width.data) - 1)
            if kind is arith.ConstantOp:
                self.constant = planner.int_value(x.results[0])


def _record_shape(rec: Rec) -> tuple:
    """`unroll._shape` of the op ``rec`` stands for."""
    if rec.op is None:  # the placed `arith_constant`'s
        return ("arith.constant", (("value", integer_attr(rec.value, rec.type)),), (rec.type,))
    return (rec.op.name, tuple(sorted(rec.properties().items())),
            tuple(r.type for r in rec.results))


def _flags(props: dict):
    """The overflow flags of an integer op's properties (xDSL's default when absent)."""
    flags = props.get("overflowFlags")
    return () if flags is None else flags.data


def _defining(value) -> tuple[type, tuple, dict] | None:
    """(class, operands, properties) of the op defining ``value`` in the expanded program."""
    if type(value) is Tok:
        rec = value.rec
        return rec.kind, tuple(rec.operands), rec.properties() if rec.op is not None else {}
    owner = value.owner
    if _IS_OP(owner):
        return type(owner), tuple(owner._operands), owner.properties
    return None


def _printable(op: Operation) -> bool:
    """Whether the plan covers ``op`` in a loop body (module docstring)."""
    dialect = op.dialect_name()
    if dialect in ("arith", "math"):
        return True
    if isinstance(op, PtxOp):
        try:
            return not tied_values(op) and not _sink_only(op.variant().mods)
        except Exception:  # an op that does not verify: the copy reports it
            return False
    return op.name in CUDA_OPS


def _inside_any(op: Operation, ids: set[int], itself: bool = False) -> bool:
    """Whether an op whose id is in ``ids`` holds ``op`` (or is ``op``, with ``itself``)."""
    node = op if itself else op.parent_op()
    while node is not None:
        if id(node) in ids:
            return True
        node = node.parent_op()
    return False


__all__ = ["Plan", "Rec", "Tok", "plan_register_loops", "token_constant"]
