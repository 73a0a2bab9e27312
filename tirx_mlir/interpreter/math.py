"""Interpreter implementations of every ``math`` op on scalars (xDSL registers none by default).

Floats are computed in double precision with numpy (so a domain error gives NaN, not a Python
exception) and rounded to the result type; ``math.fma`` therefore rounds twice for f64
operands (exact for f32 and narrower, whose products fit in a double). Integer ops (``absi``,
``ipowi``, ``ctlz``, ``cttz``, ``ctpop``) work on the value's bits at its width.
"""

from __future__ import annotations

import math as pymath
from functools import cached_property
from typing import Callable

import numpy as np
from xdsl.dialects import math
from xdsl.interpreter import (Interpreter, InterpreterFunctions, PythonValues, impl,
                              register_impls)
from xdsl.ir import Operation

from tirx_mlir.interpreter.arith import _Facts, round_float, unsigned, wrap


def _round_half_away(x: float) -> float:
    return float(np.copysign(np.floor(np.abs(x) + 0.5), x)) if np.isfinite(x) else x


def _rsqrt(x: float) -> float:
    return 1.0 / np.sqrt(x)


FLOAT_UNARY: dict[type[Operation], Callable[[float], float]] = {
    math.AbsFOp: np.abs, math.AcosOp: np.arccos, math.AcoshOp: np.arccosh,
    math.AsinOp: np.arcsin, math.AsinhOp: np.arcsinh, math.AtanOp: np.arctan,
    math.AtanhOp: np.arctanh, math.CbrtOp: np.cbrt, math.CeilOp: np.ceil, math.CosOp: np.cos,
    math.CoshOp: np.cosh, math.ErfOp: pymath.erf, math.Exp2Op: np.exp2, math.ExpM1Op: np.expm1,
    math.ExpOp: np.exp, math.FloorOp: np.floor, math.Log10Op: np.log10, math.Log1pOp: np.log1p,
    math.Log2Op: np.log2, math.LogOp: np.log, math.RoundEvenOp: np.rint,
    math.RoundOp: _round_half_away, math.RsqrtOp: _rsqrt, math.SinOp: np.sin,
    math.SinhOp: np.sinh, math.SqrtOp: np.sqrt, math.TanOp: np.tan, math.TanhOp: np.tanh,
    math.TruncOp: np.trunc,
}
"""math op -> function of one double (math.round rounds half away from zero)."""

FLOAT_BINARY: dict[type[Operation], Callable[[float, float], float]] = {
    math.Atan2Op: np.arctan2, math.CopySignOp: np.copysign, math.PowFOp: np.power,
}


def _ipow(base: int, exp: int) -> int:
    """MLIR ipowi: a negative exponent gives 0 unless the base is 1 or -1."""
    if exp >= 0:
        return base ** exp
    if base == 1:
        return 1
    if base == -1:
        return -1 if exp % 2 else 1
    return 0


class MathFunctions(InterpreterFunctions):
    """All math ops; the float ones run `_float_unary` / `_float_binary` with the function from
    `FLOAT_UNARY` / `FLOAT_BINARY`."""

    @cached_property
    def facts(self) -> _Facts:
        return _Facts()

    def _float_unary(self, interp: Interpreter, op: Operation, args: PythonValues):
        with np.errstate(all="ignore"):
            value = float(FLOAT_UNARY[type(op)](np.float64(args[0])))
        return (round_float(value, self.facts.dtype(op)),)

    def _float_binary(self, interp: Interpreter, op: Operation, args: PythonValues):
        with np.errstate(all="ignore"):
            value = float(FLOAT_BINARY[type(op)](np.float64(args[0]), np.float64(args[1])))
        return (round_float(value, self.facts.dtype(op)),)

    @impl(math.FmaOp)
    def run_fma(self, interp: Interpreter, op: math.FmaOp, args: PythonValues):
        a, b, c = (np.float64(x) for x in args)
        with np.errstate(all="ignore"):
            return (round_float(float(a * b + c), self.facts.dtype(op)),)

    @impl(math.FPowIOp)
    def run_fpowi(self, interp: Interpreter, op: math.FPowIOp, args: PythonValues):
        with np.errstate(all="ignore"):
            value = float(np.power(np.float64(args[0]), float(int(args[1]))))
        return (round_float(value, self.facts.dtype(op)),)

    @impl(math.IPowIOp)
    def run_ipowi(self, interp: Interpreter, op: math.IPowIOp, args: PythonValues):
        return (wrap(_ipow(int(args[0]), int(args[1])), self.facts.width(interp, op)),)

    @impl(math.AbsIOp)
    def run_absi(self, interp: Interpreter, op: math.AbsIOp, args: PythonValues):
        return (wrap(abs(int(args[0])), self.facts.width(interp, op)),)

    @impl(math.CountLeadingZerosOp)
    def run_ctlz(self, interp: Interpreter, op: Operation, args: PythonValues):
        w = self.facts.width(interp, op)
        return (w - unsigned(args[0], w).bit_length(),)

    @impl(math.CountTrailingZerosOp)
    def run_cttz(self, interp: Interpreter, op: Operation, args: PythonValues):
        w = self.facts.width(interp, op)
        value = unsigned(args[0], w)
        return (w if value == 0 else (value & -value).bit_length() - 1,)

    @impl(math.CtPopOp)
    def run_ctpop(self, interp: Interpreter, op: Operation, args: PythonValues):
        return (bin(unsigned(args[0], self.facts.width(interp, op))).count("1"),)

    # ---- table-driven: FLOAT_UNARY / FLOAT_BINARY give the function ----
    @impl(math.AbsFOp)
    def run_absf(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.AcosOp)
    def run_acos(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.AcoshOp)
    def run_acosh(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.AsinOp)
    def run_asin(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.AsinhOp)
    def run_asinh(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.AtanOp)
    def run_atan(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.AtanhOp)
    def run_atanh(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.CbrtOp)
    def run_cbrt(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.CeilOp)
    def run_ceil(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.CosOp)
    def run_cos(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.CoshOp)
    def run_cosh(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.ErfOp)
    def run_erf(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.Exp2Op)
    def run_exp2(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.ExpM1Op)
    def run_expm1(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.ExpOp)
    def run_exp(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.FloorOp)
    def run_floor(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.Log10Op)
    def run_log10(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.Log1pOp)
    def run_log1p(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.Log2Op)
    def run_log2(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.LogOp)
    def run_log(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.RoundEvenOp)
    def run_roundeven(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.RoundOp)
    def run_round(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.RsqrtOp)
    def run_rsqrt(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.SinOp)
    def run_sin(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.SinhOp)
    def run_sinh(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.SqrtOp)
    def run_sqrt(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.TanOp)
    def run_tan(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.TanhOp)
    def run_tanh(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.TruncOp)
    def run_trunc(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_unary(interp, op, args)

    @impl(math.Atan2Op)
    def run_atan2(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_binary(interp, op, args)

    @impl(math.CopySignOp)
    def run_copysign(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_binary(interp, op, args)

    @impl(math.PowFOp)
    def run_powf(self, interp: Interpreter, op: Operation, args: PythonValues):
        return self._float_binary(interp, op, args)


register_impls(MathFunctions)
