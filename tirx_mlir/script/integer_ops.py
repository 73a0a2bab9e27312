"""Integer operations Python's operators do not spell: unsigned division, remainder and
comparison, C's truncating division and remainder, zero extension.

On indices Python's ``//`` and ``%`` floor (``arith.floordivsi``, a floor mod). CUDA-level code
divides thread ids (never negative) unsigned, as C does on unsigned ints:

    warp, lane = Tx.udiv(t, 32), Tx.urem(t, 32)      # arith.divui, arith.remui
    if Tx.cmp("ult", t, 32): ...                     # arith.cmpi ult (any cmpi predicate)
    nxt = Tx.truncmod(me + 1, n)                     # arith.remsi: C's % on ints
    wide = Tx.zext(p, "i64")                         # arith.extui

Each takes indices or integer scalars (`tirx_mlir.script.scalars`), one type per call; a Python
int next to one is a constant of its type. ``-t tx`` prints these ops with these functions.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType

from tirx_mlir.script.builder import Cond, Index, ScriptError, divisor
from tirx_mlir.script.scalars import Scalar, constant_like, parse_type, type_text, wrap

PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
"""The predicates of ``arith.cmpi``, as ``Tx.cmp`` takes them."""
FUNCTIONS = {arith.DivUIOp: "udiv", arith.RemUIOp: "urem", arith.DivSIOp: "truncdiv",
             arith.RemSIOp: "truncmod"}
"""The ``arith`` op each binary function builds (``-t tx`` prints them back)."""


def _operands(what: str, a: Any, b: Any) -> tuple:
    """The SSA operands of ``what(a, b)``: run-time integer values of one type, a Python int
    becoming a constant of the other's type."""
    runtime = [v for v in (a, b) if isinstance(v, (Index, Scalar))]
    if not runtime:
        raise ScriptError(f"Tx.{what} takes an index or an integer value (for two Python ints, "
                          f"use Python's operators)")
    t = runtime[0].value.type
    if not isinstance(t, (IndexType, IntegerType)):
        raise ScriptError(f"Tx.{what} takes indices or integers, not {type_text(t)} values")
    values = []
    for v in (a, b):
        if isinstance(v, (Index, Scalar)):
            if v.value.type != t:
                raise ScriptError(f"Tx.{what} of a {type_text(t)} and a "
                                  f"{type_text(v.value.type)} value: one type per call")
            values.append(v.value)
        elif isinstance(v, int) and not isinstance(v, bool):
            values.append(constant_like(v, t))
        else:
            raise ScriptError(f"Tx.{what} cannot take {type(v).__name__}")
    return tuple(values)


def _binary(op_cls: type, a: Any, b: Any) -> Any:
    what = FUNCTIONS[op_cls]
    divisor(b, f"Tx.{what}")
    return wrap(op_cls(*_operands(what, a, b)).result)


def udiv(a: Any, b: Any) -> Any:
    """``arith.divui``: ``a / b`` of unsigned integers."""
    return _binary(arith.DivUIOp, a, b)


def urem(a: Any, b: Any) -> Any:
    """``arith.remui``: ``a % b`` of unsigned integers."""
    return _binary(arith.RemUIOp, a, b)


def truncdiv(a: Any, b: Any) -> Any:
    """``arith.divsi``: C's ``a / b`` (rounds toward zero; Python's ``//`` floors)."""
    return _binary(arith.DivSIOp, a, b)


def truncmod(a: Any, b: Any) -> Any:
    """``arith.remsi``: C's ``a % b`` (the sign of ``a``; Python's ``%`` has the divisor's)."""
    return _binary(arith.RemSIOp, a, b)


def cmp(predicate: str, a: Any, b: Any) -> Cond:
    """``arith.cmpi predicate, a, b``: ``Tx.cmp("ult", t, 32)`` (Python's ``<`` is ``slt``)."""
    if predicate not in PREDICATES:
        raise ScriptError(f"Tx.cmp: predicate {predicate!r} is not one of "
                          f"{', '.join(PREDICATES)}")
    return Cond(arith.CmpiOp(*_operands("cmp", a, b), predicate).result)


def zext(value: Any, dtype: str) -> Scalar:
    """``arith.extui``: an integer zero-extended to the wider ``dtype`` (``"i64"``)."""
    t = parse_type(dtype)
    if not isinstance(value, Scalar) or not isinstance(value.type, IntegerType) or \
            not isinstance(t, IntegerType) or t.width.data <= value.type.width.data:
        got = type_text(value.type) if isinstance(value, Scalar) else type(value).__name__
        raise ScriptError(f"Tx.zext extends an integer value to a wider integer type, not "
                          f"{got} to {type_text(t)}")
    return Scalar(arith.ExtUIOp(value.value, t).result)
