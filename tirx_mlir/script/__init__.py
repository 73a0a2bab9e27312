"""The Python front end: build tirx kernels from Python (``Tx``).

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
``Tx.cluster.<op>`` and ``Tx.thread.<op>`` bind another exec scope, as in TIRx. Optional operands
and properties are keywords (``bias=``, ``scale=``, ``axes=[-1]``, ``accum=True``,
``transpose_b=True``...). ``Tx.select(..., where=lambda i, j: i < j)`` turns the lambda into the
affine predicate; loop variables and scope ids in it become its symbols
(``where=lambda i, j: i + k * 128 < n``). Namespaces that loaded backends register
(``Tx.nki``...) are attributes too.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable

from xdsl.dialects.builtin import (AffineSetAttr, BoolAttr, FloatAttr, IntegerAttr, StringAttr,
                                   f32, i64)
from xdsl.ir import Attribute
from xdsl.ir.affine import AffineExpr
from xdsl.ir.affine.affine_set import AffineConstraintExpr, AffineConstraintKind, AffineSet

from tirx_mlir import registry
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dialects.tirx.tile_ops import TILE_OPS
from tirx_mlir.script.builder import (Buffer, Index, KernelBuilder, ScriptError, alloc,
                                      bind_arguments, buffer_type, ds, for_range, operand)

kernel = KernelBuilder
range = for_range  # noqa: A001 - ``Tx.range`` reads like TVMScript's T.serial
buffer = buffer_type

__all__ = ["kernel", "range", "buffer", "alloc", "ds", "Buffer", "Index", "ScriptError",
           "cta", "warp", "warpgroup", "wg", "cluster", "thread"]


# --- the select predicate from a Python lambda ---------------------------------------------------


class _Dim:
    """A symbolic destination index: arithmetic builds an AffineExpr, comparisons constraints.
    An `Index` in it (a loop variable, a scope id, arithmetic on them) becomes a symbol of the
    set, bound in ``symbols`` (write the destination index first: ``i + k * 128 < n``)."""

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
    def __mul__(self, o): return self._new(self.expr * self._e(o))
    __rmul__ = __mul__
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
    result = where(*(_Dim(AffineExpr.dimension(i), found) for i in builtins.range(rank)))
    if not isinstance(result, _Pred):
        raise ScriptError("a select predicate must compare indices, e.g. lambda i, j: i < j")
    return AffineSet(rank, len(found), tuple(result.constraints))


# --- tile primitive functions ----------------------------------------------------------------------


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
        else:
            out[k] = StringAttr(str(v))
    return out


def _tile_builder(op_cls: type[TileOp], scope: ExecScope) -> Callable[..., TileOp]:
    names = [n for n, _ in op_cls.get_irdl_definition().operands]
    short = op_cls.name.split(".", 1)[1]

    def build(*args: Any, dispatch: str | None = None, config: dict | None = None,
              **kwargs: Any) -> TileOp:
        where = kwargs.pop("where", None)
        values, props = bind_arguments(op_cls, args, kwargs, f"Tx.{short}")
        if where is not None:
            if "where" not in op_cls.KEYWORDS:
                raise ScriptError(f"Tx.{short} has no operand or property 'where'")
            dst = values.get("dst")
            rank = len(dst.shape) if isinstance(dst, Buffer) else 0
            symbols: list = []
            props["where"] = AffineSetAttr(predicate_set(where, rank, symbols))
            values["symbols"] = symbols
        operands = [(values[n] if n == "symbols" else operand(values[n])) if n in values
                    else None for n in names]
        return op_cls(*operands, scope=scope, dispatch=dispatch, config=_config_attr(config),
                      **props)

    build.__name__ = short
    build.__doc__ = op_cls.__doc__
    return build


class _ScopeNamespace:
    """``Tx.cta``, ``Tx.warp``...: the tile primitives bound to one exec scope."""

    def __init__(self, scope: ExecScope):
        for op_cls in TILE_OPS:
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
        known = ", ".join(sorted(registry.script_namespaces.keys())) or "(none loaded)"
        raise AttributeError(f"tirx_mlir.script has no '{name}'; backend namespaces: {known}")
    return namespace

