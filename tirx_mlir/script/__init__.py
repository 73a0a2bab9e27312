"""The Python front end: build tirx kernels from Python (``Tx``).

Two ways in, sharing every op definition, argument binding, check and location rule:
``@Tx.kernel`` parses a decorated function (`kernel_function`, `parser`; docs/frontend.md), and
the ``with`` builder below suits generated kernels.

    from tirx_mlir import script as Tx

    with Tx.kernel("add_one", inputs={"A": Tx.buffer((128, 512))},
                   outputs={"B": Tx.buffer((128, 512))}) as k:
        A, B = k.args
        a = Tx.alloc((128, 512), scope="shared", layout="S[(128,512):(512,1)]")
        Tx.copy(a, A)
        Tx.add(a, a, 1.0)
        with Tx.range(0, 4) as i:
            Tx.copy(B[i * 32 : i * 32 + 32, :], a[i * 32 : i * 32 + 32, :])
    module = k.module

Every tile primitive is a function ``Tx.<op>(dst, srcs..., dispatch=None, config=None, **props)``
at thread scope; ``Tx.cta.<op>``, ``Tx.warp.<op>``, ``Tx.warpgroup.<op>`` (``Tx.wg``),
``Tx.cluster.<op>`` and ``Tx.thread.<op>`` bind another exec scope, as in TIRx
(``Tx.cluster.cluster_sync()`` too). Optional operands and properties are keywords
(``bias=``, ``scale=``, ``axes=[-1]``, ``accum=True``, ``transpose_b=True``...); a ``config``
value computed at run time is the operand of its name (`_runtime_config`: TIRx's
``config={"cta_mask": expr}`` is ``cta_mask=expr``).
``Tx.select(..., where=lambda i, j: i < j)`` turns the lambda into the affine predicate; loop
variables and scope ids in it become its symbols (``where=lambda i, j: i + k * 128 < n``).
Namespaces that loaded backends register (``Tx.nki``, ``Tx.cuda``, ``Tx.ptx``, ``Tx.nvshmem``)
are attributes too; their ops give `Scalar` values (Python arithmetic builds ``arith`` ops of
their type) and ``Tx.const(-1, "i32")`` makes a typed constant.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable

import numpy as np

from xdsl.dialects.builtin import (AffineSetAttr, BoolAttr, DenseArrayBase, FloatAttr,
                                   IntegerAttr, StringAttr, f32, i64)
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineExpr
from xdsl.ir.affine.affine_set import AffineConstraintExpr, AffineConstraintKind, AffineSet
from xdsl.irdl import OptOperandDef, VarOperandDef
from xdsl.utils.exceptions import VerifyException

from tirx_mlir import registry
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.sync_ops import SYNC_OPS
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx.tile_ops import (TILE_OPS, CastOp, _BinaryOp, _ReduceOp, _UnaryBiasScaleOp,
                                              _UnaryOp)
from tirx_mlir.dialects.tirx.kernel import SCOPE_ID_OPS
from tirx_mlir.script.builder import (AFFINE, Buffer, Cond, Index, KernelBuilder, Out, ScriptError,
                                      alloc, bind_arguments, buffer_type, ds, for_range, index_max,
                                      index_min, operand, scope_id)
from tirx_mlir.script.integer_ops import cmp, truncdiv, truncmod, udiv, urem, zext
from tirx_mlir.script.kernel_function import Kernel, constexpr, kernel
from tirx_mlir.script.locations import SourceError
from tirx_mlir.script.parser import serial, unroll
from tirx_mlir.script.scalars import Scalar, const

range = for_range  # noqa: A001 - ``Tx.range`` reads like TVMScript's T.serial
buffer = buffer_type

__all__ = ["kernel", "Kernel", "KernelBuilder", "constexpr", "serial", "unroll", "range",
           "buffer", "alloc", "ds", "index_min", "index_max", "Buffer", "Out", "Index", "Cond",
           "Scalar", "const", "ScriptError", "udiv", "urem", "truncdiv", "truncmod", "cmp", "zext",
           "SourceError", "cta", "warp", "warpgroup", "wg", "cluster", "thread"]


def _scope_id_function(op_cls) -> Callable[..., Index]:
    short = op_cls.name.split(".", 1)[1]

    def make(dim: int | str | None = None) -> Index:
        return scope_id(op_cls, dim)

    make.__name__ = short
    make.__doc__ = f"``{op_cls.name}``: {op_cls.__doc__ or ''}".strip()
    return make


for _id_op in SCOPE_ID_OPS:  # Tx.cta_id("x"), Tx.warp_id(), Tx.lane_id()...
    globals()[_id_op.name.split(".", 1)[1]] = _scope_id_function(_id_op)
    __all__.append(_id_op.name.split(".", 1)[1])


# --- the select predicate from a Python lambda ---------------------------------------------------


class _Dim:
    """A symbolic destination index: arithmetic builds an AffineExpr, comparisons constraints.
    An `Index` in it (a loop variable, a scope id, arithmetic on them) becomes a symbol of the
    set, bound in ``symbols``; arithmetic on it inside the lambda is affine too
    (``lambda q, k: k <= i * 128 + q`` is ``(d0, d1)[s0] : (s0 * 128 + d0 - d1 >= 0)``)."""

    def __init__(self, expr: AffineExpr, symbols: list):
        self.expr, self.symbols = expr, symbols

    def _e(self, v) -> AffineExpr:
        if isinstance(v, _Dim):
            return v.expr
        if isinstance(v, Index):
            if v.value not in self.symbols:
                self.symbols.append(v.value)
            return AffineExpr.symbol(self.symbols.index(v.value))
        return AffineExpr.constant(int(v))

    def _new(self, expr: AffineExpr) -> "_Dim":
        return _Dim(expr, self.symbols)

    def __add__(self, o): return self._new(self.expr + self._e(o))
    __radd__ = __add__
    def __sub__(self, o): return self._new(self.expr - self._e(o))
    def __rsub__(self, o): return self._new(self._e(o) - self.expr)
    def __mul__(self, o):
        other = self._e(o)
        if not isinstance(other, AffineConstantExpr) and \
                not isinstance(self.expr, AffineConstantExpr):
            raise ScriptError("a select predicate is not affine here: it multiplies two "
                              "indices; multiply an index only by a constant")
        return self._new(self.expr * other)
    __rmul__ = __mul__
    def __neg__(self): return self._new(self.expr * -1)
    def __mod__(self, o): return self._new(self.expr % self._e(o))
    def __floordiv__(self, o): return self._new(self.expr // self._e(o))

    def _ge(self, other, offset=0):
        return _Pred([AffineConstraintExpr(AffineConstraintKind.ge,
                                           self.expr - self._e(other) + offset,
                                           AffineExpr.constant(0))])

    def __ge__(self, o): return self._ge(o)
    def __gt__(self, o): return self._ge(o, -1)
    def __le__(self, o): return self._new(self._e(o))._ge(self)
    def __lt__(self, o): return self._new(self._e(o))._ge(self, -1)

    def __eq__(self, o):  # type: ignore[override]
        return _Pred([AffineConstraintExpr(AffineConstraintKind.eq, self.expr - self._e(o),
                                           AffineExpr.constant(0))])

    __hash__ = None  # type: ignore[assignment]


class _Pred:
    def __init__(self, constraints):
        self.constraints = constraints

    def __and__(self, other: "_Pred") -> "_Pred":
        return _Pred(self.constraints + other.constraints)

    def __bool__(self):
        raise ScriptError("combine predicate conditions with `&`, not `and`/`or`")


def predicate_set(where: Callable[..., Any] | AffineSet, rank: int,
                  symbols: list | None = None) -> AffineSet:
    """An AffineSet over ``rank`` destination dims from a lambda (conjunction with ``&``); the
    index values it reads (loop variables, scope ids) are appended to ``symbols``."""
    if isinstance(where, AffineSet):
        return where
    found = [] if symbols is None else symbols
    zero = _Dim(AffineExpr.constant(0), found)
    token = AFFINE.set(lambda index: zero._new(zero._e(index)))
    try:  # an index in the lambda is a symbol, ``i * 128`` a term of the set (not an op)
        result = where(*(_Dim(AffineExpr.dimension(i), found) for i in builtins.range(rank)))
    finally:
        AFFINE.reset(token)
    if not isinstance(result, _Pred):
        raise ScriptError("a select predicate must compare indices, e.g. lambda i, j: i < j")
    return AffineSet(rank, len(found), tuple(result.constraints))


# --- tile primitive functions ----------------------------------------------------------------------


def _runtime_config(op_cls: type[TileOp], config: dict[str, Any] | None, kwargs: dict,
                    what: str) -> dict[str, Any] | None:
    """``config`` without its run-time values (TIRx's ``config={"cta_mask": expr}`` with an
    expression of ids or loop variables), each moved into ``kwargs`` as the op's operand of the
    same name (``cta_mask=``); an op without such an operand takes constants only there."""
    if not config:
        return config
    runtime = {k: v for k, v in config.items()
               if isinstance(v, (Index, Cond, SSAValue)) or
               isinstance(getattr(v, "value", None), SSAValue)}
    if not runtime:
        return config
    operands = {n for n, _ in op_cls.get_irdl_definition().operands}
    for key in runtime:
        if key not in operands:
            raise ScriptError(f"{what}: config {key!r} is a value computed at run time; config "
                              f"takes constants (ints, floats, bools, strings, lists of ints)")
        if key in kwargs:
            raise ScriptError(f"{what}: {key} given both as config and as a keyword; give one")
    kwargs.update(runtime)
    return {k: v for k, v in config.items() if k not in runtime}


def _config_attr(config: dict[str, Any] | None) -> dict[str, Attribute] | None:
    if not config:
        return None
    out: dict[str, Attribute] = {}
    for k, v in config.items():
        if isinstance(v, Attribute):
            out[k] = v
        elif isinstance(v, bool):
            out[k] = BoolAttr.from_bool(v)
        elif isinstance(v, int):
            out[k] = IntegerAttr(v, i64)
        elif isinstance(v, float):
            out[k] = FloatAttr(v, f32)
        elif isinstance(v, (list, tuple)) and all(type(x) is int for x in v):
            out[k] = DenseArrayBase.from_list(i64, list(v))
        else:
            out[k] = StringAttr(str(v))
    return out


VALUE_STYLE = (_UnaryOp, _UnaryBiasScaleOp, _BinaryOp, _ReduceOp)
"""Ops that may be called without their destination (``y = Tx.exp(x)``): elementwise ones
allocate it like their (broadcast) source, reductions like the source with the reduced axes 1."""


def _value_result(op_cls: type[TileOp], args: tuple, props: dict, what: str) -> Buffer:
    """The destination a value-style call allocates: the shape of the result, the scope (and,
    for elementwise ops, the layout) of the source that has that shape."""
    sources = [a for a in args if isinstance(a, Buffer)]
    if not sources:
        raise ScriptError(f"{what} without a destination needs a buffer operand to shape it")
    try:
        shape = tuple(np.broadcast_shapes(*(b.shape for b in sources)))
    except ValueError:
        raise ScriptError(f"{what}: operand shapes {[b.shape for b in sources]} do not "
                          f"broadcast") from None
    like = next((b for b in sources if b.shape == shape), sources[0])
    if like.type.scope_name == "global":
        raise ScriptError(f"{what} without a destination: its source is in global memory; "
                          f"copy it on chip first or pass the destination")
    layout = like.type.get_layout()
    if issubclass(op_cls, _ReduceOp):
        axes = rules.normalize_axes(tuple(props.get("axes", (-1,))), len(shape))
        shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
        layout = None
    return alloc(shape, dtypes.type_name(like.type.element_type), scope=like.type.scope_name,
                 layout=layout if shape == like.shape else None)


def _operand_value(value: Any, variadic: bool) -> Any:
    """A tile op's operand from a call's argument; a variadic operand (``workspace=w``, the
    select's symbols) takes one value or a list of them."""
    if not variadic:
        return operand(value)
    return [operand(v) for v in (value if isinstance(value, (list, tuple)) else [value])]


def _tile_builder(op_cls: type[TileOp], scope: ExecScope) -> Callable[..., Any]:
    op_def = op_cls.get_irdl_definition()
    names = [n for n, _ in op_def.operands]
    required = [n for n, d in op_def.operands if not isinstance(d, VarOperandDef)]  # opt too
    variadic = {n for n, d in op_def.operands
                if isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef)}
    short = op_cls.name.split(".", 1)[1]
    value_style = issubclass(op_cls, VALUE_STYLE) and op_cls is not CastOp and \
        required[0] == "dst"

    def build(*args: Any, dispatch: str | None = None, config: dict | None = None,
              **kwargs: Any) -> Any:
        if value_style and len(args) == len(required) - 1 and "dst" not in kwargs:
            props = {k: v for k, v in kwargs.items() if k in op_cls.KEYWORDS}
            dst = _value_result(op_cls, args, props, f"Tx.{short}")
            build(dst, *args, dispatch=dispatch, config=config, **kwargs)
            return dst
        where = kwargs.pop("where", None)
        config = _runtime_config(op_cls, config, kwargs, f"Tx.{short}")
        values, props = bind_arguments(op_cls, args, kwargs, f"Tx.{short}")
        if where is not None:
            if "where" not in op_cls.KEYWORDS:
                raise ScriptError(f"Tx.{short} has no operand or property 'where'")
            dst = values.get("dst")
            rank = len(dst.shape) if isinstance(dst, Buffer) else 0
            symbols: list = []
            props["where"] = AffineSetAttr(predicate_set(where, rank, symbols))
            values["symbols"] = symbols
        operands = [_operand_value(values[n], n in variadic) if n in values else None
                    for n in names]
        op = op_cls(*operands, scope=scope, dispatch=dispatch, config=_config_attr(config),
                    **props)
        try:
            op.verify_()  # shapes, dtypes, scopes: reported at the line that built the op
        except VerifyException as err:
            raise ScriptError(f"Tx.{short}: {err}") from None
        return op

    build.__name__ = short
    build.__doc__ = op_cls.__doc__
    return build


class _ScopeNamespace:
    """``Tx.cta``, ``Tx.warp``...: the tile primitives bound to one exec scope."""

    def __init__(self, scope: ExecScope):
        for op_cls in (*TILE_OPS, *SYNC_OPS):  # Tx.cluster.cluster_sync() among them
            if op_cls.name != "tirx.compose_op":
                setattr(self, op_cls.name.split(".", 1)[1], _tile_builder(op_cls, scope))


thread = _ScopeNamespace(ExecScope.THREAD)
warp = _ScopeNamespace(ExecScope.WARP)
warpgroup = wg = _ScopeNamespace(ExecScope.WARPGROUP)
cta = _ScopeNamespace(ExecScope.CTA)
cluster = _ScopeNamespace(ExecScope.CLUSTER)

for _op in TILE_OPS:
    if _op.name != "tirx.compose_op":
        _short = _op.name.split(".", 1)[1]
        globals()[_short] = getattr(thread, _short)
        __all__.append(_short)


def __getattr__(name: str):
    namespace = registry.script_namespaces.get(name)
    if namespace is None:
        import difflib

        known = ", ".join(sorted(registry.script_namespaces.keys())) or "(none loaded)"
        close = difflib.get_close_matches(name, [*__all__, *registry.script_namespaces.keys()],
                                          n=3, cutoff=0.7)
        maybe = f"; did you mean {' or '.join(f'Tx.{c}' for c in close)}?" if close else ""
        raise AttributeError(f"Tx has no '{name}'{maybe} (backend namespaces: {known})")
    return namespace

