"""The device ``printf`` format language the ``cuda.printf`` op accepts, stated once.

A closed subset of C's (CUDA C++ Programming Guide, "Formatted Output"): each conversion is
``%[flags][width][.precision][length]conversion`` with flags from ``-+ #0``, decimal width and
precision (``*`` is not accepted: pass the value in the text), length ``h``, ``l`` or ``ll``,
and a conversion from ``d i u x X o c`` (integers) or ``f F e E g G a A`` (floats); ``%%``
prints a percent sign. ``%s``, ``%p`` and ``%n`` are rejected: there are no string or pointer
values in this IR, and ``%n`` writes memory.

Arguments are typed: an integer conversion without ``l``/``ll`` takes an integer of at most 32
bits, with ``l``/``ll`` a 64-bit integer; a float conversion takes f16, bf16, f32 or f64
(promoted to double, as C's varargs do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.rules import RuleError

INT_CONVERSIONS = "diuxXoc"
FLOAT_CONVERSIONS = "fFeEgGaA"
_SPEC = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\d*)(?:\.(?P<precision>\d*))?"
                   r"(?P<length>hh|h|ll|l)?(?P<conv>[A-Za-z%]?)")


@dataclass(frozen=True)
class Conversion:
    """One ``%`` conversion of a format string."""

    text: str
    length: str
    conversion: str
    flags: str = ""
    width: str = ""
    precision: str | None = None
    """The digits after ``.`` (``""`` for a bare ``.``), None without a precision."""

    @property
    def is_float(self) -> bool:
        return self.conversion in FLOAT_CONVERSIONS

    def accepts(self, t: Attribute) -> bool:
        if self.is_float:
            return dtypes.is_supported(t) and dtypes.is_float(t)
        if not isinstance(t, IntegerType):
            return False
        return t.width.data == 64 if self.length in ("l", "ll") else t.width.data <= 32

    def expected(self) -> str:
        if self.is_float:
            return "a float (f16, bf16, f32 or f64)"
        if self.length in ("l", "ll"):
            return "a 64-bit integer (i64)"
        return "an integer of at most 32 bits (i32)"


def conversions(fmt: str) -> list[Conversion]:
    """The conversions of ``fmt`` that take an argument, in order; raises RuleError naming the
    first one outside the accepted set."""
    return [p for p in pieces(fmt) if isinstance(p, Conversion)]


def pieces(fmt: str) -> list[str | Conversion]:
    """``fmt`` as its literal text (``%%`` already one ``%``) and its conversions, in order;
    raises RuleError as `conversions` does."""
    out: list[str | Conversion] = []
    pos = literal = 0
    while (start := fmt.find("%", pos)) >= 0:
        m = _SPEC.match(fmt, start)
        assert m is not None  # the pattern matches any "%"
        text, conv = m.group(0), m.group("conv")
        pos = m.end()
        if conv == "%" and text == "%%":
            out.append(fmt[literal:start] + "%")
            literal = pos
            continue
        if conv == "" or conv not in INT_CONVERSIONS + FLOAT_CONVERSIONS:
            shown = fmt[start:pos + (0 if conv else 1)]
            raise RuleError(f"the format conversion '{shown}' at offset {start} is not "
                            f"supported; use one of %d %i %u %x %X %o %c %f %e %g %a (with "
                            f"optional flags, width, precision and h/l/ll), or %% for '%'")
        out.append(fmt[literal:start])
        out.append(Conversion(text, m.group("length") or "", conv, m.group("flags"),
                              m.group("width"), m.group("precision")))
        literal = pos
    out.append(fmt[literal:])
    return [p for p in out if p != ""]
