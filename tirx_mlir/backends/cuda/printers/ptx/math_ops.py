"""The PTX printer's ``math`` ops: the f32 functions the tile dispatch computes with, as the
special-function unit's instructions (PTX ISA "Floating-Point Instructions"):

=================  ==============================================  =========================
``math.exp``       ``mul.f32 t, x, log2(e)`` + ``ex2.approx.f32``  max rel. error ~2^-22
``math.exp2``      ``ex2.approx.f32``                              max rel. error 2^-22
``math.log2``      ``lg2.approx.f32``                              max abs. error 2^-22
``math.sqrt``      ``sqrt.rn.f32`` / ``sqrt.rn.f64``               correctly rounded
``math.rsqrt``     ``rsqrt.approx.f32``                            max rel. error 2^-22.9
=================  ==============================================  =========================

The approximations are what nvcc emits under ``--use_fast_math`` (and what Triton emits for
``tl.exp``); the CUDA C++ printer calls the correctly rounded library functions instead, and the
interpreters compute exactly: the differences are within a few ulp. f64 has only ``sqrt``.
"""

from __future__ import annotations

from xdsl.ir import Operation

from tirx_mlir.backends.cuda.printers.ptx.arith import float_name

LOG2_E_F32 = "0f3FB8AA3B"
"""log2(e) = 1.4426950408889634 as the nearest f32, in PTX's hex float form."""

APPROX = {"math.exp2": "ex2.approx.f32", "math.log2": "lg2.approx.f32",
          "math.rsqrt": "rsqrt.approx.f32"}


class MathOps:
    """Mixin of the PTX printer: the ``math`` ops above."""

    def _f32_only(self, op: Operation) -> None:
        if float_name(op.operands[0].type) != "f32":
            raise self.fail(f"{op.name} on {op.operands[0].type} has no PTX instruction",
                            op, hint="compute in f32 (arith.extf / arith.truncf around it)")

    def _approx(self, op: Operation) -> None:
        self._f32_only(op)
        self.line(f"{APPROX[op.name]} {self.define(op.results[0])}, {self.reg(op.operands[0])};")

    emit_math_exp2 = _approx
    emit_math_log2 = _approx
    emit_math_rsqrt = _approx

    def emit_math_exp(self, op: Operation) -> None:
        self._f32_only(op)
        scaled = self.temp(self.cls_of(op.operands[0]))
        self.line(f"mul.f32 {scaled}, {self.reg(op.operands[0])}, {LOG2_E_F32};")
        self.line(f"ex2.approx.f32 {self.define(op.results[0])}, {scaled};")

    def emit_math_sqrt(self, op: Operation) -> None:
        kind = float_name(op.operands[0].type)
        if kind not in ("f32", "f64"):
            raise self.fail(f"math.sqrt on {op.operands[0].type} has no PTX instruction", op,
                            hint="compute in f32 (arith.extf / arith.truncf around it)")
        self.line(f"sqrt.rn.{kind} {self.define(op.results[0])}, {self.reg(op.operands[0])};")
