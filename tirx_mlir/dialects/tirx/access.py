"""How a view walks the buffer it views: affine index expressions, regions, access patterns.

A chain of ``tirx.slice`` / ``tirx.transpose`` / ``tirx.reshape`` views over a buffer is resolved
into an `AccessPattern`: the base buffer, the base index of the view's first element (affine in
SSA index values, e.g. loop variables) and, per view dim, its extent and its step in every base
dim. A rectangular pattern (slices only) is also a `Region`. A guarded slice (an index-valued
size) gives the pattern `guards`: per view dim, the value bounding it (its `sizes` are the
maxima); views of a guarded view keep them (`_slice_guards`, `_reshaped`: a guarded dim is taken
whole, moved, or kept through unit dims, never cut). Dispatch and layout lowering read views
through these; the interpreter does not need them (views are numpy views).

Index values in the IR are built and read here too: `const_index` builds an index constant,
`constant_value` reads any scalar constant back, `materialize` turns an `IndexExpr` into index
arithmetic (and `index_expr` folds it back).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Iterator

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr
from xdsl.ir import SSAValue

from tirx_mlir.dialects.tirx.attributes import BufferType, is_buffer_type
from tirx_mlir.dialects.tirx.kernel import enclosing_kernel
from tirx_mlir.dialects.tirx.layout import row_major_strides
from tirx_mlir.dialects.tirx.buffer_ops import (ReshapeOp, SliceOp, TransposeOp, is_view_op,
                                                reshape_groups)
from tirx_mlir.dialects.tirx.op_build import arith_binary, arith_constant
from tirx_mlir.ir_insert import SharingBuilder
from tirx_mlir.type_tests import ClassRef, IsInstance, KindOf


@dataclass(frozen=True)
class IndexExpr:
    """An affine index: ``const + sum(coeff * value)`` over SSA index values."""

    const: int = 0
    terms: tuple[tuple[SSAValue, int], ...] = ()

    @staticmethod
    def of(value: "int | SSAValue | IndexExpr") -> "IndexExpr":
        if isinstance(value, IndexExpr):
            return value
        if isinstance(value, int):
            return IndexExpr(value)
        return index_expr(value)

    def is_const(self) -> bool:
        return not self.terms

    def __add__(self, other: "IndexExpr | int") -> "IndexExpr":
        kind = type(other)
        if kind is IndexExpr:
            const, terms = other.const, other.terms
        elif kind is int:
            const, terms = other, ()
        else:
            other = IndexExpr.of(other)
            const, terms = other.const, other.terms
        mine = self.terms
        if not mine and not terms:  # constants (most of dispatch's coordinates)
            return _expr(self.const + const, ())
        # a side without terms leaves the other's as they are when those are already summed
        # (`_expr`'s ``summed``: each value once, no zero coefficient), as the sum makes them
        if not terms and self.__dict__.get("summed"):
            return _expr(self.const + const, mine, True)
        if not mine and kind is IndexExpr and other.__dict__.get("summed"):
            return _expr(self.const + const, terms, True)
        coeffs: dict[SSAValue, int] = dict(mine)
        for v, c in terms:
            coeffs[v] = coeffs.get(v, 0) + c
        return _expr(self.const + const, tuple((v, c) for v, c in coeffs.items() if c != 0),
                     True)

    def scale(self, k: int) -> "IndexExpr":
        if not self.terms:
            return _expr(self.const * k, ())
        return _expr(self.const * k, tuple((v, c * k) for v, c in self.terms if c * k != 0),
                     self.__dict__.get("summed", False))

    def evaluate(self, env) -> int:
        """Value under ``env`` (a callable SSAValue -> int)."""
        return self.const + sum(c * int(env(v)) for v, c in self.terms)


_new_object = object.__new__


def _expr(const: int, terms: tuple, summed: bool = False) -> IndexExpr:
    """``IndexExpr(const, terms)``: the same two fields set without the frozen dataclass's
    generated ``__init__`` (dispatch makes thousands of these sums a kernel). ``summed``
    (kept beside the fields: not part of equality, hash or repr, not copied by
    ``dataclasses.replace``): ``terms`` names each value once, none with coefficient 0, so
    summing them with no other terms gives them back (`IndexExpr.__add__`)."""
    expr = _new_object(IndexExpr)
    fields = expr.__dict__
    fields["const"] = const
    fields["terms"] = terms
    if summed:
        fields["summed"] = True
    return expr


# --- index values in the IR: the one builder and the one reader of constants ------------------


_INDEX = IndexType()


def const_index(builder: Builder | None, value: int) -> SSAValue:
    """``arith.constant value : index``, inserted by ``builder`` (None: by the enclosing xDSL
    ``ImplicitBuilder``, as the Python front end builds); built by `arith_constant` (dispatch
    makes thousands), once per value at a `SharingBuilder`'s insertion point."""
    if isinstance(builder, SharingBuilder):
        return builder.constant(int(value), _INDEX, lambda: arith_constant(int(value), _INDEX)
                                ).result
    op = arith_constant(int(value), _INDEX)
    return (op if builder is None else builder.insert(op)).result


def insert_binary(builder: Builder, op_cls: type, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """``insert_pure(builder, arith_binary(op_cls, lhs, rhs)).result`` (index arithmetic of
    addresses and coordinates); at a `SharingBuilder`, the op equal arguments built at its
    insertion point is found before one is built (`SharingBuilder.binary`)."""
    if isinstance(builder, SharingBuilder):
        return builder.binary(op_cls, lhs, rhs, lambda: arith_binary(op_cls, lhs, rhs)).result
    return builder.insert(arith_binary(op_cls, lhs, rhs)).result


def constant_value(value: SSAValue | None) -> int | float | None:
    """The value of an ``arith.constant`` scalar (int for integers and indices), else None."""
    owner = None if value is None else value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, (IntegerAttr, FloatAttr)):
        return owner.value.value.data
    return None


def materialize(builder: Builder, expr: IndexExpr) -> int | SSAValue:
    """An int for a constant expression, else index arithmetic computing it (the inverse of
    `index_expr`)."""
    if expr.is_const():
        return expr.const
    acc: SSAValue | None = None
    for value, coeff in expr.terms:
        term = value
        if coeff != 1:
            term = insert_binary(builder, arith.MuliOp, value, const_index(builder, coeff))
        if acc is not None:
            term = insert_binary(builder, arith.AddiOp, acc, term)
        acc = term
    assert acc is not None
    if expr.const:
        acc = insert_binary(builder, arith.AddiOp, acc, const_index(builder, expr.const))
    return acc


def max_value(expr: IndexExpr, ranges) -> int | None:
    """Largest value of the expression over the value ranges (`expr_range`)."""
    rng = expr_range(expr, ranges)
    return None if rng is None else rng[1]


def index_expr(value: SSAValue, cache: dict | None = None) -> IndexExpr:
    """Fold an index value built from constants, additions and constant multiples into an
    IndexExpr; anything else stays an opaque term. The fold does not wrap: a caller that needs
    the program's i64 semantics checks for overflow (the ``tirx-check-bounds`` pass refuses it).
    ``cache`` (value -> IndexExpr) shares the work between the values of one analysis."""
    if cache is not None and value in cache:
        return cache[value]
    expr = _fold_index(value, cache)
    if cache is not None:
        cache[value] = expr
    return expr


_INDEX_KIND = KindOf({"constant": (arith.ConstantOp,), "add": (arith.AddiOp,),
                      "sub": (arith.SubiOp,), "mul": (arith.MuliOp,)})
"""What `_fold_index` folds an owner as (None: an opaque term), answered once per class."""
_IS_INTEGER_ATTR = IsInstance(IntegerAttr)


def _fold_index(value: SSAValue, cache: dict | None) -> IndexExpr:
    owner = value.owner
    kind = _INDEX_KIND(owner)
    if kind is None:
        return IndexExpr(0, ((value, 1),))
    if kind == "constant":
        if _IS_INTEGER_ATTR(owner.value):
            return IndexExpr(int(owner.value.value.data))
        return IndexExpr(0, ((value, 1),))
    if kind == "add":
        return index_expr(owner.lhs, cache) + index_expr(owner.rhs, cache)
    if kind == "sub":
        return index_expr(owner.lhs, cache) + index_expr(owner.rhs, cache).scale(-1)
    if kind == "mul":
        lhs, rhs = index_expr(owner.lhs, cache), index_expr(owner.rhs, cache)
        if rhs.is_const():
            return lhs.scale(rhs.const)
        if lhs.is_const():
            return rhs.scale(lhs.const)
    return IndexExpr(0, ((value, 1),))


def value_domain(value: SSAValue) -> range | None:
    """Every value an index value takes, when the IR fixes them: an ``scf.for`` induction
    variable with constant bounds and a positive step (``range(lb, ub, step)``), or a scope id
    (``range(extent)`` from the launch configuration). None when unknown."""
    is_argument, is_for, is_scope_id, is_kernel = _DOMAIN_TESTS or _domain_tests()
    if is_argument(value):
        loop = value.block.parent_op()  # type: ignore[attr-defined]
        if not is_for(loop) or value.index != 0:  # type: ignore[attr-defined]
            return None
        lb, ub, step = (constant_value(v) for v in (loop.lb, loop.ub, loop.step))
        if not all(isinstance(v, int) for v in (lb, ub, step)) or step <= 0:
            return None
        return range(lb, ub, step)
    owner = value.owner
    if is_scope_id(owner):
        kernel = enclosing_kernel(owner)
        if is_kernel(kernel):
            try:
                return range(owner.extent(kernel))
            except Exception:  # noqa: BLE001 - a launch the verifier rejects has no domain
                return None
    return None


_DOMAIN_TESTS: tuple[IsInstance, IsInstance, IsInstance, IsInstance] | None = None
"""`value_domain`'s class tests (a block argument, an ``scf.for``, a scope id, a kernel), made
on its first call (scf's by name: a kernel without loops does not import scf)."""


def _domain_tests() -> tuple[IsInstance, IsInstance, IsInstance, IsInstance]:
    global _DOMAIN_TESTS
    from xdsl.ir import BlockArgument

    from tirx_mlir.dialects.tirx.kernel import KernelOp, ScopeIdOp

    _DOMAIN_TESTS = (IsInstance(BlockArgument), IsInstance(ClassRef("xdsl.dialects.scf", "ForOp")),
                     IsInstance(ScopeIdOp), IsInstance(KernelOp))
    return _DOMAIN_TESTS


def value_range(value: SSAValue) -> tuple[int, int] | None:
    """Inclusive ``(min, max)`` of an index value: of a `value_domain` (a loop that runs no
    iteration gives ``(lb, lb)``), or of a remainder or quotient by a positive constant of an
    affine expression of such values (`quotient_range`). None when unknown."""
    domain = value_domain(value)
    if domain is None:
        return quotient_range(value)
    if not domain:
        return domain.start, domain.start
    return domain[0], domain[-1]


def expr_range(expr: IndexExpr, ranges=None) -> tuple[int, int] | None:
    """Inclusive ``(min, max)`` of an affine expression whose terms have known ranges (each term
    taken independently: exact for independent terms, an over-approximation otherwise)."""
    ranges = ranges or value_range
    lo = hi = expr.const
    for value, coeff in expr.terms:
        rng = ranges(value)
        if rng is None:
            return None
        a, b = coeff * rng[0], coeff * rng[1]
        lo, hi = lo + min(a, b), hi + max(a, b)
    return lo, hi


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // b
    return q if a >= 0 else -q


def quotient_range(value: SSAValue) -> tuple[int, int] | None:
    """Range of ``x % c`` / ``x // c`` for a positive constant ``c`` and an ``x`` with a known
    range, as TVM's arith analyzer bounds floormod and floordiv by constants (apache/tvm
    ``src/arith/const_int_bound.cc``): ``floordivsi``/``divsi``/``divui``/``ceildivsi`` are
    monotone in ``x``; ``x % c`` of a non-negative ``x`` is ``[lo % c, hi % c]`` when ``x``
    does not wrap a multiple of ``c``, else ``[0, c - 1]`` (``remsi`` of a negative ``x`` is
    in ``[1 - c, 0]``, truncating as the op); Python's floor mod (`build_floor_mod`) by ``c``
    is in ``[0, c - 1]`` for any ``x``. None when unknown."""
    owner = value.owner
    floor_mod = floor_mod_operands(value)
    if floor_mod is not None and isinstance(owner, arith.SelectOp):
        return _floor_mod_range(*floor_mod)
    quotients = (arith.FloorDivSIOp, arith.DivSIOp, arith.DivUIOp, arith.CeilDivSIOp)
    if not isinstance(owner, (*quotients, arith.RemSIOp, arith.RemUIOp)):
        return None
    c = constant_value(owner.rhs)
    x = expr_range(index_expr(owner.lhs))
    if not isinstance(c, int) or c <= 0 or x is None:
        return None
    lo, hi = x
    if lo < 0 and isinstance(owner, (arith.DivUIOp, arith.RemUIOp)):
        return None  # a negative value read as unsigned
    if isinstance(owner, arith.FloorDivSIOp):
        return lo // c, hi // c
    if isinstance(owner, arith.CeilDivSIOp):
        return -(-lo // c), -(-hi // c)
    if isinstance(owner, quotients):
        return _trunc_div(lo, c), _trunc_div(hi, c)
    if lo >= 0 and hi - lo < c and lo % c <= hi % c:
        return lo % c, hi % c
    return (0 if lo >= 0 else max(lo, 1 - c)), (0 if hi < 0 else min(hi, c - 1))


def _floor_mod_range(x: SSAValue, divisor: SSAValue) -> tuple[int, int] | None:
    c = constant_value(divisor)
    if not isinstance(c, int) or c <= 0:
        return None
    rng = expr_range(index_expr(x))
    if rng is not None and rng[0] >= 0 and rng[1] - rng[0] < c and rng[0] % c <= rng[1] % c:
        return rng[0] % c, rng[1] % c
    return 0, c - 1


# --- Python's floor mod: ``x % y`` with the divisor's sign ------------------------------------


def _nonnegative(x: SSAValue, divisor: SSAValue) -> bool:
    c = constant_value(divisor)
    rng = expr_range(index_expr(x))
    return isinstance(c, int) and c > 0 and rng is not None and rng[0] >= 0


def build_floor_mod(x: SSAValue, divisor: SSAValue) -> SSAValue:
    """``x % divisor`` as Python computes it (the result has the divisor's sign), built by the
    enclosing ``ImplicitBuilder``. MLIR's ``arith`` has no floor mod: it is ``arith.remsi``
    (which truncates) where ``x`` is provably >= 0 and the divisor a positive constant (the two
    agree there), else the remainder corrected towards the divisor's sign, as MLIR lowers
    affine ``mod``::

        %r = arith.remsi %x, %c          // a positive constant divisor
        %n = arith.cmpi slt, %r, %c0
        %a = arith.addi %r, %c
        %m = arith.select %n, %a, %r

    (any other divisor: ``%n`` is ``%r != 0 and (%r xor %y) < 0``). `floor_mod_operands`
    recognises both forms."""
    if _nonnegative(x, divisor):
        return arith.RemSIOp(x, divisor).result
    r = arith.RemSIOp(x, divisor).result
    zero = const_index(None, 0)
    c = constant_value(divisor)
    if isinstance(c, int) and c > 0:
        fix = arith.CmpiOp(r, zero, "slt").result
    else:
        signs_differ = arith.CmpiOp(arith.XOrIOp(r, divisor).result, zero, "slt").result
        fix = arith.AndIOp(arith.CmpiOp(r, zero, "ne").result, signs_differ).result
    return arith.SelectOp(fix, arith.AddiOp(r, divisor).result, r).result


def floor_mod_operands(value: SSAValue) -> tuple[SSAValue, SSAValue] | None:
    """``(x, divisor)`` when ``value`` is Python's ``x % divisor`` in a form `build_floor_mod`
    builds (its ``arith.select``, or a ``remsi`` of a provably non-negative ``x`` by a positive
    constant), else None."""
    owner = value.owner
    if isinstance(owner, arith.RemSIOp):
        return (owner.lhs, owner.rhs) if _nonnegative(owner.lhs, owner.rhs) else None
    if not isinstance(owner, arith.SelectOp):
        return None
    r, added = owner.rhs, owner.lhs.owner
    rem = r.owner
    if not (isinstance(rem, arith.RemSIOp) and isinstance(added, arith.AddiOp) and
            added.lhs is r and added.rhs is rem.rhs):
        return None
    return (rem.lhs, rem.rhs) if _is_fix(owner.cond, r, rem.rhs) else None


def _is_fix(cond: SSAValue, r: SSAValue, divisor: SSAValue) -> bool:
    """Whether ``cond`` is the correction condition `build_floor_mod` gives for ``divisor``."""
    c = constant_value(divisor)
    if isinstance(c, int) and c > 0:
        return _compares(cond, r, "slt")
    both = cond.owner
    if not isinstance(both, arith.AndIOp) or not _compares(both.lhs, r, "ne"):
        return False
    xor = both.rhs.owner
    return isinstance(xor, arith.CmpiOp) and _compares(both.rhs, xor.lhs, "slt") and \
        isinstance(xor.lhs.owner, arith.XOrIOp) and xor.lhs.owner.lhs is r and \
        xor.lhs.owner.rhs is divisor


def _compares(cond: SSAValue, lhs: SSAValue, predicate: str) -> bool:
    """``cond`` is ``arith.cmpi <predicate>, lhs, 0``."""
    cmp = cond.owner
    names = ("eq", "ne", "slt", "sle", "sgt", "sge")
    return isinstance(cmp, arith.CmpiOp) and cmp.lhs is lhs and \
        constant_value(cmp.rhs) == 0 and cmp.predicate.value.data < len(names) and \
        names[cmp.predicate.value.data] == predicate


class NotAView(ValueError):
    """A reshape that merges dims which do not lie in memory as one run (a copy is needed)."""


@dataclass(frozen=True)
class AccessPattern:
    """``view[i0, i1, ...] = base[offset + sum_k i_k * steps[k]]`` (vectors over base dims).

    ``flat`` marks a pattern in which a view dim runs across base dims (a reshape merged dims of
    the buffer itself, e.g. ``[128, 4, 512] -> [128, 2048]``): its steps are then exact only in
    the buffer's row-major flat index (`flat_offset` / `flat_steps`), a base index may exceed its
    dim, and the pattern is no `Region`."""

    buffer: SSAValue
    offset: tuple[IndexExpr, ...]
    sizes: tuple[int, ...]
    steps: tuple[tuple[int, ...], ...]
    flat: bool = False
    guards: tuple[SSAValue | None, ...] | None = None
    """Per view dim, the index value a guarded slice bounds it by (None: its static size, which
    is then the maximum); None when no dim is guarded."""

    def guard(self, dim: int) -> SSAValue | None:
        return None if self.guards is None else self.guards[dim]

    def with_guards(self, guards) -> "AccessPattern":
        guards = tuple(guards)
        return replace(self, guards=guards if any(g is not None for g in guards) else None)

    def flat_steps(self) -> tuple[int, ...]:
        """Each view dim's step in the buffer's row-major flat index (worked out once per
        pattern: a reshape of this view and its physical access both ask)."""
        known = self.__dict__.get("_flat_steps")
        if known is None:
            rm = row_major_strides(self.buffer_type.get_shape())
            known = tuple(sum(s * r for s, r in zip(step, rm)) for step in self.steps)
            object.__setattr__(self, "_flat_steps", known)  # not a field: eq and hash skip it
        return known

    def flat_offset(self) -> IndexExpr:
        """The first element's row-major flat index in the buffer."""
        flat = IndexExpr()
        for off, r in zip(self.offset, row_major_strides(self.buffer_type.get_shape())):
            flat = flat + off.scale(r)
        return flat

    @property
    def buffer_type(self) -> BufferType:
        t = self.buffer.type
        assert type(t) is BufferType or is_buffer_type(t)
        return t  # type: ignore[return-value]

    def static_offset(self) -> tuple[int, ...] | None:
        if all(o.is_const() for o in self.offset):
            return tuple(o.const for o in self.offset)
        return None

    def as_region(self) -> "Region | None":
        """The rectangular region this pattern is (view dim k walks base dim k only), or None."""
        rank = len(self.offset)
        if len(self.sizes) != rank or self.flat:
            return None
        strides = []
        for k, step in enumerate(self.steps):
            if any(s != 0 for j, s in enumerate(step) if j != k) or step[k] <= 0:
                if self.sizes[k] == 1:
                    strides.append(1)
                    continue
                return None
            strides.append(step[k])
        return Region(self.buffer, self.offset, self.sizes, tuple(strides), self.guards)


def _reshaped(parent: AccessPattern, res_shape: tuple[int, ...]) -> AccessPattern:
    """The pattern of a reshape of ``parent``: each group of merged parent dims must be one run
    in memory (each dim's step its inner neighbour's extent times that one's step; over base
    dims, or else in the row-major flat index, which makes the pattern `flat`), and the result
    dims of the group split that run."""
    groups = reshape_groups(parent.sizes, res_shape)
    assert groups is not None, "the verifier checks the element count"
    steps: list[tuple[int, ...]] = [(0,) * len(parent.offset)] * len(res_shape)
    flat = parent.flat
    flat_steps = parent.flat_steps()
    for src_dims, res_dims in groups:
        for outer, inner in zip(src_dims, src_dims[1:]):
            n = parent.sizes[inner]
            if parent.steps[outer] == tuple(n * s for s in parent.steps[inner]):
                continue
            if flat_steps[outer] != n * flat_steps[inner]:
                raise NotAView(f"reshape {list(parent.sizes)} -> {list(res_shape)} merges dims "
                               f"{outer} and {inner}, which do not lie in memory as one run "
                               f"(steps {flat_steps[outer]} and {flat_steps[inner]}); copy "
                               f"into a buffer of the merged shape instead")
            flat = True
        run = parent.steps[src_dims[-1]]
        extent = 1
        for j in reversed(res_dims):
            steps[j] = tuple(s * extent for s in run)
            extent *= res_shape[j]
    out = AccessPattern(parent.buffer, parent.offset, res_shape, tuple(steps), flat)
    if parent.guards is None:
        return out
    guards: list[SSAValue | None] = [None] * len(res_shape)
    for src_dims, res_dims in groups:
        guarded = [d for d in src_dims if parent.guards[d] is not None]
        if not guarded:
            continue
        src_big = [d for d in src_dims if parent.sizes[d] != 1]
        res_big = [d for d in res_dims if res_shape[d] != 1]
        if len(src_big) != 1 or len(res_big) != 1:
            raise NotAView(f"reshape {list(parent.sizes)} -> {list(res_shape)} splits or merges "
                           f"guarded dim {guarded[0]} (a dynamic extent stays one dim)")
        guards[res_big[0]] = parent.guards[guarded[0]]
    return out.with_guards(guards)


_shared: dict[SSAValue, AccessPattern] | None = None


@contextmanager
def shared_views() -> Iterator[None]:
    """Within this block, each view is resolved once and the answer shared by every caller of
    `resolve_access`: for code that changes no existing view op meanwhile (a verification, a
    printer, the planning of one dispatch). A nested block has its own answers; the outer
    block's come back when it ends."""
    global _shared
    outer, _shared = _shared, {}
    try:
        yield
    finally:
        _shared = outer


def shared_answers() -> dict | None:
    """The answers of the innermost `shared_views` block (None outside one), for other readers of
    views to keep theirs beside the resolved views, under keys of their own (tuples naming the
    reader first)."""
    return _shared


def resolve_access(value: SSAValue) -> AccessPattern:
    """Resolve a chain of views to the AccessPattern over the underlying buffer (raises
    `NotAView` for a reshape that merges dims which are not one run in memory)."""
    shared = _shared
    if shared is None:
        return _resolve_access(value)
    access = shared.get(value)
    if access is None:
        access = shared[value] = _resolve_access(value)
    return access


_VIEW_KIND = KindOf({"slice": (SliceOp,), "transpose": (TransposeOp,), "reshape": (ReshapeOp,)})
"""The kind of view op an owner is (None for anything else), answered once per class."""


def _resolve_access(value: SSAValue) -> AccessPattern:
    btype = value.type
    assert is_buffer_type(btype)
    owner = value.owner
    kind = _VIEW_KIND(owner)
    if kind == "slice":
        parent = resolve_access(owner.source)
        offset = list(parent.offset)
        for k, o in enumerate(owner.mixed_offsets()):
            o_expr = IndexExpr.of(o)
            for j, s in enumerate(parent.steps[k]):
                if s:
                    offset[j] = offset[j] + o_expr.scale(s)
        steps = tuple(tuple(s * st for s in parent.steps[k])
                      for k, st in enumerate(owner.strides()))
        out = AccessPattern(parent.buffer, tuple(offset), owner.sizes(), steps, parent.flat)
        if parent.guards is None and len(owner._operands) == 1:  # noqa: SLF001 - no guard
            return out
        return out.with_guards(_slice_guards(owner, parent))
    if kind == "transpose":
        parent = resolve_access(owner.source)
        perm = owner.perm()
        out = AccessPattern(parent.buffer, parent.offset,
                            tuple(parent.sizes[p] for p in perm),
                            tuple(parent.steps[p] for p in perm), parent.flat)
        return out if parent.guards is None else out.with_guards(parent.guards[p] for p in perm)
    if kind == "reshape":
        return _reshaped(resolve_access(owner.source), btype.get_shape())
    shape = btype.get_shape()
    eye = tuple(tuple(1 if j == k else 0 for j in range(len(shape))) for k in range(len(shape)))
    return AccessPattern(value, (IndexExpr(),) * len(shape), shape, eye)


def _slice_guards(owner: SliceOp, parent: AccessPattern) -> list[SSAValue | None]:
    """The guards of a slice's view: its own, and a parent's guarded dim that it takes whole
    (offset 0, the parent's size); slicing into a guarded dim is not a view of one extent."""
    guards: list[SSAValue | None] = list(owner.guards().get(d) for d in range(len(parent.sizes)))
    if parent.guards is None:
        return guards
    for d, (g, o, n) in enumerate(zip(parent.guards, owner.mixed_offsets(), owner.sizes())):
        if g is None:
            continue
        if o != 0 or n != parent.sizes[d] or guards[d] is not None:
            raise NotAView(f"slice dim {d} cuts into a guarded dim (its extent is dynamic); "
                           f"slice the buffer, then guard")
        guards[d] = g
    return guards


def guard_like(builder: Builder, tile: SSAValue, like: SSAValue) -> SSAValue:
    """``tile`` guarded as ``like`` is on each dim where both have the same static extent (a
    scratch tile an instruction uses beside guarded views; ``tile`` itself when ``like`` has
    no guard there)."""
    guards = resolve_access(like).guards
    if guards is None:
        return tile
    shape = tile.type.get_shape()  # type: ignore[attr-defined]
    like_shape = like.type.get_shape()  # type: ignore[attr-defined]
    sizes: list[int | SSAValue] = list(shape)
    for d, g in enumerate(guards):
        if g is not None and d < len(shape) and shape[d] == like_shape[d]:
            sizes[d] = g
    if sizes == list(shape):
        return tile
    return builder.insert(SliceOp(tile, [0] * len(shape), sizes, max_sizes=shape)).result


def same_index(a: SSAValue, b: SSAValue) -> bool:
    """Whether two index values are equal by construction: the same affine expression, or the
    same ``min``/``max`` (either operand order) of such values (two guards written apart)."""
    ea, eb = index_expr(a), index_expr(b)
    if ea == eb:
        return True
    if len(ea.terms) != len(eb.terms) or ea.const != eb.const:
        return False
    pairs = []
    for (va, ca), (vb, cb) in zip(ea.terms, eb.terms):
        if ca != cb:
            return False
        pairs.append((va, vb))
    return all(_same_min_max(va, vb) for va, vb in pairs)


def _same_min_max(a: SSAValue, b: SSAValue) -> bool:
    oa, ob = a.owner, b.owner
    if a is b:
        return True
    if type(oa) is not type(ob) or not isinstance(oa, (arith.MinSIOp, arith.MaxSIOp)):
        return False
    (x, y), (u, v) = oa.operands, ob.operands  # type: ignore[union-attr]
    return (same_index(x, u) and same_index(y, v)) or (same_index(x, v) and same_index(y, u))


def is_guarded(value: SSAValue) -> bool:
    """Whether a view has a dynamic extent: a guarded ``tirx.slice`` in its chain (cheap: no
    access pattern is built)."""
    while is_view_op(owner := value.owner):
        # a slice whose one operand is its source has no dynamic size (no segment is read)
        guarded = isinstance(owner, SliceOp) and len(owner._operands) > 1  # noqa: SLF001
        if guarded and owner.dynamic_sizes:
            return True
        value = owner.source
    return False


@dataclass(frozen=True)
class Region:
    """A buffer region: the underlying buffer value, per-dim affine offsets, sizes and strides,
    composed through any chain of ``tirx.slice`` views."""

    buffer: SSAValue
    offsets: tuple[IndexExpr, ...]
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    guards: tuple[SSAValue | None, ...] | None = None
    """As `AccessPattern.guards`: the dynamic extents, the sizes being their maxima."""

    @property
    def buffer_type(self) -> BufferType:
        t = self.buffer.type
        assert type(t) is BufferType or is_buffer_type(t)
        return t  # type: ignore[return-value]

    def static_offsets(self) -> tuple[int, ...] | None:
        if all(o.is_const() for o in self.offsets):
            return tuple(o.const for o in self.offsets)
        return None

    def is_whole(self) -> bool:
        return self.static_offsets() == (0,) * len(self.sizes) and self.guards is None and \
            self.sizes == self.buffer_type.get_shape() and set(self.strides) <= {1}


def resolve_region(value: SSAValue) -> Region:
    """The rectangular region a view is of its buffer (slices only); raises ValueError for a
    transposed or reshaped view."""
    region = resolve_access(value).as_region()
    if region is None:
        raise ValueError("view is not a rectangular region of its buffer (it is transposed or "
                         "reshaped); use resolve_access")
    return region
