"""One operand/keyword syntax for tile primitives and backend instruction ops.

    <results> = <op> <head>? <positional operands> (<keyword> <value>)* <tail>? attr-dict? region?
                : <operand types> (-> <result types>)?

* positional operands are the op's required operands, in declaration order;
* an optional operand is written ``<its name> %value`` (``bias %b``); a variadic one (declared
  last) ``<its name> [%a, %b]``, left out when empty (``symbols [%i]``);
* a property is written ``<its name> <value>`` by its *kind*: ``flag`` is a bare keyword
  (``accum``), ``name`` an identifier (``reduce sum``), ``int`` an integer, ``ints`` a list
  (``axes [-1]``), ``float`` a number or ``inf``/``-inf``/``nan``, ``pattern`` a list of
  ``[step, num]`` pairs, ``predicate`` an integer set (``where (d0, d1) : (d1 - d0 >= 0)``);
* the types of all present operands follow the colon, in declaration order; an op with results
  adds ``-> <result types>`` (``: <result types>`` alone when no operand is present).

`KeywordOp` implements construction from Python values, the typed property accessors and this
syntax once; the tile primitives (tile_base.py) add an exec-scope head and ``dispatch``/``config``
tail, and backends' dialects use it as is.
"""

from __future__ import annotations

import math
from typing import Callable, ClassVar, Sequence

from xdsl.dialects.builtin import (AffineSetAttr, DenseArrayBase, FloatAttr, IntegerAttr,
                                   StringAttr, UnitAttr, f32, i64)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, OptOperandDef, VarOperandDef
from xdsl.irdl.operations import AttrSizedOperandSegments, OptRegionDef
from xdsl.parser import Parser
from xdsl.utils.mlir_lexer import MLIRTokenKind
from xdsl.printer import Printer

from tirx_mlir.dialects.tirx.kernel import int_values
from tirx_mlir.dialects.tirx.op_build import build_op
from tirx_mlir.dialects.tirx.predicate import format_affine_set
from tirx_mlir.type_tests import IsInstance


# --- property kinds -----------------------------------------------------------------------------


def _parse_float(parser: Parser) -> float:
    negative = parser.parse_optional_punctuation("-") is not None
    if parser.parse_optional_keyword("inf") is not None:
        value = math.inf
    elif parser.parse_optional_keyword("nan") is not None:
        value = math.nan
    else:
        value = float(parser.parse_number())
    return -value if negative else value


def _parse_pattern(parser: Parser, kw: str) -> DenseArrayBase:
    def pair() -> list[int]:
        values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        if len(values) != 2:
            parser.raise_error(f"'{kw}' entries are [step, num] pairs")
        return values

    pairs = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, pair)
    return DenseArrayBase.from_list(i64, [x for p in pairs for x in p])


def _ints(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def _pattern_text(attr: Attribute) -> str:
    flat = list(attr.get_values())  # type: ignore[attr-defined]
    return "[" + ", ".join(f"[{s}, {n}]" for s, n in zip(flat[0::2], flat[1::2])) + "]"


class _Kind:
    def __init__(self, convert: Callable[[object], Attribute],
                 parse: Callable[[Parser, str], Attribute], text: Callable[[Attribute], str]):
        self.convert, self.parse, self.text = convert, parse, text


KINDS: dict[str, _Kind] = {
    "flag": _Kind(lambda v: UnitAttr(), lambda p, kw: UnitAttr(), lambda a: ""),
    "name": _Kind(lambda v: StringAttr(str(v)),
                  lambda p, kw: StringAttr(p.parse_identifier(f" after '{kw}'")),
                  lambda a: f" {a.data}"),  # type: ignore[attr-defined]
    "int": _Kind(lambda v: IntegerAttr(int(v), i64),  # type: ignore[arg-type]
                 lambda p, kw: IntegerAttr(p.parse_integer(), i64),
                 lambda a: f" {a.value.data}"),  # type: ignore[attr-defined]
    "ints": _Kind(lambda v: DenseArrayBase.from_list(i64, [int(x) for x in v]),  # type: ignore
                  lambda p, kw: DenseArrayBase.from_list(i64, _ints(p)),
                  lambda a: f" {list(a.get_values())}"),  # type: ignore[attr-defined]
    "float": _Kind(lambda v: FloatAttr(float(v), f32),  # type: ignore[arg-type]
                   lambda p, kw: FloatAttr(_parse_float(p), f32),
                   lambda a: f" {float(a.value.data)!r}"),  # type: ignore[attr-defined]
    "pattern": _Kind(lambda v: DenseArrayBase.from_list(i64, [int(x) for pair in v  # type: ignore
                                                              for x in pair]),
                     _parse_pattern, lambda a: f" {_pattern_text(a)}"),
    "predicate": _Kind(lambda v: AffineSetAttr(v),  # type: ignore[arg-type]
                       lambda p, kw: AffineSetAttr(p.parse_affine_set()),
                       lambda a: f" {format_affine_set(a.data)}"),  # type: ignore[attr-defined]
}


_IS_ATTRIBUTE = IsInstance(Attribute)


def to_attr(kind: str, value: object) -> Attribute | None:
    """Python value -> property attribute of ``kind`` (None or False: leave the property unset)."""
    if value is None or value is False:
        return None
    if _IS_ATTRIBUTE(value):  # a Python value's first answer does not walk Attribute's subclasses
        return value
    # a one-shot iterable (a generator, map) is read once, for the memo key and the conversion
    if kind == "ints" and not isinstance(value, (list, tuple)):
        value = list(value)  # type: ignore[call-overload]
    elif kind == "pattern":
        value = [tuple(pair) for pair in value]  # type: ignore[attr-defined]
    key = _attr_key(kind, value)
    if key is None:
        return KINDS[kind].convert(value)
    attr = _ATTRS.get(key)
    if attr is None:
        if len(_ATTRS) >= _ATTRS_MAX:
            _ATTRS.clear()
        attr = _ATTRS[key] = KINDS[kind].convert(value)
    return attr


_ATTRS: dict[tuple, Attribute] = {}
"""(kind, normalised value) -> its attribute: attributes are immutable values, so ops built with
the same property share one (building a dense array is the costly part of building an op)."""
_ATTRS_MAX = 4096


def _attr_key(kind: str, value: object) -> tuple | None:
    """The memo key of a property value, None for one not memoised (floats: -0.0 == 0.0;
    affine sets)."""
    try:
        if kind == "name":
            return ("name", str(value))
        if kind == "int":
            return ("int", int(value))  # type: ignore[call-overload]
        if kind == "ints":
            return ("ints", tuple(int(x) for x in value))  # type: ignore[attr-defined]
        if kind == "pattern":
            return ("pattern", tuple(int(x) for pair in value for x in pair))  # type: ignore
        if kind == "flag":
            return ("flag",)
    except (TypeError, ValueError):
        return None  # the conversion itself reports it
    return None


def _variadic(op_cls: type) -> list[tuple[str, VarOperandDef]]:
    return [(n, d) for n, d in op_cls.get_irdl_definition().operands
            if isinstance(d, VarOperandDef) and not isinstance(d, OptOperandDef)]


_OPERAND_SEGMENTS: dict[type, tuple[tuple[tuple[str, str], ...], AttrSizedOperandSegments | None]] = {}
"""op class -> ((operand name, "single" | "optional" | "variadic") in declaration order, its
segment-size option): an op class's operand declaration, read once (classes do not change)."""


def _operand_segments(op_cls: type
                      ) -> tuple[tuple[tuple[str, str], ...], AttrSizedOperandSegments | None]:
    found = _OPERAND_SEGMENTS.get(op_cls)
    if found is None:
        op_def = op_cls.get_irdl_definition()
        kinds = tuple((n, "optional" if isinstance(d, OptOperandDef) else
                       "variadic" if isinstance(d, VarOperandDef) else "single")
                      for n, d in op_def.operands)
        option = next((o for o in op_def.options if isinstance(o, AttrSizedOperandSegments)),
                      None)
        found = _OPERAND_SEGMENTS[op_cls] = (kinds, option)
    return found


def _segment_sizes(op: IRDLOperation) -> tuple[tuple[str, str, int], ...]:
    """(name, kind, how many operands) of each operand definition of ``op``, from its segment
    sizes decoded once (xDSL's named accessors decode them at every access)."""
    op_cls = type(op)
    kinds, option = _operand_segments(op_cls)
    if option is not None:
        key = (op_cls, option.container(op)[option.attribute_name])
    else:  # at most one non-single operand, taking what the single ones leave
        key = (op_cls, len(op.operands))
    found = _SEGMENTS.get(key)
    if found is None:
        if option is not None:
            sizes = key[1].get_values()  # type: ignore[attr-defined]
        else:
            rest = len(op.operands) - sum(1 for _, k in kinds if k == "single")
            sizes = tuple(1 if k == "single" else rest for _, k in kinds)
        found = _SEGMENTS[key] = tuple((n, k, size) for (n, k), size in zip(kinds, sizes))
    return found


_SEGMENTS: dict[tuple, tuple[tuple[str, str, int], ...]] = {}
"""(op class, its segment-size attribute or operand count) -> `_segment_sizes` (attributes are
immutable values; an op set has few distinct segmentations)."""


# --- the base op --------------------------------------------------------------------------------


def unknown_keyword(what: str, key: str, op_cls: type) -> str:
    """The one message for a name an op does not take, in IR text and in the Python builder:
    ``tirx.sum has no operand or property 'axis'; it takes dst, src, workspace, axes, accum``."""
    names = [n for n, _ in op_cls.get_irdl_definition().operands]
    return (f"{what} has no operand or property '{key}'; it takes "
            f"{', '.join([*names, *op_cls.KEYWORDS])}")


class KeywordOp(IRDLOperation):
    """Base of ops written in the operand/keyword syntax above."""

    DSTS: ClassVar[tuple[str, ...]] = ("dst",)
    """Names of the operands the op writes."""
    KEYWORDS: ClassVar[dict[str, str]] = {}
    """Custom-syntax kind of each op-specific property (see KINDS)."""
    SYNTAX_ORDER: ClassVar[tuple[str, ...]] = ()
    """Print order of optional operands and keyword properties (unlisted ones follow)."""

    def __init__(self, *operands: SSAValue | None, regions: Sequence = (),
                 extra_properties: dict[str, Attribute] | None = None,
                 result_types: Sequence[Attribute] = (), **props: object):
        """Operands in declaration order (None for an absent optional one); properties by name
        as Python values (bool -> flag, str -> name, int, list[int], float, pattern...);
        ``result_types`` for an op with results."""
        kinds = _operand_segments(type(self))[0]
        if len(operands) > len(kinds):
            raise ValueError(f"{self.name} takes at most {len(kinds)} operands")
        operand_args: list = []
        for i, (name, kind) in enumerate(kinds):
            value = operands[i] if i < len(operands) else None
            if kind == "optional":
                operand_args.append([] if value is None else [value])
            elif kind == "variadic":
                operand_args.append(list(value or ()))
            elif value is None:
                raise ValueError(f"{self.name}: operand '{name}' is required")
            else:
                operand_args.append(value)
        properties = dict(extra_properties or {})
        for name, value in props.items():
            if name not in self.KEYWORDS:
                raise ValueError(f"{self.name} has no property '{name}'; properties: "
                                 f"{', '.join(self.KEYWORDS) or '(none)'}")
            attr = to_attr(self.KEYWORDS[name], value)
            if attr is not None:
                properties[name] = attr
        if regions:
            super().__init__(operands=operand_args, properties=properties,
                             regions=list(regions), result_types=list(result_types))
        else:
            build_op(self, operand_args, properties, list(result_types))

    # ---- queries shared by verifiers, interpreters, dispatch and printers ----
    def named_operands(self) -> dict[str, SSAValue]:
        """Present single operands by name, in declaration order (variadic ones are
        `variadic_operands`). Kept with the op until its operands or segment sizes change (a
        new operand tuple or attribute object: both are replaced, never mutated); dispatch
        asks several times per op."""
        operands = self._operands
        option = _operand_segments(type(self))[1]
        segments = None if option is None else option.container(self)[option.attribute_name]
        known = self.__dict__.get("_named_operands")
        if known is not None and known[0] is operands and known[1] is segments:
            return dict(known[2])
        out: dict[str, SSAValue] = {}
        pos = 0
        for name, kind, size in _segment_sizes(self):
            if size and kind != "variadic":
                out[name] = operands[pos]
            pos += size
        self.__dict__["_named_operands"] = (operands, segments, out)
        return dict(out)

    def variadic_operands(self) -> dict[str, tuple[SSAValue, ...]]:
        """Variadic operands by name (declared after the single ones)."""
        out: dict[str, tuple[SSAValue, ...]] = {}
        operands, pos = self.operands, 0
        for name, kind, size in _segment_sizes(self):
            if kind == "variadic":
                out[name] = tuple(operands[pos:pos + size])
            pos += size
        return out

    def dst_operands(self) -> list[SSAValue]:
        return [v for n, v in self.named_operands().items() if n in self.DSTS]

    def src_operands(self) -> list[SSAValue]:
        return [v for n, v in self.named_operands().items() if n not in self.DSTS]

    def flag(self, name: str) -> bool:
        return self.properties.get(name) is not None

    def name_prop(self, name: str, default: str | None = None) -> str | None:
        attr = self.properties.get(name)
        return default if attr is None else attr.data  # type: ignore[union-attr]

    def int_prop(self, name: str, default: int = 0) -> int:
        attr = self.properties.get(name)
        return default if attr is None else attr.value.data  # type: ignore[union-attr]

    def ints_prop(self, name: str, default: Sequence[int] = ()) -> tuple[int, ...]:
        attr = self.properties.get(name)
        return tuple(default) if attr is None else int_values(attr)  # type: ignore[arg-type]

    def float_prop(self, name: str, default: float = 0.0) -> float:
        attr = self.properties.get(name)
        return default if attr is None else float(attr.value.data)  # type: ignore[union-attr]

    def pattern_prop(self, name: str = "pattern") -> tuple[tuple[int, int], ...]:
        """An access pattern ``[[step, num], ...]`` (stored flat)."""
        flat = self.ints_prop(name)
        return tuple(zip(flat[0::2], flat[1::2]))

    # ---- hooks for a head (before the operands) and a tail (after the keywords) ----
    TAIL_KEYWORDS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def parse_head(cls, parser: Parser) -> dict[str, Attribute]:
        return {}

    @classmethod
    def parse_tail_keyword(cls, parser: Parser, kw: str) -> Attribute:
        raise AssertionError(kw)

    def print_head(self, printer: Printer) -> None:
        pass

    def print_tail(self, printer: Printer) -> None:
        pass

    # ---- syntax ----
    @classmethod
    def parse(cls, parser: Parser) -> "KeywordOp":
        op_def = cls.get_irdl_definition()
        props = cls.parse_head(parser)
        variadic = [n for n, _ in _variadic(cls)]
        positional = [n for n, d in op_def.operands
                      if not isinstance(d, VarOperandDef) and n not in variadic]
        optional = [n for n, d in op_def.operands if isinstance(d, OptOperandDef)]
        unresolved: dict[str, object] = {}
        lists: dict[str, list] = {n: [] for n in variadic}
        for i, name in enumerate(positional):
            if i:
                parser.parse_punctuation(",", f" before operand '{name}' of {cls.name}")
            unresolved[name] = parser.parse_unresolved_operand(
                f"{cls.name} expects {len(positional)} operands ({', '.join(positional)})")
        keywords = [*optional, *variadic, *cls.KEYWORDS, *cls.TAIL_KEYWORDS]
        while (kw := parser.parse_optional_keyword_in(keywords)) is not None:
            if kw in optional:
                unresolved[kw] = parser.parse_unresolved_operand()
            elif kw in variadic:
                lists[kw] = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, parser.parse_unresolved_operand)
            elif kw in cls.KEYWORDS:
                props[kw] = KINDS[cls.KEYWORDS[kw]].parse(parser, kw)
            else:
                props[kw] = cls.parse_tail_keyword(parser, kw)
        # a word where the keywords end is a misspelt keyword, unless it is the next op (an op
        # without operands or results ends at its keywords: a dotted op name follows)
        token = parser._current_token  # noqa: SLF001 - a look at the next token, not consumed
        if token.kind == MLIRTokenKind.BARE_IDENT and token.text != "attributes" and \
                "." not in token.text and (unresolved or op_def.results):
            parser.raise_error(unknown_keyword(cls.name, token.text, cls), token.span.start,
                               token.span.end)
        if op_def.regions:  # `{` would be ambiguous with the region: use `attributes {..}`
            attrs_kw = parser.parse_optional_attr_dict_with_keyword()
            attrs = {} if attrs_kw is None else dict(attrs_kw.data)
        else:
            attrs = parser.parse_optional_attr_dict()
        regions = []
        for _, rdef in op_def.regions:
            if (region := parser.parse_optional_region()) is not None:
                regions.append(region)
            elif not isinstance(rdef, OptRegionDef):
                parser.raise_error(f"{cls.name} expects a region")
        names = [n for n, _ in op_def.operands if n in unresolved]
        listed = [u for n in variadic for u in lists[n]]
        types: list[Attribute] = []
        if names or listed:
            parser.parse_punctuation(":", f" before the operand types of {cls.name}")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            if len(types) != len(names) + len(listed):
                shown = names + [f"{n}[..]" for n in variadic if lists[n]]
                parser.raise_error(f"{cls.name} has {len(names) + len(listed)} operands "
                                   f"({', '.join(shown)}) but {len(types)} types")
        result_types = cls._parse_result_types(parser, bool(names)) if op_def.results else []
        resolved = {n: parser.resolve_operand(unresolved[n], t)  # type: ignore[arg-type]
                    for n, t in zip(names, types)}
        rest = iter(types[len(names):])
        resolved_lists = {n: [parser.resolve_operand(u, next(rest)) for u in lists[n]]
                          for n in variadic}
        operand_args = [resolved_lists[n] if n in resolved_lists else
                        ([resolved[n]] if n in resolved else []) if isinstance(d, OptOperandDef)
                        else resolved[n] for n, d in op_def.operands]
        op = cls.build(operands=operand_args, properties=props, regions=regions,
                       result_types=result_types)
        op.attributes.update(attrs)
        return op

    @classmethod
    def _parse_result_types(cls, parser: Parser, after_operand_types: bool) -> list[Attribute]:
        n = len(cls.get_irdl_definition().results)
        if after_operand_types:
            parser.parse_punctuation("->", f" before the result types of {cls.name}")
        else:
            parser.parse_punctuation(":", f" before the result types of {cls.name}")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(types) != n:
            parser.raise_error(f"{cls.name} has {n} result(s) but {len(types)} result types")
        return types

    def print(self, printer: Printer) -> None:
        op_def = type(self).get_irdl_definition()
        self.print_head(printer)
        positional = [getattr(self, n) for n, d in op_def.operands
                      if not isinstance(d, VarOperandDef)]
        if positional:
            printer.print_string(" ")
            printer.print_list(positional, printer.print_operand)
        optional = [n for n, d in op_def.operands if isinstance(d, OptOperandDef)]
        order = [*self.SYNTAX_ORDER, *(n for n in [*optional, *self.KEYWORDS]
                                       if n not in self.SYNTAX_ORDER)]
        for name in order:
            if name in self.KEYWORDS:
                if (attr := self.properties.get(name)) is not None:
                    printer.print_string(f" {name}{KINDS[self.KEYWORDS[name]].text(attr)}")
            elif (value := getattr(self, name)) is not None:
                printer.print_string(f" {name} ")
                printer.print_operand(value)
        variadic = self.variadic_operands()
        for name, values in variadic.items():
            if values:
                printer.print_string(f" {name} [")
                printer.print_list(values, printer.print_operand)
                printer.print_string("]")
        self.print_tail(printer)
        printer.print_op_attributes(self.attributes, print_keyword=bool(self.regions))
        for region in self.regions:
            printer.print_string(" ")
            printer.print_region(region, print_entry_block_args=False,
                                 print_block_terminators=False)
        values = [*self.named_operands().values(), *(v for vs in variadic.values() for v in vs)]
        if values:
            printer.print_string(" : ")
            printer.print_list([v.type for v in values], printer.print_attribute)
        if self.results:
            printer.print_string(" -> " if values else " : ")
            printer.print_list(self.result_types, printer.print_attribute)
