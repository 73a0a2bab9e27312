"""What every tile primitive shares: exec scope, forced dispatch variant, config, and syntax.

Custom form (one grammar for all 31 primitives)::

    tirx.<op> <scope>? <operands> (<keyword> <value>)* (dispatch "<variant>")?
              (config {k = v})? attr-dict? region? : <operand types>

* ``<scope>`` is one of cluster, cta, warpgroup, warp, thread (default thread, omitted).
* optional operands and op-specific properties are written as ``keyword value``:
  flags as a bare keyword (``accum``), integer lists as ``axes [-1]``, floats as ``alpha 2.0``,
  names as ``reduce sum``, the select predicate as ``where (d0, d1) : (d1 - d0 - 1 >= 0)``.
* operands are buffers (``!tirx.buffer``) or scalars (index, integer or float SSA values).

A subclass declares its operands with ``operand_def``/``opt_operand_def`` (positional operands
first, in order), its properties with ``prop_def``/``opt_prop_def``, lists which operands it
writes in ``DSTS``, and states its rules in ``verify_tile``.
"""

from __future__ import annotations

from typing import ClassVar, Sequence

from xdsl.dialects.builtin import (AffineSetAttr, DenseArrayBase, DictionaryAttr, Float32Type,
                                   FloatAttr, IndexType, IntegerType, StringAttr, UnitAttr, f32,
                                   i64)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (IRDLOperation, OptOperandDef, OptPropertyDef, opt_prop_def, prop_def)
from xdsl.irdl.operations import OptRegionDef
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx.attributes import (EXEC_SCOPE_RANK, BufferType, ExecScope,
                                                ExecScopeAttr)
from tirx_mlir.dialects.tirx.kernel import KernelOp, enclosing_kernel
from tirx_mlir.dialects.tirx.predicate import format_affine_set

DISPATCHED_ATTR = "tirx.dispatched"
"""Module attribute set by tile dispatch: from then on a remaining tile op is a verifier error."""

_COMMON_PROPS = ("scope", "dispatch", "config")


def is_scalar_type(t: Attribute) -> bool:
    return isinstance(t, (IndexType, IntegerType)) or dtypes.is_supported(t) and dtypes.is_float(t)


def operand_shape(value: SSAValue) -> tuple[int, ...] | None:
    """Shape of a buffer operand; None for a scalar."""
    t = value.type
    return t.get_shape() if isinstance(t, BufferType) else None


class TileOp(IRDLOperation):
    """Base class of the tile primitives."""

    DSTS: ClassVar[tuple[str, ...]] = ("dst",)
    """Names of the operands the op writes."""
    KEYWORDS: ClassVar[dict[str, str]] = {}
    """Custom-syntax kind of each op-specific property: flag, ints, float, name, predicate."""
    BUFFER_ONLY: ClassVar[tuple[str, ...]] = ()
    """Operands (besides DSTS) that must be buffers, not scalars."""

    scope = prop_def(ExecScopeAttr, default_value=ExecScopeAttr(ExecScope.THREAD))
    dispatch = opt_prop_def(StringAttr)
    config = opt_prop_def(DictionaryAttr)

    # ---- construction ----
    def __init__(self, *operands: SSAValue | None, scope: ExecScope | str = ExecScope.THREAD,
                 dispatch: str | None = None, config: dict[str, Attribute] | None = None,
                 regions: Sequence = (), **props: object):
        """Operands in declaration order (None for an absent optional one); properties by name
        (Python values are converted: bool -> flag, list[int] -> ints, float, str -> name)."""
        op_def = type(self).get_irdl_definition()
        if len(operands) > len(op_def.operands):
            raise ValueError(f"{self.name} takes at most {len(op_def.operands)} operands")
        operand_args: list = []
        for i, (_, odef) in enumerate(op_def.operands):
            value = operands[i] if i < len(operands) else None
            if isinstance(odef, OptOperandDef):
                operand_args.append([] if value is None else [value])
            else:
                if value is None:
                    raise ValueError(f"{self.name}: operand #{i} is required")
                operand_args.append(value)
        properties: dict[str, Attribute] = {"scope": ExecScopeAttr(ExecScope(scope))}
        if dispatch is not None:
            properties["dispatch"] = StringAttr(dispatch)
        if config:
            properties["config"] = DictionaryAttr(dict(config))
        for name, value in props.items():
            attr = _to_attr(self.KEYWORDS.get(name, ""), value)
            if attr is not None:
                properties[name] = attr
        super().__init__(operands=operand_args, properties=properties, regions=list(regions))

    # ---- queries shared by the verifier, interpreter and dispatch ----
    @property
    def exec_scope(self) -> ExecScope:
        return self.scope.data

    def named_operands(self) -> dict[str, SSAValue]:
        """Present operands by name."""
        out: dict[str, SSAValue] = {}
        for name, odef in type(self).get_irdl_definition().operands:
            value = getattr(self, name)
            if isinstance(odef, OptOperandDef):
                if value is not None:
                    out[name] = value
            else:
                out[name] = value
        return out

    def dst_operands(self) -> list[SSAValue]:
        return [v for n, v in self.named_operands().items() if n in self.DSTS]

    def src_operands(self) -> list[SSAValue]:
        return [v for n, v in self.named_operands().items() if n not in self.DSTS]

    def config_dict(self) -> dict[str, Attribute]:
        return {} if self.config is None else dict(self.config.data)

    def flag(self, name: str) -> bool:
        return getattr(self, name) is not None

    def float_prop(self, name: str, default: float) -> float:
        attr = getattr(self, name)
        return default if attr is None else attr.value.data

    def ints_prop(self, name: str, default: Sequence[int]) -> tuple[int, ...]:
        attr = getattr(self, name)
        return tuple(default) if attr is None else tuple(attr.get_values())

    def name_prop(self, name: str, default: str | None = None) -> str | None:
        attr = getattr(self, name)
        return default if attr is None else attr.data

    # ---- verification ----
    def verify_(self) -> None:
        named = self.named_operands()
        for name, value in named.items():
            t = value.type
            must_be_buffer = name in self.DSTS or name in self.BUFFER_ONLY
            if must_be_buffer and not isinstance(t, BufferType):
                raise VerifyException(f"operand '{name}' must be a !tirx.buffer, got {t}")
            if not isinstance(t, BufferType) and not is_scalar_type(t):
                raise VerifyException(f"operand '{name}' must be a !tirx.buffer or a scalar "
                                      f"(index, integer or float), got {t}")
        try:
            self.verify_tile()
        except rules.RuleError as err:
            raise VerifyException(str(err)) from None
        self._verify_exec_scope()
        self._verify_not_after_dispatch()

    def verify_tile(self) -> None:
        """Op-specific rules; raise rules.RuleError or VerifyException."""

    def _verify_exec_scope(self) -> None:
        kernel = enclosing_kernel(self)
        if kernel is None:
            return
        scope = self.exec_scope
        n = kernel.num_threads()
        need = {ExecScope.WARP: 32, ExecScope.WARPGROUP: 128}.get(scope)
        if need is not None and (n < need or n % need):
            raise VerifyException(
                f"a {scope.value}-scope {self.name} needs a multiple of {need} threads per CTA, "
                f"but kernel @{kernel.kernel_name} launches {n}; change `threads` or the scope")
        if scope == ExecScope.CLUSTER and kernel.cluster_dims() is None:
            raise VerifyException(f"a cluster-scope {self.name} needs a cluster launch; add "
                                  f"`cluster [..]` to kernel @{kernel.kernel_name}")

    def _verify_not_after_dispatch(self) -> None:
        module = self.get_toplevel_object()
        if isinstance(module, Operation) and DISPATCHED_ATTR in module.attributes:
            raise VerifyException(
                f"tile primitive {self.name} is left after tile dispatch; no dispatch variant "
                f"lowered it (run tirx-dispatch with a target that implements it)")

    # ---- syntax ----
    @classmethod
    def parse(cls, parser: Parser) -> "TileOp":
        op_def = cls.get_irdl_definition()
        scope = parser.parse_optional_keyword_in([s.value for s in ExecScope]) or "thread"
        positional = [n for n, d in op_def.operands if not isinstance(d, OptOperandDef)]
        optional = [n for n, d in op_def.operands if isinstance(d, OptOperandDef)]
        unresolved: dict[str, object] = {}
        for i, name in enumerate(positional):
            if i:
                parser.parse_punctuation(",", f" before operand '{name}' of {cls.name}")
            unresolved[name] = parser.parse_unresolved_operand(
                f"{cls.name} expects {len(positional)} operands ({', '.join(positional)})")
        props: dict[str, Attribute] = {"scope": ExecScopeAttr(ExecScope(scope))}
        keywords = [*optional, *cls.KEYWORDS, "dispatch", "config"]
        while (kw := parser.parse_optional_keyword_in(keywords)) is not None:
            if kw in optional:
                unresolved[kw] = parser.parse_unresolved_operand()
            elif kw == "dispatch":
                props["dispatch"] = StringAttr(parser.parse_str_literal())
            elif kw == "config":
                props["config"] = DictionaryAttr(parser.parse_optional_dictionary_attr_dict())
            else:
                props[kw] = _parse_keyword_value(parser, cls.KEYWORDS[kw], kw)
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
        types: list[Attribute] = []
        if names:
            parser.parse_punctuation(":", f" before the operand types of {cls.name}")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            if len(types) != len(names):
                parser.raise_error(f"{cls.name} has {len(names)} operands "
                                   f"({', '.join(names)}) but {len(types)} types")
        resolved = {n: parser.resolve_operand(unresolved[n], t)  # type: ignore[arg-type]
                    for n, t in zip(names, types)}
        operand_args = [([resolved[n]] if n in resolved else []) if isinstance(d, OptOperandDef)
                        else resolved[n] for n, d in op_def.operands]
        op = cls.build(operands=operand_args, properties=props, regions=regions)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        op_def = type(self).get_irdl_definition()
        printer.print_string(f" {self.exec_scope.value}" if self.exec_scope != ExecScope.THREAD
                             else "")
        positional = [getattr(self, n) for n, d in op_def.operands
                      if not isinstance(d, OptOperandDef)]
        if positional:
            printer.print_string(" ")
            printer.print_list(positional, printer.print_operand)
        for name, odef in op_def.operands:
            if isinstance(odef, OptOperandDef) and (value := getattr(self, name)) is not None:
                printer.print_string(f" {name} ")
                printer.print_operand(value)
        for name, kind in self.KEYWORDS.items():
            if (attr := self.properties.get(name)) is not None:
                text = _keyword_text(kind, attr)
                printer.print_string(f" {name}{text}")
        if self.dispatch is not None:
            printer.print_string(" dispatch ")
            printer.print_string_literal(self.dispatch.data)
        if self.config is not None:
            printer.print_string(" config ")
            printer.print_attr_dict(self.config.data)
        printer.print_op_attributes(self.attributes, print_keyword=bool(self.regions))
        for region in self.regions:
            printer.print_string(" ")
            printer.print_region(region, print_entry_block_args=False,
                                 print_block_terminators=False)
        values = list(self.named_operands().values())
        if values:
            printer.print_string(" : ")
            printer.print_list([v.type for v in values], printer.print_attribute)


# --- keyword properties -------------------------------------------------------------------------


def _to_attr(kind: str, value: object) -> Attribute | None:
    if value is None or value is False:
        return None
    if isinstance(value, Attribute):
        return value
    if kind == "flag":
        return UnitAttr()
    if kind == "ints":
        return DenseArrayBase.from_list(i64, [int(v) for v in value])  # type: ignore[union-attr]
    if kind == "float":
        return FloatAttr(float(value), f32)  # type: ignore[arg-type]
    if kind == "name":
        return StringAttr(str(value))
    raise ValueError(f"cannot convert {value!r} to a '{kind}' property")


def _parse_keyword_value(parser: Parser, kind: str, kw: str) -> Attribute:
    if kind == "flag":
        return UnitAttr()
    if kind == "ints":
        values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        return DenseArrayBase.from_list(i64, values)
    if kind == "float":
        return FloatAttr(float(parser.parse_number()), f32)
    if kind == "name":
        return StringAttr(parser.parse_identifier(f" after '{kw}'"))
    if kind == "predicate":
        return AffineSetAttr(parser.parse_affine_set())
    raise AssertionError(kind)


def _keyword_text(kind: str, attr: Attribute) -> str:
    if kind == "flag":
        return ""
    if kind == "ints":
        assert isinstance(attr, DenseArrayBase)
        return f" {list(attr.get_values())}"
    if kind == "float":
        assert isinstance(attr, FloatAttr)
        return f" {float(attr.value.data)!r}"
    if kind == "name":
        assert isinstance(attr, StringAttr)
        return f" {attr.data}"
    if kind == "predicate":
        assert isinstance(attr, AffineSetAttr)
        return f" {format_affine_set(attr.data)}"
    raise AssertionError(kind)


_ = (KernelOp, EXEC_SCOPE_RANK, Float32Type, OptPropertyDef)
