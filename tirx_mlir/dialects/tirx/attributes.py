"""Types and attributes of the ``tirx`` dialect.

* ``!tirx.buffer<128x512xf32, shared, S[(128,512):(512,1)]>``: a buffer (or a view of one) with
  a shape, an element type, a memory scope and an optional TileLayout.
* ``#tirx.layout<...>``: a TileLayout on its own (layout.py holds the algebra).
* ``#tirx.exec_scope<cta>``: an execution scope (cluster > cta > warpgroup > warp > thread).
* ``#tirx.target<"cuda -arch=sm_90a">``: a compilation target, as text (tirx_mlir.target parses it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Callable, TypeVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, NoneAttr, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Data, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from tirx_mlir import registry
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.layout import LayoutError, TileLayout, layout_from_text
from tirx_mlir.type_tests import IsInstance

T = TypeVar("T")

# --- memory scopes ------------------------------------------------------------------------------

CORE_MEMORY_SCOPES = {
    "global": "device global memory (off chip)",
    "shared": "memory shared by the threads of a CTA, statically sized",
    "shared.dyn": "the dynamically sized arena of memory shared by the threads of a CTA",
    "local": "per-thread memory (registers)",
}
"""The scopes of TVM's storage model; a backend registers its own memories' scopes with
`tirx_mlir.registry.register_memory_scope` from its ``register_backend()``."""
for _name, _desc in CORE_MEMORY_SCOPES.items():
    registry.memory_scopes.register(_name, _desc, owner="core")


def decoded(attr: Attribute, key: str, decode: Callable[[Attribute], T]) -> T:
    """``decode(attr)``, computed once per attribute object and kept on it: attributes are
    immutable, so what is read off one (a shape, an array's values) never changes. The value is
    stored beside the dataclass fields, which alone make the attribute's equality and hash."""
    memo = attr.__dict__
    try:
        return memo[key]
    except KeyError:
        value = memo[key] = decode(attr)
        return value


def known_memory_scopes() -> list[str]:
    """The core's scopes, then those of the loaded backends."""
    scopes = registry.memory_scopes
    return sorted(scopes.keys(), key=lambda name: scopes.owner_of(name) != "core")


def _unknown_scope(scope: str) -> str:
    from tirx_mlir.backends import missing_backend_hint

    return f"unknown memory scope '{scope}'; known scopes: {', '.join(known_memory_scopes())}" \
        f"{missing_backend_hint('memory scopes', scope) or ' (a backend may register more)'}"


# --- execution scopes ---------------------------------------------------------------------------


class ExecScope(StrEnum):
    CLUSTER = "cluster"
    CTA = "cta"
    WARPGROUP = "warpgroup"
    WARP = "warp"
    THREAD = "thread"


EXEC_SCOPE_RANK = {ExecScope.CLUSTER: 2, ExecScope.CTA: 3, ExecScope.WARPGROUP: 4,
                   ExecScope.WARP: 5, ExecScope.THREAD: 6}
"""Smaller is wider (TIRx ScopeKind numbering)."""


def scope_is_wider(a: ExecScope, b: ExecScope) -> bool:
    return EXEC_SCOPE_RANK[a] < EXEC_SCOPE_RANK[b]


@irdl_attr_definition
class ExecScopeAttr(EnumAttribute[ExecScope], SpacedOpaqueSyntaxAttribute):
    name = "tirx.exec_scope"


# --- layout -------------------------------------------------------------------------------------


def _raw_body_until_close(parser: AttrParser) -> tuple[str, int]:
    """Consume raw text up to (not including) the ``>`` closing the current attribute.

    The layout DSL uses ``@`` and ``+`` in ways MLIR's tokenizer does not, so it is parsed from
    text. Returns the text and its start offset (for error positions).
    """
    start = parser._current_token.span.start  # noqa: SLF001 - xdsl 0.74 parser API
    gt = parser._raw_scan_balanced(start)  # noqa: SLF001
    parser.lexer.pos = gt
    parser._parser_state.current_token = parser.lexer.lex()  # noqa: SLF001
    return parser.lexer.input.content[start:gt], start


def _parse_layout_text(parser: AttrParser, shape: Sequence[int] | None = None,
                       scope: str = "", element_type: Attribute | None = None) -> TileLayout:
    """The layout text up to the closing ``>``; in a buffer type (``shape`` given) also a
    quoted shorthand of the scope (`layout.layout_from_text`)."""
    text, start = _raw_body_until_close(parser)
    try:
        if shape is None:
            return TileLayout.parse(text)
        return layout_from_text(text, shape, scope, element_type)
    except LayoutError as err:
        parser.raise_error(f"invalid layout: {err}", start, start + len(text))
        raise  # unreachable


@irdl_attr_definition
class LayoutAttr(Data[TileLayout]):
    """``#tirx.layout<S[(128,512):(512,1)]>``."""

    name = "tirx.layout"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> TileLayout:
        parser.parse_punctuation("<")
        layout = _parse_layout_text(parser)
        parser.parse_punctuation(">")
        return layout

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data}>")


# --- buffers ------------------------------------------------------------------------------------


def _shape_of(t: "BufferType") -> tuple[int, ...]:
    return tuple(d.data for d in t.shape.data)


def _sibling_type(of: "BufferType", shape: tuple[int, ...],
                  layout: "TileLayout | None") -> "BufferType":
    """``BufferType(shape, of.element_type, of.scope_name, layout)``, built from ``of``'s own
    (verified) element type and scope attributes: xDSL's constructor would check again that
    each parameter is of its declared kind, which these are by construction (a shape of
    `_int_attr`s, a `LayoutAttr` or `NoneAttr`); the type's own rules (`BufferType.verify`:
    positive dims, the layout covering the shape) run as they do there.
    tests/dialects/tirx/test_attributes.py compares the two."""
    made = object.__new__(BufferType)
    params = (ArrayAttr(tuple(_int_attr(d) for d in shape)), of.element_type, of.scope,
              _NO_LAYOUT if layout is None else LayoutAttr(layout))
    for (name, _), value in zip(_BUFFER_PARAMS, params):
        object.__setattr__(made, name, value)
    made.verify()
    return made


def _int_attr(value: int) -> IntAttr:
    """``IntAttr(value)``, equal ones shared (attributes are immutable values)."""
    found = _INT_ATTRS.get(value)
    if found is None:
        if len(_INT_ATTRS) >= _INT_ATTRS_KEPT:
            _INT_ATTRS.clear()
        found = _INT_ATTRS[value] = IntAttr(value)
    return found


_INT_ATTRS: dict[int, IntAttr] = {}
_INT_ATTRS_KEPT = 4096
_NO_LAYOUT = NoneAttr()


@irdl_attr_definition
class BufferType(ParametrizedAttribute, TypeAttribute):
    """A tile buffer: ``!tirx.buffer<shape x dtype, scope[, layout]>``.

    The layout is optional: without one, a buffer is row-major on the memory axis ``m`` (and a
    backend's layout lowering picks its physical default for its memories).
    Views made by ``tirx.slice`` carry no layout; they are read through the buffer they view.
    """

    name = "tirx.buffer"

    shape: ArrayAttr[IntAttr]
    element_type: Attribute
    scope: StringAttr
    layout: LayoutAttr | NoneAttr

    def __init__(self, shape: Sequence[int], element_type: Attribute, scope: str = "global",
                 layout: TileLayout | LayoutAttr | None = None):
        if isinstance(layout, TileLayout):
            layout = LayoutAttr(layout)
        super().__init__(ArrayAttr([IntAttr(d) for d in shape]), element_type,
                         StringAttr(scope), layout or NoneAttr())

    # ---- accessors ----
    def get_shape(self) -> tuple[int, ...]:
        try:  # `decoded`'s memo, read inline: the most asked fact of a buffer type
            return self.__dict__["_shape"]
        except KeyError:
            return decoded(self, "_shape", _shape_of)

    @property
    def rank(self) -> int:
        return len(self.shape.data)

    @property
    def numel(self) -> int:
        return math.prod(self.get_shape())

    @property
    def scope_name(self) -> str:
        return self.scope.data

    def get_layout(self) -> TileLayout | None:
        layout = self.layout
        return None if type(layout) is NoneAttr else layout.data  # type: ignore[union-attr]

    def with_shape(self, shape: Sequence[int], layout: TileLayout | None = None) -> "BufferType":
        """This buffer type with another shape (and layout); each distinct one is made (and
        verified) once per type object and shared, as types are immutable values."""
        made = decoded(self, "_with_shape", lambda _: {})
        key = (tuple(shape), layout)
        found = made.get(key)
        if found is None:
            found = made[key] = _sibling_type(self, key[0], layout)
        return found

    def __str__(self) -> str:  # used in diagnostics
        lay = "" if self.get_layout() is None else f", {self.get_layout()}"
        dims = "x".join(map(str, self.get_shape()))
        return f"!tirx.buffer<{dims}{'x' if dims else ''}{dtypes.type_name(self.element_type)}, " \
               f"{self.scope_name}{lay}>"

    # ---- verification ----
    def verify(self) -> None:
        shape = self.get_shape()
        for d in shape:
            if d <= 0:
                raise VerifyException(f"buffer dimensions must be positive, got {list(shape)}")
        if not dtypes.is_supported(self.element_type):
            raise VerifyException(
                f"unsupported buffer element type {self.element_type}; use one of "
                f"{', '.join(dtypes.SUPPORTED_ELEMENT_TYPES)}")
        if self.scope_name not in registry.memory_scopes:
            raise VerifyException(_unknown_scope(self.scope_name))
        layout = self.get_layout()
        if layout is not None:
            try:
                layout.verify_well_formed()
                layout.verify_covers(shape)
            except LayoutError as err:
                raise VerifyException(str(err)) from None

    # ---- syntax ----
    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        parser.parse_punctuation("<")
        shape, elem = parser.parse_ranked_shape()
        if any(d < 0 for d in shape):
            parser.raise_error("tirx buffers have static shapes; replace '?' by a size")
        parser.parse_punctuation(",", " between the element type and the memory scope")
        start = parser.pos
        scope = parser.parse_optional_identifier() or parser.parse_optional_str_literal()
        if scope is None:
            parser.raise_error(
                f"expected a memory scope ({', '.join(known_memory_scopes())})")
        if scope not in registry.memory_scopes:  # before the layout, whose axes it may own
            parser.raise_error(_unknown_scope(scope), start, start + len(scope))
        layout: Attribute = NoneAttr()
        if parser.parse_optional_punctuation(",") is not None:
            layout = LayoutAttr(_parse_layout_text(parser, shape, scope, elem))
        parser.parse_punctuation(">", " at the end of the buffer type")
        return [ArrayAttr([IntAttr(d) for d in shape]), elem, StringAttr(scope), layout]

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            shape = self.get_shape()
            if shape:
                printer.print_dimension_list(shape)
                printer.print_string("x")
            printer.print_attribute(self.element_type)
            scope = self.scope_name
            printer.print_string(", ")
            if all(c.isalnum() or c in "._" for c in scope) and scope[:1].isalpha():
                printer.print_string(scope)
            else:
                printer.print_string_literal(scope)
            if not isinstance(self.layout, NoneAttr):
                printer.print_string(f", {self.layout.data}")


is_buffer_type = IsInstance(BufferType)
"""``isinstance(t, BufferType)``, answered once per attribute class (`tirx_mlir.type_tests`)."""

_BUFFER_PARAMS = tuple(BufferType.get_irdl_definition().parameters)
"""(name, definition) of BufferType's parameters in order, for `_sibling_type`."""
assert [n for n, _ in _BUFFER_PARAMS] == ["shape", "element_type", "scope", "layout"] and \
    all(d.converter is None for _, d in _BUFFER_PARAMS), "xDSL changed how parameters are set"


# --- targets ------------------------------------------------------------------------------------


@irdl_attr_definition
class TargetAttr(Data[str]):
    """``#tirx.target<"aws/trn1/trn1.2xlarge">``: a target string or tag, resolved lazily by
    tirx_mlir.target (so parsing IR never imports a backend)."""

    name = "tirx.target"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> str:
        with parser.in_angle_brackets():
            return parser.parse_str_literal()

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.data)
