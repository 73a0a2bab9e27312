"""How scalar ``arith`` prints in each source language: the operator tables, stated once.

A `Spelling` is a format template over the op's operands (``{0}``, ``{1}``, ``{2}``) and, where
a cast needs it, the result type (``{t}``, spelled by the printer's ``scalar_type``). Where a
language's operator agrees with the op only for non-negative operands, ``nonneg`` is the form
used when the printer proves both operands >= 0; ``template`` None means the op is printed only
then, and ``why`` says what differs. The differences that matter:

=====================  ===========================  ==========================================
op                     Python (``PYTHON``)          C and C++ (``C``, ``CPP``)
=====================  ===========================  ==========================================
arith.floordivsi       ``a // b`` (floors)          ``/`` truncates toward zero: corrected by
                                                    ``- (a % b != 0 && (a < 0) != (b < 0))``;
                                                    plain ``a / b`` when a, b >= 0
arith.divsi / remsi    only for a, b >= 0: ``//``   ``a / b``, ``a % b`` (truncate, as the op)
                       and ``%`` floor
arith.ceildivsi        ``-(-a // b)``               ``a / b + (a % b != 0 && (a < 0) == (b <
                                                    0))``
arith.divui / remui /  ``//``, ``%``, ``-(-a // b)``  only for a, b >= 0 (C's ``/`` on a signed
ceildivui                                           operand is not an unsigned division)
arith.shli / shrsi     ``<<``, ``>>`` (arithmetic)  ``<<``, ``>>`` (arithmetic on GCC, Clang
                                                    and NVCC; C++20 makes it the rule)
arith.shrui            only for a >= 0              only for a >= 0
arith.cmpi             ``== != < <= > >=``          the same (unsigned predicates: the same
                                                    operators, values taken as non-negative)
arith.cmpf             ordered ``oeq ogt oge olt ole`` and ``une``: ``== > >= < <= !=``
                       (IEEE comparisons in both languages); the others are refused
arith.select           ``b if c else d``            ``c ? b : d``
arith.min* / max*      ``min(a, b)``, ``max(a, b)``  ``a < b ? a : b``, ``a > b ? a : b``
                                                    (unsigned forms: only for a, b >= 0)
andi / ori / xori      ``and or !=`` on i1,         ``&& || !=`` on i1, ``& | ^`` otherwise
                       ``& | ^`` otherwise
casts                  none, ``float(a)``,          none for integer widening, ``(t)a``
                       ``int(a)`` (truncates)       otherwise
=====================  ===========================  ==========================================

Integer arithmetic is exact in Python and wraps at the operand width in C; the printers emit
index arithmetic whose values fit in 64 bits (literals outside it are refused). ``min`` /
``max`` / ``?:`` do not propagate NaN the way ``arith.minimumf`` / ``maximumf`` do.
"""

from __future__ import annotations

import keyword
import math
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Spelling:
    template: str | None
    nonneg: str | None = None
    why: str = ""
    hint: str = ""


def _always(template: str) -> Spelling:
    return Spelling(template)


CMPI = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
        "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
CMPF = {"oeq": "==", "ogt": ">", "oge": ">=", "olt": "<", "ole": "<=", "une": "!="}

_COMMON = {
    "arith.addi": "({0} + {1})", "arith.addf": "({0} + {1})",
    "arith.subi": "({0} - {1})", "arith.subf": "({0} - {1})",
    "arith.muli": "({0} * {1})", "arith.mulf": "({0} * {1})",
    "arith.divf": "({0} / {1})", "arith.negf": "(-{0})",
    "arith.shli": "({0} << {1})", "arith.shrsi": "({0} >> {1})",
    "arith.index_cast": "{0}", "arith.extsi": "{0}", "arith.extui": "{0}",
}
_SHRUI = Spelling(None, nonneg="({0} >> {1})", why="shifts in zeros, which >> on a negative "
                  "value does not")


@dataclass(frozen=True)
class OperatorTable:
    """One language's spelling of every scalar arith op it prints (keyed by op name)."""

    language: str
    ops: Mapping[str, Spelling]
    boolean: Mapping[str, str]
    """``andi`` / ``ori`` / ``xori`` on i1 (the ``ops`` entry is the bitwise form)."""
    true: str
    false: str
    nan: str
    inf: str
    wrap_negative: bool = False
    """Whether a negative literal is parenthesised (C: ``- -1`` would read as ``--``)."""
    cmpi: Mapping[str, str] = field(default_factory=lambda: CMPI)
    cmpf: Mapping[str, str] = field(default_factory=lambda: CMPF)

    def int_literal(self, value: int) -> str:
        text = str(value)
        return f"({text})" if value < 0 and self.wrap_negative else text

    def float_literal(self, value: float) -> str:
        if math.isnan(value):
            return self.nan
        if math.isinf(value):
            text = self.inf if value > 0 else f"-{self.inf}"
        else:
            text = repr(value)
        return f"({text})" if text.startswith("-") and self.wrap_negative else text


_PY_NEEDS_NONNEG = "truncates toward zero, which Python's // and % do not"
_PY_NONNEG_HINT = "use arith.floordivsi, or operands that are provably >= 0"

PYTHON_OPERATORS = OperatorTable(
    language="Python",
    ops={**{k: _always(v) for k, v in _COMMON.items()},
         "arith.floordivsi": _always("({0} // {1})"),
         "arith.divui": _always("({0} // {1})"), "arith.remui": _always("({0} % {1})"),
         "arith.divsi": Spelling(None, "({0} // {1})", _PY_NEEDS_NONNEG, _PY_NONNEG_HINT),
         "arith.remsi": Spelling(None, "({0} % {1})", _PY_NEEDS_NONNEG, _PY_NONNEG_HINT),
         "arith.ceildivsi": _always("(-(-{0} // {1}))"),
         "arith.ceildivui": _always("(-(-{0} // {1}))"),
         "arith.shrui": _SHRUI,
         **{f"arith.{m}": _always("min({0}, {1})") for m in ("minsi", "minui", "minimumf")},
         **{f"arith.{m}": _always("max({0}, {1})") for m in ("maxsi", "maxui", "maximumf")},
         "arith.andi": _always("({0} & {1})"), "arith.ori": _always("({0} | {1})"),
         "arith.xori": _always("({0} ^ {1})"),
         "arith.select": _always("({1} if {0} else {2})"),
         "arith.extf": _always("{0}"), "arith.truncf": _always("{0}"),
         "arith.sitofp": _always("float({0})"), "arith.uitofp": _always("float({0})"),
         "arith.fptosi": _always("int({0})")},
    boolean={"arith.andi": "({0} and {1})", "arith.ori": "({0} or {1})",
             "arith.xori": "({0} != {1})"},
    true="True", false="False", nan="math.nan", inf="math.inf")

_C_UNSIGNED = "divides as unsigned, which C's / and % on a signed operand do not"
_C_MIN = "(({0} < {1}) ? {0} : {1})"
_C_MAX = "(({0} > {1}) ? {0} : {1})"

C_OPERATORS = OperatorTable(
    language="C",
    ops={**{k: _always(v) for k, v in _COMMON.items()},
         "arith.floordivsi": Spelling(
             "(({0} / {1}) - ((({0} % {1}) != 0) && (({0} < 0) != ({1} < 0))))",
             nonneg="({0} / {1})"),
         "arith.divsi": _always("({0} / {1})"), "arith.remsi": _always("({0} % {1})"),
         "arith.ceildivsi": Spelling(
             "(({0} / {1}) + ((({0} % {1}) != 0) && (({0} < 0) == ({1} < 0))))",
             nonneg="(({0} / {1}) + (({0} % {1}) != 0))"),
         "arith.divui": Spelling(None, "({0} / {1})", _C_UNSIGNED),
         "arith.remui": Spelling(None, "({0} % {1})", _C_UNSIGNED),
         "arith.ceildivui": Spelling(None, "(({0} / {1}) + (({0} % {1}) != 0))", _C_UNSIGNED),
         "arith.shrui": _SHRUI,
         "arith.minsi": _always(_C_MIN), "arith.minimumf": _always(_C_MIN),
         "arith.maxsi": _always(_C_MAX), "arith.maximumf": _always(_C_MAX),
         "arith.minui": Spelling(None, _C_MIN, "compares as unsigned"),
         "arith.maxui": Spelling(None, _C_MAX, "compares as unsigned"),
         "arith.andi": _always("({0} & {1})"), "arith.ori": _always("({0} | {1})"),
         "arith.xori": _always("({0} ^ {1})"),
         "arith.select": _always("({0} ? {1} : {2})"),
         **{f"arith.{c}": _always("(({t}){0})")
            for c in ("extf", "truncf", "sitofp", "uitofp", "fptosi")}},
    boolean={"arith.andi": "({0} && {1})", "arith.ori": "({0} || {1})",
             "arith.xori": "({0} != {1})"},
    true="1", false="0", nan="NAN", inf="INFINITY", wrap_negative=True)


@dataclass(frozen=True)
class Language:
    """What a source printer needs to know about its output language."""

    name: str
    operators: OperatorTable
    reserved: frozenset[str]
    indent: int
    empty_block: str | None = None
    """The statement an otherwise empty indented block needs (Python: ``pass``)."""
    comment: str = "//"
    """What starts a line comment (a block holding only comments is empty)."""


PYTHON = Language(
    "Python", PYTHON_OPERATORS,
    frozenset({*keyword.kwlist, "range", "int", "float", "min", "max",
               "bool", "print", "len", "abs"}),
    indent=4, empty_block="pass", comment="#")

_C_KEYWORDS = frozenset("""auto break case char const continue default do double else enum
extern float for goto if inline int long register restrict return short signed sizeof static
struct switch typedef union unsigned void volatile while _Bool _Complex _Imaginary bool true
false NULL main""".split())
C = Language("C", C_OPERATORS, _C_KEYWORDS, indent=2)
CPP = Language("C++", C_OPERATORS, _C_KEYWORDS | frozenset("""alignas alignof and and_eq asm
bitand bitor catch char8_t char16_t char32_t class compl concept consteval constexpr constinit
const_cast co_await co_return co_yield decltype delete dynamic_cast explicit export friend
mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
reinterpret_cast requires static_assert static_cast template this thread_local throw try typeid
typename using virtual wchar_t xor xor_eq""".split()), indent=2)
