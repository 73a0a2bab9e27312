"""Unsigned 64-bit division and remainder by a constant, printed without a division routine.

ptxas (CUDA 13.0) does not strength-reduce ``div.u64`` / ``rem.u64``, not even by an immediate
power of two: each one becomes a CALL to a subroutine of about 80 instructions (the 32-bit forms
are reduced). Index arithmetic is 64-bit here (``index``), and the layouts' thread and register
decompositions divide by constants, so the printer reduces them itself:

* ``d = 2^k``: ``x >> k`` and ``x & (d - 1)``;
* any other ``d > 2``: Granlund and Montgomery, "Division by Invariant Integers using
  Multiplication" (PLDI 1994), Figure 4.1, for N = 64: with ``l = ceil(log2 d)`` and
  ``m = floor(2^64 (2^l - d) / d) + 1``, ``t = mulhi(m, x)`` and
  ``q = (t + ((x - t) >> 1)) >> (l - 1)`` equal ``floor(x / d)`` for every 64-bit ``x``;
* the remainder is ``x - q * d``.

A zero divisor keeps ``div.u64`` (arith leaves it undefined). The printed sequences are run by
tests/backends/cuda/printers/ptx/test_arith_semantics.py's evaluator against Python's exact
arithmetic, on divisors from 1 to ``2^64 - 1``.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.printers.ptx import registers as regs

WIDTH = 64


def constant_divisor(value: SSAValue) -> int | None:
    """The unsigned 64-bit value of ``value`` when an ``arith.constant`` defines it and it is
    not zero, else None."""
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
        return None
    d = owner.value.value.data % 2**WIDTH
    return d or None


def magic(d: int) -> tuple[int, int]:
    """``(m, l - 1)`` of the module docstring for a divisor ``d > 2`` that is not a power of
    two."""
    shift = (d - 1).bit_length()  # l = ceil(log2 d)
    return (2**WIDTH * (2**shift - d)) // d + 1, shift - 1


def u64_literal(value: int) -> str:
    """A PTX integer literal of an unsigned 64-bit value (hex with ``U`` above the signed
    range, where a plain literal would not be one)."""
    return f"0x{value:016X}U" if value >= 2**63 else str(value)


class ConstantDivision:
    """A mixin of the PTX printer: ``divui`` / ``remui`` on index or i64 by a constant."""

    def constant_udiv(self, op: Operation) -> bool:
        """Print ``op`` (arith.divui or arith.remui) by a constant divisor as shifts, masks or
        a multiply-high; False when its divisor is not a constant (the caller prints div/rem)."""
        x, divisor = op.operands
        d = constant_divisor(divisor)
        if d is None:
            return False
        xr, result = self.reg(x), op.results[0]
        remainder = op.name == "arith.remui"
        if d & (d - 1) == 0:
            k = d.bit_length() - 1
            if remainder:
                self.line(f"and.b64 {self.define(result)}, {xr}, {u64_literal(d - 1)};")
            else:
                self.line(f"shr.u64 {self.define(result)}, {xr}, {k};")
            return True
        m, shift = magic(d)
        t, u = self.temp(regs.B64), self.temp(regs.B64)
        self.line(f"mul.hi.u64 {t}, {xr}, {u64_literal(m)};")
        self.line(f"sub.s64 {u}, {xr}, {t};")
        self.line(f"shr.u64 {u}, {u}, 1;")
        self.line(f"add.s64 {u}, {u}, {t};")
        if not remainder:
            self.line(f"shr.u64 {self.define(result)}, {u}, {shift};")
            return True
        q = self.temp(regs.B64)
        self.line(f"shr.u64 {q}, {u}, {shift};")
        self.line(f"mul.lo.s64 {q}, {q}, {u64_literal(d)};")
        self.line(f"sub.s64 {self.define(result)}, {xr}, {q};")
        return True
