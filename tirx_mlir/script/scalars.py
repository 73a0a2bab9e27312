"""Scalar values of the front end: the registers a backend namespace reads and writes.

An op of a backend namespace (``Tx.cuda.load``, ``Tx.ptx.ld``...) gives SSA values of scalar
types (``f32``, ``i32``, ``i64``, ``vector<4xf32>``...). They are `Scalar` values here: Python
arithmetic on them builds ``arith`` ops of their type (``+`` is ``addf`` on floats, ``addi`` on
integers), comparisons build ``cmpf``/``cmpi`` conditions, and a Python number next to one
becomes a constant of its type. An ``index`` result is an `Index`, an ``i1`` one a `Cond`, a
buffer a `Buffer` (`wrap`). ``Tx.const(-1, "i32")`` makes a typed constant.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, SSAValue

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.script.builder import Buffer, Cond, Index, ScriptError

_INT_OPS = {"+": arith.AddiOp, "-": arith.SubiOp, "*": arith.MuliOp, "//": arith.FloorDivSIOp,
            "&": arith.AndIOp, "|": arith.OrIOp, "^": arith.XOrIOp, "<<": arith.ShLIOp,
            ">>": arith.ShRSIOp}
_FLOAT_OPS = {"+": arith.AddfOp, "-": arith.SubfOp, "*": arith.MulfOp, "/": arith.DivfOp}
_FLOAT_CMP = {"slt": "olt", "sle": "ole", "sgt": "ogt", "sge": "oge", "eq": "oeq", "ne": "une"}


def parse_type(spec: Any) -> Attribute:
    """A type from an Attribute or its spelling (``"f32"``, ``"index"``, ``"vector<4xf32>"``)."""
    if isinstance(spec, Attribute):
        return spec
    if not isinstance(spec, str):
        raise ScriptError(f"a type is a string such as 'f32' or 'vector<4xf32>', not "
                          f"{type(spec).__name__}")
    if spec == "index":
        return IndexType()
    try:
        return dtypes.element_type(spec)
    except KeyError:
        pass
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError

    from tirx_mlir.located_parser import make_context

    try:
        return Parser(make_context(), spec).parse_type()
    except ParseError as err:
        raise ScriptError(f"'{spec}' is not a type: {err.msg}") from None


def type_text(t: Attribute) -> str:
    """The spelling `parse_type` reads back."""
    try:
        name = dtypes.type_name(t)
        if name == "index" or dtypes.element_type(name) == t:
            return name
    except Exception:  # noqa: BLE001, S110 - not an element type: its MLIR text
        pass
    return str(t)


def const(value: int | float, dtype: Any) -> "Scalar | Index | Cond":
    """``arith.constant value : dtype`` (``Tx.const(-1, "i32")``)."""
    t = parse_type(dtype)
    if isinstance(t, IndexType):
        return Index(arith.ConstantOp(IntegerAttr(int(value), t)).result)
    if isinstance(t, IntegerType):
        if t.width.data == 1:
            return Cond(arith.ConstantOp.from_int_and_width(int(bool(value)), 1).result)
        return Scalar(arith.ConstantOp(IntegerAttr(int(value), t)).result)
    if dtypes.is_float(t):
        return Scalar(arith.ConstantOp(FloatAttr(float(value), t)).result)
    raise ScriptError(f"Tx.const makes integer, index or float constants, not {t}")


def constant_like(value: int | float, t: Attribute) -> SSAValue:
    """A Python number as a constant of type ``t`` (an int or float next to a scalar)."""
    if isinstance(value, bool):
        raise ScriptError("booleans are not scalar operands")
    if isinstance(value, float) and not dtypes.is_float(t):
        raise ScriptError(f"the float {value} next to a {type_text(t)} value")
    return const(value, t).value


def wrap(value: SSAValue) -> Any:
    """The front-end value of an op result: Index, Cond, Buffer or Scalar."""
    t = value.type
    if isinstance(t, IndexType):
        return Index(value)
    if t == IntegerType(1):
        return Cond(value)
    if isinstance(t, BufferType):
        return Buffer(value)
    return Scalar(value)


def wrap_results(op: Any) -> Any:
    """None, one value, or a tuple of them (an op's results as the front end sees them)."""
    results = [wrap(r) for r in op.results]
    if not results:
        return None
    return results[0] if len(results) == 1 else tuple(results)


class Scalar:
    """A scalar (or vector register) SSA value; arithmetic builds ``arith`` ops of its type."""

    def __init__(self, value: SSAValue):
        self.value = value

    @property
    def type(self) -> Attribute:
        return self.value.type

    def _other(self, o: Any, what: str) -> SSAValue:
        if isinstance(o, (int, float)) and not isinstance(o, bool):
            return constant_like(o, self.type)
        if isinstance(o, (Scalar, Index)) and o.value.type == self.type:
            return o.value
        got = type_text(o.value.type) if isinstance(o, (Scalar, Index)) else type(o).__name__
        raise ScriptError(f"`{what}` of a {type_text(self.type)} value and a {got}: the "
                          f"operands of scalar arithmetic have one type")

    def _binary(self, o: Any, symbol: str, swap: bool = False) -> "Scalar":
        table = _FLOAT_OPS if dtypes.is_float(_element(self.type)) else _INT_OPS
        if symbol not in table:
            raise ScriptError(f"`{symbol}` is not defined on {type_text(self.type)} values")
        a, b = self.value, self._other(o, symbol)
        if swap:
            a, b = b, a
        return Scalar(table[symbol](a, b).result)

    def __add__(self, o): return self._binary(o, "+")
    def __radd__(self, o): return self._binary(o, "+", swap=True)
    def __sub__(self, o): return self._binary(o, "-")
    def __rsub__(self, o): return self._binary(o, "-", swap=True)
    def __mul__(self, o): return self._binary(o, "*")
    def __rmul__(self, o): return self._binary(o, "*", swap=True)
    def __truediv__(self, o): return self._binary(o, "/")
    def __rtruediv__(self, o): return self._binary(o, "/", swap=True)
    def __floordiv__(self, o): return self._binary(o, "//")
    def __and__(self, o): return self._binary(o, "&")
    def __or__(self, o): return self._binary(o, "|")
    def __xor__(self, o): return self._binary(o, "^")
    def __lshift__(self, o): return self._binary(o, "<<")
    def __rshift__(self, o): return self._binary(o, ">>")

    def __neg__(self) -> "Scalar":
        if dtypes.is_float(_element(self.type)):
            return Scalar(arith.NegfOp(self.value).result)
        return 0 - self

    def compare(self, predicate: str, o: Any) -> Cond:
        """``self <predicate> o`` with the integer predicate names (``slt``, ``eq``...)."""
        other = self._other(o, predicate)
        if dtypes.is_float(_element(self.type)):
            return Cond(arith.CmpfOp(self.value, other, _FLOAT_CMP[predicate]).result)
        return Cond(arith.CmpiOp(self.value, other, predicate).result)

    def __bool__(self):
        raise ScriptError("a run-time value has no Python truth value; compare it to branch "
                          "on it with `if`")


def _element(t: Attribute) -> Attribute:
    from xdsl.dialects.builtin import VectorType

    return t.element_type if isinstance(t, VectorType) else t
