"""Interpreter implementations of every ``arith`` op on scalars, replacing xDSL's partial set.

xDSL 0.74 implements 21 of its 47 arith ops (it has no ``arith.remf``) and keeps float results
in double precision. This module implements all 47 with the values xDSL uses (Python ints in signed form for ``index`` and
``iN``, Python bools for ``i1``, Python floats) and rounds every float result to its type
(f32, f16, bf16, fp8: round to nearest even), so scalar code computes what the hardware computes.

Choices where MLIR leaves the result undefined (poison or UB), so a run never silently goes on:

* integer division or remainder by zero, and shifts by the bit width or more, raise an error;
* ``fptosi``/``fptoui`` truncate toward zero and saturate, NaN gives 0 (the store rule of
  `runtime.convert`, as ``tirx.cast`` documents);
* ``divf`` follows IEEE 754 (x/0 is ±inf, 0/0 is NaN).
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Attribute, Operation

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.interpreter import runtime
from tirx_mlir.interpreter.runtime import InterpretError

F64 = np.dtype(np.float64)


# --- value helpers (shared with math.py) --------------------------------------------------------


def int_width(interp: Interpreter, t: Attribute) -> int:
    """Bit width of an integer or index type."""
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return interp.index_bitwidth
    raise InterpretError(f"expected an integer or index type, got {t}")


def wrap(value: int, width: int) -> int | bool:
    """``value`` modulo 2**width in signed form (a bool for width 1)."""
    if width == 1:
        return bool(value & 1)
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def unsigned(value: int, width: int) -> int:
    return int(value) & ((1 << width) - 1)


def float_dtype(t: Attribute) -> np.dtype:
    """numpy dtype of a float type (f16, bf16, f32, f64, fp8)."""
    try:
        return dtypes.numpy_dtype(t)
    except KeyError:
        raise InterpretError(f"unsupported float type {t}") from None


def round_float(value: float, dt: np.dtype) -> float:
    """``value`` rounded to nearest even in ``dt``."""
    if dt == F64:
        return float(value)
    with np.errstate(over="ignore"):
        return float(np.asarray(value, dtype=F64).astype(dt))


class _Facts(runtime.PerOpCache):
    """Per-op cache of the widths and dtypes an implementation needs."""

    def width(self, interp: Interpreter, op: Operation, operand: bool = False) -> int:
        return self.get(op, ("width", operand), lambda: int_width(
            interp, op.operands[0].type if operand else op.results[0].type))

    def dtype(self, op: Operation, operand: bool = False) -> np.dtype:
        return self.get(op, ("dtype", operand), lambda: float_dtype(
            op.operands[0].type if operand else op.results[0].type))


_CMPI = {
    0: lambda a, b: a == b, 1: lambda a, b: a != b,
    2: lambda a, b: a < b, 3: lambda a, b: a <= b, 4: lambda a, b: a > b, 5: lambda a, b: a >= b,
    6: lambda a, b: a < b, 7: lambda a, b: a <= b, 8: lambda a, b: a > b, 9: lambda a, b: a >= b,
}
"""arith.cmpi predicate -> comparison (6..9 compare the unsigned values)."""

_CMPF = {
    0: lambda x, y, o: False, 1: lambda x, y, o: o and x == y, 2: lambda x, y, o: o and x > y,
    3: lambda x, y, o: o and x >= y, 4: lambda x, y, o: o and x < y,
    5: lambda x, y, o: o and x <= y, 6: lambda x, y, o: o and x != y, 7: lambda x, y, o: o,
    8: lambda x, y, o: not o or x == y, 9: lambda x, y, o: not o or x > y,
    10: lambda x, y, o: not o or x >= y, 11: lambda x, y, o: not o or x < y,
    12: lambda x, y, o: not o or x <= y, 13: lambda x, y, o: not o or x != y,
    14: lambda x, y, o: not o, 15: lambda x, y, o: True,
}
"""arith.cmpf predicate -> comparison; ``o`` says neither operand is NaN."""


def _trunc_div(a: int, b: int) -> int:
    """Integer division rounding toward zero (C, MLIR divsi)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _ieee_min_max(a: float, b: float, pick) -> float:
    """IEEE 754-2019 maximum/minimum: NaN propagates, -0.0 < +0.0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return pick(a, b, key=lambda z: math.copysign(1.0, z))
    return pick(a, b)


def _float_op(fn):
    with np.errstate(all="ignore"):
        return float(fn())


_PREPARED_INT2 = {arith.AddiOp: lambda a, b: a + b, arith.SubiOp: lambda a, b: a - b,
                  arith.MuliOp: lambda a, b: a * b}
"""The integer ops `ArithFunctions.prepare_op` prepares (what `_int2` computes for each)."""


@register_impls
class ArithFunctions(InterpreterFunctions):
    """All arith ops (registered over xDSL's, see make_interpreter)."""

    @cached_property
    def facts(self) -> _Facts:
        return _Facts()

    # ---- constants and select ----
    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: PythonValues):
        return (self.facts.get(op, "constant", lambda: self._constant(interp, op)),)

    def prepare_op(self, interp: Interpreter, op: Operation):
        """A constant, or an index/integer add, sub or mul, with its value or width decoded
        once (`core.BlockPlan`); None for the others (they run through their impl)."""
        if isinstance(op, arith.ConstantOp):
            try:
                value = (self._constant(interp, op),)
            except InterpretError:
                return None  # reported where it runs
            return lambda args: value
        fn = _PREPARED_INT2.get(type(op))
        if fn is None:
            return None
        w = int_width(interp, op.results[0].type)
        if w == 1:
            return lambda args: (wrap(fn(int(args[0]), int(args[1])), w),)
        low, high = -(1 << (w - 1)), 1 << (w - 1)

        def run(args: PythonValues) -> tuple:
            value = fn(int(args[0]), int(args[1]))
            # in range, `wrap` returns the value itself: skip its masking
            return (value if low <= value < high else wrap(value, w),)

        return run

    @staticmethod
    def _constant(interp: Interpreter, op: arith.ConstantOp) -> int | bool | float:
        """The constant's value (an immutable scalar, so it is computed once per op)."""
        value = op.value
        if isinstance(value, IntegerAttr):
            return wrap(value.value.data, int_width(interp, value.type))
        if isinstance(value, FloatAttr):
            return round_float(value.value.data, float_dtype(value.type))
        raise InterpretError(f"only scalar constants are supported, got {value}", op)

    @impl(arith.SelectOp)
    def run_select(self, interp: Interpreter, op: arith.SelectOp, args: PythonValues):
        cond, lhs, rhs = args
        if isinstance(cond, np.ndarray):
            return (np.where(cond, lhs, rhs),)
        return (lhs if cond else rhs,)

    # ---- integer arithmetic ----
    def _int2(self, interp, op, args, fn, use_unsigned=False):
        w = self.facts.width(interp, op)
        a, b = args
        if use_unsigned:
            a, b = unsigned(a, w), unsigned(b, w)
        return (wrap(fn(int(a), int(b)), w),)

    @impl(arith.AddiOp)
    def run_addi(self, interp, op, args):
        return self._int2(interp, op, args, lambda a, b: a + b)

    @impl(arith.SubiOp)
    def run_subi(self, interp, op, args):
        return self._int2(interp, op, args, lambda a, b: a - b)

    @impl(arith.MuliOp)
    def run_muli(self, interp, op, args):
        return self._int2(interp, op, args, lambda a, b: a * b)

    @staticmethod
    def _nonzero(op, b):
        if b == 0:
            raise InterpretError("integer division by zero (undefined behaviour in MLIR)", op)

    @impl(arith.DivSIOp)
    def run_divsi(self, interp, op, args):
        self._nonzero(op, args[1])
        return self._int2(interp, op, args, _trunc_div)

    @impl(arith.DivUIOp)
    def run_divui(self, interp, op, args):
        self._nonzero(op, args[1])
        return self._int2(interp, op, args, lambda a, b: a // b, use_unsigned=True)

    @impl(arith.RemSIOp)
    def run_remsi(self, interp, op, args):
        self._nonzero(op, args[1])
        return self._int2(interp, op, args, lambda a, b: a - b * _trunc_div(a, b))

    @impl(arith.RemUIOp)
    def run_remui(self, interp, op, args):
        self._nonzero(op, args[1])
        return self._int2(interp, op, args, lambda a, b: a % b, use_unsigned=True)

    @impl(arith.FloorDivSIOp)
    def run_floordivsi(self, interp, op, args):
        self._nonzero(op, args[1])
        return self._int2(interp, op, args, lambda a, b: a // b)

    @impl(arith.CeilDivSIOp)
    def run_ceildivsi(self, interp, op, args):
        self._nonzero(op, args[1])
        return self._int2(interp, op, args, lambda a, b: -(-a // b))

    @impl(arith.CeilDivUIOp)
    def run_ceildivui(self, interp, op, args):
        self._nonzero(op, args[1])
        return self._int2(interp, op, args, lambda a, b: -(-a // b), use_unsigned=True)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interp, op, args):
        return self._int2(interp, op, args, max)

    @impl(arith.MinSIOp)
    def run_minsi(self, interp, op, args):
        return self._int2(interp, op, args, min)

    @impl(arith.MaxUIOp)
    def run_maxui(self, interp, op, args):
        return self._int2(interp, op, args, max, use_unsigned=True)

    @impl(arith.MinUIOp)
    def run_minui(self, interp, op, args):
        return self._int2(interp, op, args, min, use_unsigned=True)

    @impl(arith.AndIOp)
    def run_andi(self, interp, op, args):
        return self._int2(interp, op, args, lambda a, b: a & b)

    @impl(arith.OrIOp)
    def run_ori(self, interp, op, args):
        return self._int2(interp, op, args, lambda a, b: a | b)

    @impl(arith.XOrIOp)
    def run_xori(self, interp, op, args):
        return self._int2(interp, op, args, lambda a, b: a ^ b)

    def _shift(self, interp, op, args, fn, use_unsigned=False):
        w = self.facts.width(interp, op)
        amount = unsigned(args[1], w)
        if amount >= w:
            raise InterpretError(f"shift by {amount} bits of an i{w} value (poison in MLIR)", op)
        a = unsigned(args[0], w) if use_unsigned else int(args[0])
        return (wrap(fn(a, amount), w),)

    @impl(arith.ShLIOp)
    def run_shli(self, interp, op, args):
        return self._shift(interp, op, args, lambda a, n: a << n)

    @impl(arith.ShRSIOp)
    def run_shrsi(self, interp, op, args):
        return self._shift(interp, op, args, lambda a, n: a >> n)

    @impl(arith.ShRUIOp)
    def run_shrui(self, interp, op, args):
        return self._shift(interp, op, args, lambda a, n: a >> n, use_unsigned=True)

    @impl(arith.AddUIExtendedOp)
    def run_addui_extended(self, interp, op, args):
        w = self.facts.width(interp, op)
        total = unsigned(args[0], w) + unsigned(args[1], w)
        return (wrap(total, w), total >> w != 0)

    @impl(arith.MulSIExtendedOp)
    def run_mulsi_extended(self, interp, op, args):
        w = self.facts.width(interp, op)
        full = int(args[0]) * int(args[1])
        return (wrap(full, w), wrap(full >> w, w))

    @impl(arith.MulUIExtendedOp)
    def run_mului_extended(self, interp, op, args):
        w = self.facts.width(interp, op)
        full = unsigned(args[0], w) * unsigned(args[1], w)
        return (wrap(full, w), wrap(full >> w, w))

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp, op, args):
        pred = op.predicate.value.data
        a, b = int(args[0]), int(args[1])
        if pred >= 6:
            w = self.facts.width(interp, op, operand=True)
            a, b = unsigned(a, w), unsigned(b, w)
        return (bool(_CMPI[pred](a, b)),)

    # ---- float arithmetic (rounded to the result type) ----
    def _float2(self, op, fn, a, b):
        return (round_float(_float_op(lambda: fn(np.float64(a), np.float64(b))),
                            self.facts.dtype(op)),)

    @impl(arith.AddfOp)
    def run_addf(self, interp, op, args):
        return self._float2(op, np.add, *args)

    @impl(arith.SubfOp)
    def run_subf(self, interp, op, args):
        return self._float2(op, np.subtract, *args)

    @impl(arith.MulfOp)
    def run_mulf(self, interp, op, args):
        return self._float2(op, np.multiply, *args)

    @impl(arith.DivfOp)
    def run_divf(self, interp, op, args):
        return self._float2(op, np.true_divide, *args)

    @impl(arith.MaximumfOp)
    def run_maximumf(self, interp, op, args):
        return (_ieee_min_max(float(args[0]), float(args[1]), max),)

    @impl(arith.MinimumfOp)
    def run_minimumf(self, interp, op, args):
        return (_ieee_min_max(float(args[0]), float(args[1]), min),)

    @impl(arith.MaxnumfOp)
    def run_maxnumf(self, interp, op, args):
        return self._float2(op, np.fmax, *args)

    @impl(arith.MinnumfOp)
    def run_minnumf(self, interp, op, args):
        return self._float2(op, np.fmin, *args)

    @impl(arith.NegfOp)
    def run_negf(self, interp, op, args):
        return (-float(args[0]),)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interp, op, args):
        x, y = float(args[0]), float(args[1])
        ordered = not (math.isnan(x) or math.isnan(y))
        return (bool(_CMPF[op.predicate.value.data](x, y, ordered)),)

    # ---- conversions ----
    @impl(arith.ExtFOp)
    def run_extf(self, interp, op, args):
        return (float(args[0]),)

    @impl(arith.TruncFOp)
    def run_truncf(self, interp, op, args):
        return (round_float(args[0], self.facts.dtype(op)),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interp, op, args):
        return (round_float(float(int(args[0])), self.facts.dtype(op)),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interp, op, args):
        w = self.facts.width(interp, op, operand=True)
        return (round_float(float(unsigned(args[0], w)), self.facts.dtype(op)),)

    def _float_to_int(self, interp, op, value, kind):
        w = self.facts.width(interp, op)
        if w == 1:
            return (bool(float(value) != 0.0),)
        dt = np.dtype(f"{kind}{max(w, 8) // 8}") if w in (8, 16, 32, 64) else np.dtype(np.int64)
        return (wrap(int(runtime.convert(float(value), dt)), w),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interp, op, args):
        return self._float_to_int(interp, op, args[0], "i")

    @impl(arith.FPToUIOp)
    def run_fptoui(self, interp, op, args):
        return self._float_to_int(interp, op, args[0], "u")

    @impl(arith.ExtSIOp)
    def run_extsi(self, interp, op, args):
        value = args[0]
        if isinstance(value, bool):  # an i1 true sign-extends to all ones
            return (-1 if value else 0,)
        return (int(value),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interp, op, args):
        return (unsigned(args[0], self.facts.width(interp, op, operand=True)),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interp, op, args):
        return (wrap(int(args[0]), self.facts.width(interp, op)),)

    @impl(arith.IndexCastOp)
    def run_index_cast(self, interp, op, args):
        return (wrap(int(args[0]), self.facts.width(interp, op)),)

    @impl(arith.BitcastOp)
    def run_bitcast(self, interp, op, args):
        src_dt = dtypes.numpy_dtype(op.operands[0].type)
        dst_dt = dtypes.numpy_dtype(op.results[0].type)
        if not runtime.is_float_dtype(src_dt):
            src_dt = np.dtype(f"i{src_dt.itemsize}")  # ints travel in signed form
        if not runtime.is_float_dtype(dst_dt):
            dst_dt = np.dtype(f"i{dst_dt.itemsize}")
        bits = np.asarray(args[0]).astype(src_dt).view(dst_dt)
        return (runtime.to_python(bits[()]),)
