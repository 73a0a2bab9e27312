"""Unsigned 64- and 32-bit division and remainder by a constant, printed without a division
routine.

ptxas (CUDA 13.0) does not strength-reduce ``div.u64`` / ``rem.u64``, not even by an immediate
power of two: each one becomes a CALL to a subroutine of about 80 instructions; ``div.u32`` /
``rem.u32`` by an immediate, power of two included, become the reciprocal sequence (``I2F.U32.RP``,
``MUFU.RCP``, ``F2I``, two ``IMAD.HI`` and a fix-up). Index arithmetic is 64-bit (``index``) or,
narrowed by cuda-narrow-index, 32-bit, and the layouts' thread and register decompositions
divide by constants, so the printer reduces them itself, for N = 64 or 32:

* ``d = 2^k``: ``x >> k`` and ``x & (d - 1)``;
* any other ``d > 2``: Granlund and Montgomery, "Division by Invariant Integers using
  Multiplication" (PLDI 1994), Figure 4.1: with ``l = ceil(log2 d)`` and
  ``m = floor(2^N (2^l - d) / d) + 1``, ``t = mulhi(m, x)`` and
  ``q = (t + ((x - t) >> 1)) >> (l - 1)`` equal ``floor(x / d)`` for every N-bit ``x``;
* the remainder is ``x - q * d``.

A zero divisor keeps ``div.u64`` / ``div.u32`` (arith leaves it undefined). The printed sequences are run by
tests/backends/cuda/printers/ptx/test_arith_semantics.py's evaluator against Python's exact
arithmetic, on divisors from 1 to ``2^64 - 1``.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.printers.ptx import registers as regs

WIDTH = 64


def constant_divisor(value: SSAValue, width: int = WIDTH) -> int | None:
    """The unsigned ``width``-bit value of ``value`` when an ``arith.constant`` defines it and
    it is not zero, else None."""
    owner = value.owner
    if not isinstance(owner, arith.ConstantOp) or not isinstance(owner.value, IntegerAttr):
        return None
    d = owner.value.value.data % 2**width
    return d or None


def magic(d: int, width: int = WIDTH) -> tuple[int, int]:
    """``(m, l - 1)`` of the module docstring for a divisor ``d > 2`` that is not a power of
    two."""
    shift = (d - 1).bit_length()  # l = ceil(log2 d)
    return (2**width * (2**shift - d)) // d + 1, shift - 1


def u64_literal(value: int, width: int = WIDTH) -> str:
    """A PTX integer literal of an unsigned ``width``-bit value (hex with ``U`` above the
    signed range, where a plain literal would not be one)."""
    return f"0x{value:0{width // 4}X}U" if value >= 2**(width - 1) else str(value)


class ConstantDivision:
    """A mixin of the PTX printer: ``divui`` / ``remui`` on index, i64 or i32 by a constant."""

    def divisor_constant(self, divisor: SSAValue, width: int) -> int | None:
        """`constant_divisor` (direct_loops.py answers for the records it prints)."""
        return constant_divisor(divisor, width)

    def constant_udiv(self, op: Operation, width: int = WIDTH) -> bool:
        """Print ``op`` (arith.divui or arith.remui on ``width``-bit values) by a constant
        divisor as shifts, masks or a multiply-high; False when its divisor is not a constant
        (the caller prints div/rem)."""
        x, divisor = op.operands
        d = self.divisor_constant(divisor, width)
        if d is None:
            return False
        n, cls = width, (regs.B64 if width == 64 else regs.B32)
        xr, result = self.reg(x), op.results[0]
        remainder = op.name == "arith.remui"
        if d & (d - 1) == 0:
            k = d.bit_length() - 1
            if remainder:
                self.line(f"and.b{n} {self.define(result)}, {xr}, {u64_literal(d - 1, n)};")
            else:
                self.line(f"shr.u{n} {self.define(result)}, {xr}, {k};")
            return True
        m, shift = magic(d, n)
        t, u = self.temp(cls), self.temp(cls)
        self.line(f"mul.hi.u{n} {t}, {xr}, {u64_literal(m, n)};")
        self.line(f"sub.s{n} {u}, {xr}, {t};")
        self.line(f"shr.u{n} {u}, {u}, 1;")
        self.line(f"add.s{n} {u}, {u}, {t};")
        if not remainder:
            self.line(f"shr.u{n} {self.define(result)}, {u}, {shift};")
            return True
        q = self.temp(cls)
        self.line(f"shr.u{n} {q}, {u}, {shift};")
        self.line(f"mul.lo.s{n} {q}, {q}, {u64_literal(d, n)};")
        self.line(f"sub.s{n} {self.define(result)}, {xr}, {q};")
        return True
