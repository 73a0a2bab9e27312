"""What every ``nki`` op shares: operand roles, one custom syntax, and the verifier skeleton.

Custom form (one grammar for all nki ops)::

    nki.<op> <positional operands> (<keyword> <value>)* attr-dict? : <operand types>

* positional operands are tiles (``!tirx.buffer`` values, usually ``tirx.slice`` views) or, where
  NKI takes a scalar, f32/integer SSA values;
* an optional operand is written ``<its name> %value`` (``bias %b``, ``operand1 %c``);
* a property is written ``<its name> <value>``: a flag is a bare keyword (``negate``), a name an
  identifier (``op add``), an integer ``offset 3``, an integer list ``axes [1]``, a float
  ``on_false -inf`` and an access pattern ``pattern [[-1, 128], [1, 4]]``;
* the types of all present operands follow the colon, in declaration order.

A subclass declares operands and properties with IRDL, lists the operands it writes in
``DSTS`` and those that may be scalars in ``SCALARS``, names the custom-syntax kind of each
property in ``KEYWORDS``, and states its hardware rules in ``verify_nki(limits)``.
"""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.dialects.builtin import (DenseArrayBase, FloatAttr, IntegerAttr, StringAttr, UnitAttr,
                                   f32, i64)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, OptOperandDef
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx.attributes import BufferType


class NkiOp(IRDLOperation):
    """Base class of the nki ops (one NKI ISA instruction each)."""

    DSTS: ClassVar[tuple[str, ...]] = ("dst",)
    """Operands the instruction writes."""
    SCALARS: ClassVar[tuple[str, ...]] = ()
    """Operands that may be an SSA scalar instead of a tile."""
    KEYWORDS: ClassVar[dict[str, str]] = {}
    """Custom-syntax kind of each property: flag, name, int, ints, float, pattern."""
    ENGINE: ClassVar[str] = "vector"
    """The engine that runs the instruction (documentation and placement rules)."""
    SYNTAX_ORDER: ClassVar[tuple[str, ...]] = ()
    """Print order of optional operands and properties (unlisted ones follow)."""

    # ---- construction ----
    def __init__(self, *operands: SSAValue | None, **props: object):
        """Operands in declaration order (None for an absent optional one); properties by
        name as Python values (bool -> flag, str -> name, int, list[int], float, pattern)."""
        op_def = type(self).get_irdl_definition()
        if len(operands) > len(op_def.operands):
            raise ValueError(f"{self.name} takes at most {len(op_def.operands)} operands")
        operand_args: list = []
        for i, (name, odef) in enumerate(op_def.operands):
            value = operands[i] if i < len(operands) else None
            if isinstance(odef, OptOperandDef):
                operand_args.append([] if value is None else [value])
            elif value is None:
                raise ValueError(f"{self.name}: operand '{name}' is required")
            else:
                operand_args.append(value)
        properties = {}
        for name, value in props.items():
            if name not in self.KEYWORDS:
                raise ValueError(f"{self.name} has no property '{name}'; properties: "
                                 f"{', '.join(self.KEYWORDS) or '(none)'}")
            attr = to_attr(self.KEYWORDS[name], value)
            if attr is not None:
                properties[name] = attr
        super().__init__(operands=operand_args, properties=properties)

    # ---- queries shared by verifier, interpreter, printers ----
    def named_operands(self) -> dict[str, SSAValue]:
        """Present operands by name, in declaration order."""
        out: dict[str, SSAValue] = {}
        for name, _ in type(self).get_irdl_definition().operands:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out

    def flag(self, name: str) -> bool:
        return self.properties.get(name) is not None

    def name_prop(self, name: str, default: str | None = None) -> str | None:
        attr = self.properties.get(name)
        return default if attr is None else attr.data  # type: ignore[union-attr]

    def int_prop(self, name: str, default: int = 0) -> int:
        attr = self.properties.get(name)
        return default if attr is None else attr.value.data  # type: ignore[union-attr]

    def ints_prop(self, name: str, default: tuple[int, ...] = ()) -> tuple[int, ...]:
        attr = self.properties.get(name)
        return default if attr is None else tuple(attr.get_values())  # type: ignore

    def float_prop(self, name: str, default: float = 0.0) -> float:
        attr = self.properties.get(name)
        return default if attr is None else float(attr.value.data)  # type: ignore[union-attr]

    def pattern_prop(self, name: str = "pattern") -> tuple[tuple[int, int], ...]:
        """An access pattern ``[[step, num], ...]`` (stored flat)."""
        flat = self.ints_prop(name)
        return tuple(zip(flat[0::2], flat[1::2]))

    def limits(self) -> TrnLimits:
        return checks.limits_for(self)

    # ---- verification ----
    def verify_(self) -> None:
        try:
            limits = checks.limits_for(self)
            for name, value in self.named_operands().items():
                self._verify_operand_kind(name, value)
                if isinstance(value.type, BufferType):
                    checks.check_tile(self, name, value, limits)
            self.verify_nki(limits)
        except rules.RuleError as err:
            raise VerifyException(str(err)) from None  # tools prefix "'<op>' op"

    def _verify_operand_kind(self, name: str, value: SSAValue) -> None:
        if isinstance(value.type, BufferType):
            return
        if name not in self.SCALARS:
            raise rules.RuleError(f"operand '{name}' must be a tile (!tirx.buffer), got "
                                  f"{value.type}")
        if not checks.is_scalar_type(value.type):
            raise rules.RuleError(f"operand '{name}' must be a tile or an f32/integer scalar, "
                                  f"got {value.type}")

    def verify_nki(self, limits: TrnLimits) -> None:
        """Op-specific hardware rules; raise rules.RuleError."""

    # ---- syntax ----
    @classmethod
    def parse(cls, parser: Parser) -> "NkiOp":
        op_def = cls.get_irdl_definition()
        positional = [n for n, d in op_def.operands if not isinstance(d, OptOperandDef)]
        optional = [n for n, d in op_def.operands if isinstance(d, OptOperandDef)]
        unresolved: dict[str, object] = {}
        for i, name in enumerate(positional):
            if i:
                parser.parse_punctuation(",", f" before operand '{name}' of {cls.name}")
            unresolved[name] = parser.parse_unresolved_operand(
                f"{cls.name} expects {len(positional)} operands ({', '.join(positional)})")
        props: dict[str, Attribute] = {}
        keywords = [*optional, *cls.KEYWORDS]
        while (kw := parser.parse_optional_keyword_in(keywords)) is not None:
            if kw in optional:
                unresolved[kw] = parser.parse_unresolved_operand()
            else:
                props[kw] = parse_keyword_value(parser, cls.KEYWORDS[kw], kw)
        attrs = parser.parse_optional_attr_dict()
        names = [n for n, _ in op_def.operands if n in unresolved]
        parser.parse_punctuation(":", f" before the operand types of {cls.name}")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(names):
            parser.raise_error(f"{cls.name} has {len(names)} operands ({', '.join(names)}) "
                               f"but {len(types)} types")
        resolved = {n: parser.resolve_operand(unresolved[n], t)  # type: ignore[arg-type]
                    for n, t in zip(names, types)}
        operand_args = [([resolved[n]] if n in resolved else []) if isinstance(d, OptOperandDef)
                        else resolved[n] for n, d in op_def.operands]
        op = cls.build(operands=operand_args, properties=props)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        op_def = type(self).get_irdl_definition()
        positional = [getattr(self, n) for n, d in op_def.operands
                      if not isinstance(d, OptOperandDef)]
        printer.print_string(" ")
        printer.print_list(positional, printer.print_operand)
        optional = [n for n, d in op_def.operands if isinstance(d, OptOperandDef)]
        order = [*self.SYNTAX_ORDER, *(n for n in [*optional, *self.KEYWORDS]
                                       if n not in self.SYNTAX_ORDER)]
        for name in order:
            if name in self.KEYWORDS:
                if (attr := self.properties.get(name)) is not None:
                    printer.print_string(f" {name}{keyword_text(self.KEYWORDS[name], attr)}")
            elif (value := getattr(self, name)) is not None:
                printer.print_string(f" {name} ")
                printer.print_operand(value)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.named_operands().values()],
                           printer.print_attribute)


# --- keyword properties -------------------------------------------------------------------------


def to_attr(kind: str, value: object) -> Attribute | None:
    """Python value -> property attribute for a keyword of ``kind`` (None: leave unset)."""
    if value is None or value is False:
        return None
    if isinstance(value, Attribute):
        return value
    if kind == "flag":
        return UnitAttr()
    if kind == "name":
        return StringAttr(str(value))
    if kind == "int":
        return IntegerAttr(int(value), i64)  # type: ignore[arg-type]
    if kind == "ints":
        return DenseArrayBase.from_list(i64, [int(v) for v in value])  # type: ignore
    if kind == "pattern":
        flat = [int(x) for pair in value for x in pair]  # type: ignore[union-attr]
        return DenseArrayBase.from_list(i64, flat)
    if kind == "float":
        return FloatAttr(float(value), f32)  # type: ignore[arg-type]
    raise ValueError(f"cannot convert {value!r} to a '{kind}' property")


def _parse_float(parser: Parser) -> float:
    negative = parser.parse_optional_punctuation("-") is not None
    if parser.parse_optional_keyword("inf") is not None:
        value = math.inf
    elif parser.parse_optional_keyword("nan") is not None:
        value = math.nan
    else:
        value = float(parser.parse_number())
    return -value if negative else value


def parse_keyword_value(parser: Parser, kind: str, kw: str) -> Attribute:
    if kind == "flag":
        return UnitAttr()
    if kind == "name":
        return StringAttr(parser.parse_identifier(f" after '{kw}'"))
    if kind == "int":
        return IntegerAttr(parser.parse_integer(), i64)
    if kind == "ints":
        values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        return DenseArrayBase.from_list(i64, values)
    if kind == "pattern":
        def pair() -> list[int]:
            values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                       parser.parse_integer)
            if len(values) != 2:
                parser.raise_error(f"'{kw}' entries are [step, num] pairs")
            return values
        pairs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, pair)
        return DenseArrayBase.from_list(i64, [x for p in pairs for x in p])
    if kind == "float":
        return FloatAttr(_parse_float(parser), f32)
    raise AssertionError(kind)


def keyword_text(kind: str, attr: Attribute) -> str:
    if kind == "flag":
        return ""
    if kind == "name":
        assert isinstance(attr, StringAttr)
        return f" {attr.data}"
    if kind == "int":
        assert isinstance(attr, IntegerAttr)
        return f" {attr.value.data}"
    if kind == "ints":
        assert isinstance(attr, DenseArrayBase)
        return f" {list(attr.get_values())}"
    if kind == "pattern":
        assert isinstance(attr, DenseArrayBase)
        flat = list(attr.get_values())
        return " [" + ", ".join(f"[{s}, {n}]" for s, n in zip(flat[0::2], flat[1::2])) + "]"
    if kind == "float":
        assert isinstance(attr, FloatAttr)
        return f" {float(attr.value.data)!r}"
    raise AssertionError(kind)
