"""``tirx-check-bounds``: refuse, at compile time, what the interpreter would refuse at run time.

A printer turns index arithmetic into source text (Python for NKI), so a program that is wrong
only at run time would otherwise print as code with another meaning: a slice past its buffer,
``(128 // 0)``, or an i64 product that wraps in the interpreter and not in Python. This pass
decides every such question the IR answers statically, and reports each with a located error:

* ``tirx.slice`` (and ``tirx.load`` / ``tirx.store``): each dim's elements stay inside the
  source, for every CTA of the grid and every iteration of the enclosing loops; the error names
  the bound and the CTA / loop values that break it. A guarded dim (an index size) touches
  ``[offset, offset + size - 1]``: its size must lie in ``[0, maximum]`` and a non-empty access
  inside the source, checked for every value of the variables it depends on (`guard_values`:
  ``min(128, n - i * 128)`` is exact there);
* integer ``arith`` ops: no division or remainder by zero; no ``addi``/``subi``/``muli`` result
  outside the signed range of its type (64 bits for ``index``), since folds and printed code do
  not wrap; no constant outside its type's range;
* ``scf.for``: a constant step is positive.

What it decides: affine index expressions (`access.index_expr`: constants, sums, constant
multiples) over independent variables with known values (`access.value_domain`: ``scf.for``
induction variables with constant bounds, and scope ids, at most one kind per grid dim), in ops
that run whenever the kernel runs (all enclosing regions are ``scf.for`` bodies with at least one
iteration). What it cannot decide is left to the interpreter's run-time checks (docs/trn.md,
"Known limits"): values loaded from memory, loop bounds that are not constants, non-affine index
arithmetic (a product of two variables, a division's result), ops under ``scf.if`` or
``scf.while``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.access import IndexExpr, index_expr, value_domain
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import LoadOp, SliceOp, StoreOp
from tirx_mlir.dialects.tirx.kernel import KernelOp, ScopeIdOp
from tirx_mlir.type_tests import ClassRef, IsInstance, KindOf, find_ops

if TYPE_CHECKING:
    from xdsl.dialects import scf

INDEX_BITS = 64
"""Width of ``index`` (the interpreter's, and the signed range printed code must stay in)."""

MAX_ENUMERATED = 4096
"""Largest number of variable assignments searched for a zero divisor of several variables."""

_DIVISIONS = (arith.DivSIOp, arith.DivUIOp, arith.RemSIOp, arith.RemUIOp, arith.FloorDivSIOp,
              arith.CeilDivSIOp, arith.CeilDivUIOp)
_WRAPPING = (arith.AddiOp, arith.SubiOp, arith.MuliOp)
_FOR = ClassRef("xdsl.dialects.scf", "ForOp")  # scf is not imported for a kernel without loops
_IS_FOR = IsInstance(_FOR)
_KINDS = KindOf({"constant": (arith.ConstantOp,), "loop": (_FOR,), "division": _DIVISIONS,
                 "wrapping": _WRAPPING, "slice": (SliceOp,), "element": (LoadOp, StoreOp)})
"""Which check `_Checker.check` makes of an op (the classes are disjoint), per op class."""


@dataclass(frozen=True)
class _Var:
    """One independent variable of an affine expression: its values and how to name it."""

    values: range
    label: str


class _Analysis:
    """The affine view of index values in one module (cached), and the variables they use."""

    def __init__(self):
        self.exprs: dict[SSAValue, IndexExpr] = {}

    def expr(self, value: SSAValue) -> IndexExpr:
        return index_expr(value, self.exprs)

    def variables(self, expr: IndexExpr) -> list[tuple[_Var, int]] | None:
        """(variable, coefficient) per term, or None when a term's values are unknown or two
        terms are not independent (two scope ids of one grid dim)."""
        out, dims = [], {}
        for value, coeff in expr.terms:
            domain = value_domain(value)
            if domain is None:
                return None
            owner = value.owner
            if isinstance(owner, ScopeIdOp):
                kind = dims.setdefault(owner.dim_index, owner.name)
                if kind != owner.name:
                    return None
            out.append((_Var(domain, _label(value)), coeff))
        return out


def _label(value: SSAValue) -> str:
    owner = value.owner
    if isinstance(owner, ScopeIdOp):
        return f"{owner.name.removeprefix('tirx.')} {'xyz'[owner.dim_index]}"
    return f"%{value.name_hint}" if value.name_hint else "the loop variable"


def _extreme(expr: IndexExpr, terms: list[tuple[_Var, int]], largest: bool):
    """(value, assignment) of the largest (or smallest) value of ``expr``."""
    total, picks = expr.const, []
    for var, coeff in terms:
        if not var.values:
            continue
        pick = var.values[-1] if (coeff > 0) == largest else var.values[0]
        total += coeff * pick
        picks.append((var, pick))
    return total, picks


def _where(picks) -> str:
    return f" (when {', '.join(f'{v.label} = {x}' for v, x in picks)})" if picks else ""


def _signed_range(t) -> tuple[int, int] | None:
    if isinstance(t, IndexType):
        bits = INDEX_BITS
    elif isinstance(t, IntegerType) and t.width.data > 1:
        bits = t.width.data
    else:
        return None
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


def runs_unconditionally(op: Operation) -> bool:
    """Whether ``op`` runs, for every value of its loop variables, each time its kernel (or
    function) runs: every enclosing region is an ``scf.for`` body with at least one iteration."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp) and \
            parent.name != "func.func":
        if not _IS_FOR(parent):
            return False
        domain = value_domain(parent.body.block.args[0])
        if not domain:
            return False
        parent = parent.parent_op()
    return parent is not None


class _Checker:
    def __init__(self):
        self.analysis = _Analysis()

    def check(self, op: Operation) -> None:
        kind = _KINDS(op)
        if kind is None:
            return
        if kind == "constant":
            self._constant(op)  # type: ignore[arg-type]
        elif kind == "loop":
            self._loop_step(op)  # type: ignore[arg-type]
        if not runs_unconditionally(op):
            return
        if kind == "division":
            self._division(op)
        elif kind == "wrapping":
            self._overflow(op)
        elif kind == "slice":
            self._slice(op)  # type: ignore[arg-type]
        elif kind == "element":
            self._element(op)

    # ---- integer arithmetic ----
    def _constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        bounds = _signed_range(op.result.type)
        if not isinstance(value, IntegerAttr) or bounds is None:
            return
        lo, hi = bounds
        v = value.value.data
        unsigned_max = (hi << 1) + 1 if not isinstance(op.result.type, IndexType) else hi
        if not lo <= v <= unsigned_max:
            raise PassError(f"the constant {v} does not fit in {op.result.type} "
                            f"([{lo}, {unsigned_max}])", op, code="index-overflow",
                            hint="a value outside the type's range would be printed as is, "
                                 "while the interpreter wraps it")

    def _loop_step(self, op: scf.ForOp) -> None:
        step = self.analysis.expr(op.step)
        if step.is_const() and step.const <= 0:
            raise PassError(f"the loop step is {step.const}; an scf.for step must be positive",
                            op, code="loop-step")

    def _division(self, op: Operation) -> None:
        divisor = self.analysis.expr(op.operands[1])
        terms = self.analysis.variables(divisor)
        if terms is None:
            return
        picks = _find_zero(divisor, terms)
        if picks is None:
            return
        raise PassError(f"the divisor is zero{_where(picks)}", op, code="div-by-zero",
                        hint="integer division by zero is undefined behaviour in MLIR; the "
                             "interpreter stops there and printed code would fail or differ")

    def _overflow(self, op: Operation) -> None:
        bounds = _signed_range(op.results[0].type)
        if bounds is None:
            return
        expr = self.analysis.expr(op.results[0])
        if any(value is op.results[0] for value, _ in expr.terms):
            return  # not affine (a product of two variables): undecided
        terms = self.analysis.variables(expr)
        if terms is None:
            return
        for largest, limit in ((True, bounds[1]), (False, bounds[0])):
            value, picks = _extreme(expr, terms, largest)
            if (value > limit) if largest else (value < limit):
                raise PassError(
                    f"the result overflows {op.results[0].type}: it reaches "
                    f"{value}{_where(picks)}, outside [{bounds[0]}, {bounds[1]}]", op,
                    code="index-overflow",
                    hint="the interpreter wraps, a fold or printed code would not: keep index "
                         "arithmetic inside 64 bits")

    # ---- buffer accesses ----
    def _slice(self, op: SliceOp) -> None:
        source = op.source.type
        assert isinstance(source, BufferType)
        guards = op.guards()
        for d, (o, n, st, extent) in enumerate(zip(op.mixed_offsets(), op.sizes(), op.strides(),
                                                   source.get_shape())):
            if d in guards:
                self._guarded(op, d, o, guards[d], n, st, extent)
                continue
            self._within(op, d, self.analysis.expr(o) if isinstance(o, SSAValue)
                         else IndexExpr(o), (n - 1) * st, extent)

    def _guarded(self, op: SliceOp, d: int, offset: int | SSAValue, size: SSAValue,
                 maximum: int, stride: int, extent: int) -> None:
        """A guarded dim touches [offset, offset + (size - 1) * stride]: for every value of the
        loop variables and scope ids the two depend on (enumerated, `guard_values`), the size
        lies in [0, maximum] and a non-empty access inside the source."""
        values = guard_values(offset, size)
        if values is None:
            return  # not decidable here: the interpreter checks it at run time
        for o, n, at in values:
            if not 0 <= n <= maximum:
                raise PassError(f"dim {d}: the guarded size is {n}{_where(at)}, outside [0, "
                                f"{maximum}] (the result type's extent is its maximum)", op,
                                code="out-of-bounds",
                                hint="bound the size by the maximum, e.g. arith.minsi")
            if n and (o < 0 or o + (n - 1) * stride >= extent):
                raise PassError(f"dim {d}: elements [{o}, {o + (n - 1) * stride}] are out of "
                                f"bounds for extent {extent}{_where(at)}", op,
                                code="out-of-bounds",
                                hint="guard the size by what is left, e.g. min(128, n - i*128)")

    def _element(self, op: LoadOp | StoreOp) -> None:
        buffer = op.buffer.type
        assert isinstance(buffer, BufferType)
        for d, (i, extent) in enumerate(zip(op.indices, buffer.get_shape())):
            self._within(op, d, self.analysis.expr(i), 0, extent)

    def _within(self, op: Operation, d: int, offset: IndexExpr, span: int, extent: int) -> None:
        terms = self.analysis.variables(offset)
        if terms is None:
            return
        low, low_at = _extreme(offset, terms, largest=False)
        high, high_at = _extreme(offset, terms, largest=True)
        if low < 0:
            bad, at = (low, low + span), low_at
        elif high + span >= extent:
            bad, at = (high, high + span), high_at
        else:
            return
        hint = ("the offset takes that value in the CTAs / loop iterations named; bound it there"
                if at else "check the offset against the buffer's shape")
        raise PassError(f"dim {d}: elements [{bad[0]}, {bad[1]}] are out of bounds for extent "
                        f"{extent}{_where(at)}", op, code="out-of-bounds", hint=hint)


_EVALUATED = {arith.AddiOp: lambda a, b: a + b, arith.SubiOp: lambda a, b: a - b,
              arith.MuliOp: lambda a, b: a * b, arith.MinSIOp: min, arith.MaxSIOp: max,
              arith.FloorDivSIOp: lambda a, b: a // b if b else None,
              arith.RemSIOp: lambda a, b: int(math.fmod(a, b)) if b else None,
              arith.DivSIOp: lambda a, b: int(a / b) if b else None}


def _variables(value: SSAValue, found: dict[SSAValue, range]) -> bool:
    """Collect the loop variables / scope ids ``value`` is computed from (with their values);
    False when it uses anything else (a load, an unbounded loop)."""
    domain = value_domain(value)
    if domain is not None:
        found[value] = domain
        return True
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        return isinstance(owner.value, IntegerAttr)
    if type(owner) in _EVALUATED:
        return all(_variables(v, found) for v in owner.operands)
    return False


def _evaluate(value: SSAValue, env: dict[SSAValue, int]) -> int | None:
    if value in env:
        return env[value]
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        return owner.value.value.data  # type: ignore[union-attr]
    a, b = (_evaluate(v, env) for v in owner.operands)  # type: ignore[union-attr]
    if a is None or b is None:
        return None
    return _EVALUATED[type(owner)](a, b)


def guard_values(offset: int | SSAValue, size: SSAValue):
    """``(offset, size, assignment)`` for every value of the variables a guarded slice dim
    depends on (affine arithmetic, ``min``/``max``, ``//`` and ``%`` by constants over loop
    variables and scope ids), or None when they are unknown or too many to enumerate."""
    found: dict[SSAValue, range] = {}
    if not _variables(size, found) or \
            (isinstance(offset, SSAValue) and not _variables(offset, found)):
        return None
    names = list(found)
    if math.prod(len(found[v]) for v in names) > MAX_ENUMERATED:
        return None
    out = []
    for combo in itertools.product(*(found[v] for v in names)):
        env = dict(zip(names, combo))
        o = offset if isinstance(offset, int) else _evaluate(offset, env)
        n = _evaluate(size, env)
        if o is None or n is None:
            return None
        out.append((o, n, [(_Var(found[v], _label(v)), x) for v, x in env.items()]))
    return out


def _find_zero(expr: IndexExpr, terms: list[tuple[_Var, int]]):
    """An assignment of the variables where ``expr`` is 0, None if there is none (or the search
    is too large to decide)."""
    if not terms:
        return [] if expr.const == 0 else None
    if len(terms) == 1:
        (var, coeff), = terms
        if -expr.const % coeff:
            return None
        x = -expr.const // coeff
        return [(var, x)] if x in var.values else None
    if math.prod(len(v.values) for v, _ in terms) > MAX_ENUMERATED:
        return None
    for combo in itertools.product(*(v.values for v, _ in terms)):
        if expr.const + sum(c * x for (_, c), x in zip(terms, combo)) == 0:
            return [(v, x) for (v, _), x in zip(terms, combo)]
    return None


@dataclass(frozen=True)
class CheckBoundsPass(ModulePass):
    """Static bounds, division-by-zero and overflow checks (see the module docstring)."""

    name = "tirx-check-bounds"
    PRESERVES_IR: ClassVar[bool] = True
    """It only reads the IR (`pipelines.preserves_ir`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        checker = _Checker()
        for inner in find_ops(op, _KINDS):  # the ops it checks, in walk order
            checker.check(inner)
