"""Buffer allocation, views and element access.

    %s  = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
    %v  = tirx.slice %A[%i, 0] [128, 512] : !tirx.buffer<1024x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    %x  = tirx.load %s[%i, %j] : !tirx.buffer<128x512xf32, trn.sbuf>
    tirx.store %x, %s[%i, %j] : !tirx.buffer<128x512xf32, trn.sbuf>

A slice is a view (a buffer region in TIRx terms): offsets may be static or SSA index values,
sizes are static, strides optional. Tile primitives take buffers and views alike; code that needs
the underlying buffer and the region's offsets calls `resolve_region`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from xdsl.dialects.builtin import DenseArrayBase, IndexType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (AttrSizedOperandSegments, IRDLOperation, irdl_op_definition, operand_def,
                       opt_prop_def, prop_def, result_def, traits_def, var_operand_def, AnyAttr)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dialects.tirx.attributes import BufferType

DYNAMIC = -(2**63)
"""Marker in ``static_offsets`` for an offset given as an SSA operand (MLIR's kDynamic)."""


def _int_array(values) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


@irdl_op_definition
class AllocOp(IRDLOperation):
    """Allocates an on-chip (or workspace) buffer in the scope and layout of its type.

    Example: ``%s = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>``
    """

    name = "tirx.alloc"
    result = result_def(BufferType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, buffer_type: BufferType):
        super().__init__(result_types=[buffer_type])


def _parse_mixed_list(parser: Parser) -> tuple[list[int], list]:
    """``[%i, 0, %j]`` -> static list (DYNAMIC where an operand stands) and the operands."""
    static: list[int] = []
    dynamic: list = []

    def one() -> None:
        if (operand := parser.parse_optional_unresolved_operand()) is not None:
            static.append(DYNAMIC)
            dynamic.append(operand)
        else:
            static.append(parser.parse_integer())

    parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)
    return static, dynamic


def _print_mixed_list(printer: Printer, static: Sequence[int], dynamic: Sequence[SSAValue]) -> None:
    it = iter(dynamic)
    printer.print_string("[")
    printer.print_list(static, lambda s: printer.print_operand(next(it)) if s == DYNAMIC
                       else printer.print_string(str(s)))
    printer.print_string("]")


@irdl_op_definition
class SliceOp(IRDLOperation):
    """A rectangular (optionally strided) view of a buffer: a TIRx buffer region.

    Example: ``%v = tirx.slice %A[%i, 0] [128, 512] : !tirx.buffer<1024x512xf32, global> ->
    !tirx.buffer<128x512xf32, global>``; add ``strides [1, 2]`` for a strided view.
    """

    name = "tirx.slice"
    source = operand_def(BufferType)
    offsets = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = opt_prop_def(DenseArrayBase)
    result = result_def(BufferType)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, source: SSAValue, offsets: Sequence[int | SSAValue], sizes: Sequence[int],
                 strides: Sequence[int] | None = None):
        static = [DYNAMIC if isinstance(o, SSAValue) else int(o) for o in offsets]
        dynamic = [o for o in offsets if isinstance(o, SSAValue)]
        src_type = source.type
        assert isinstance(src_type, BufferType)
        props = {"static_offsets": _int_array(static), "static_sizes": _int_array(sizes)}
        if strides is not None and any(s != 1 for s in strides):
            props["static_strides"] = _int_array(strides)
        super().__init__(operands=[source, dynamic], properties=props,
                         result_types=[src_type.with_shape(sizes)])

    def sizes(self) -> tuple[int, ...]:
        return tuple(self.static_sizes.get_values())

    def strides(self) -> tuple[int, ...]:
        if self.static_strides is None:
            return (1,) * len(self.sizes())
        return tuple(self.static_strides.get_values())

    def mixed_offsets(self) -> list[int | SSAValue]:
        it = iter(self.offsets)
        return [next(it) if s == DYNAMIC else s for s in self.static_offsets.get_values()]

    def verify_(self) -> None:
        src = self.source.type
        res = self.result.type
        assert isinstance(src, BufferType) and isinstance(res, BufferType)
        static = self.static_offsets.get_values()
        sizes, strides = self.sizes(), self.strides()
        if not len(static) == len(sizes) == len(strides) == src.rank:
            raise VerifyException(
                f"slice of a rank-{src.rank} buffer needs {src.rank} offsets, sizes and strides "
                f"(got {len(static)}, {len(sizes)}, {len(strides)})")
        if sum(1 for s in static if s == DYNAMIC) != len(self.offsets):
            raise VerifyException("the number of dynamic offsets does not match the operands")
        if res.get_shape() != sizes or res.element_type != src.element_type or \
                res.scope_name != src.scope_name or res.get_layout() is not None:
            raise VerifyException(
                f"slice result type must be {src.with_shape(sizes)} (the sizes, the source's "
                f"element type and scope, no layout), got {res}")
        for d, (o, n, st, dim) in enumerate(zip(static, sizes, strides, src.get_shape())):
            if n <= 0 or st <= 0:
                raise VerifyException(f"slice dim {d}: sizes and strides must be positive")
            if o != DYNAMIC and (o < 0 or o + (n - 1) * st >= dim):
                raise VerifyException(
                    f"slice dim {d}: [{o}, {o + (n - 1) * st}] is out of bounds for extent {dim}")

    @classmethod
    def parse(cls, parser: Parser) -> "SliceOp":
        source = parser.parse_unresolved_operand()
        static, dynamic = _parse_mixed_list(parser)
        sizes = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        strides = None
        if parser.parse_optional_keyword("strides"):
            strides = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                        parser.parse_integer)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        res_type = parser.parse_type()
        index = IndexType()
        props = {"static_offsets": _int_array(static), "static_sizes": _int_array(sizes)}
        if strides is not None:
            props["static_strides"] = _int_array(strides)
        op = cls.build(operands=[parser.resolve_operand(source, src_type),
                                 [parser.resolve_operand(d, index) for d in dynamic]],
                       properties=props, result_types=[res_type])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        _print_mixed_list(printer, self.static_offsets.get_values(), self.offsets)
        printer.print_string(f" {list(self.sizes())}")
        if self.static_strides is not None:
            printer.print_string(f" strides {list(self.strides())}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


class _ElementAccess(IRDLOperation):
    """Shared syntax of load and store: ``%buf[%i, %j] : type``."""

    def _check_indices(self, buffer: SSAValue, indices: Sequence[SSAValue]) -> None:
        btype = buffer.type
        assert isinstance(btype, BufferType)
        if len(indices) != btype.rank:
            raise VerifyException(f"{self.name} on a rank-{btype.rank} buffer needs {btype.rank} "
                                  f"indices, got {len(indices)}")


@irdl_op_definition
class LoadOp(_ElementAccess):
    """Reads one element: ``%x = tirx.load %buf[%i, %j] : !tirx.buffer<...>``."""

    name = "tirx.load"
    buffer = operand_def(BufferType)
    indices = var_operand_def(IndexType)
    result = result_def(AnyAttr())

    def __init__(self, buffer: SSAValue, indices: Sequence[SSAValue]):
        assert isinstance(buffer.type, BufferType)
        super().__init__(operands=[buffer, indices], result_types=[buffer.type.element_type])

    def verify_(self) -> None:
        self._check_indices(self.buffer, self.indices)
        assert isinstance(self.buffer.type, BufferType)
        if self.result.type != self.buffer.type.element_type:
            raise VerifyException("tirx.load result type must be the buffer's element type")

    @classmethod
    def parse(cls, parser: Parser) -> "LoadOp":
        buf = parser.parse_unresolved_operand()
        idx = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        btype = parser.parse_type()
        if not isinstance(btype, BufferType):
            parser.raise_error(f"tirx.load expects a !tirx.buffer type, got {btype}")
        op = cls(parser.resolve_operand(buf, btype),
                 [parser.resolve_operand(i, IndexType()) for i in idx])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.buffer)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)


@irdl_op_definition
class StoreOp(_ElementAccess):
    """Writes one element (rounded to the buffer's type):
    ``tirx.store %x, %buf[%i, %j] : !tirx.buffer<...>``."""

    name = "tirx.store"
    value = operand_def(AnyAttr())
    buffer = operand_def(BufferType)
    indices = var_operand_def(IndexType)

    def __init__(self, value: SSAValue, buffer: SSAValue, indices: Sequence[SSAValue]):
        super().__init__(operands=[value, buffer, indices])

    def verify_(self) -> None:
        self._check_indices(self.buffer, self.indices)
        assert isinstance(self.buffer.type, BufferType)
        if self.value.type != self.buffer.type.element_type:
            raise VerifyException(f"tirx.store of a {self.value.type} into a buffer of "
                                  f"{self.buffer.type.element_type}; convert the value first")

    @classmethod
    def parse(cls, parser: Parser) -> "StoreOp":
        val = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        buf = parser.parse_unresolved_operand()
        idx = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                parser.parse_unresolved_operand)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        btype = parser.parse_type()
        if not isinstance(btype, BufferType):
            parser.raise_error(f"tirx.store expects a !tirx.buffer type, got {btype}")
        op = cls(parser.resolve_operand(val, btype.element_type), parser.resolve_operand(buf, btype),
                 [parser.resolve_operand(i, IndexType()) for i in idx])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.buffer)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.buffer.type)


# --- regions ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IndexExpr:
    """An affine index: ``const + sum(coeff * value)`` over SSA index values."""

    const: int = 0
    terms: tuple[tuple[SSAValue, int], ...] = ()

    @staticmethod
    def of(value: "int | SSAValue | IndexExpr") -> "IndexExpr":
        if isinstance(value, IndexExpr):
            return value
        if isinstance(value, int):
            return IndexExpr(value)
        return index_expr(value)

    def is_const(self) -> bool:
        return not self.terms

    def __add__(self, other: "IndexExpr | int") -> "IndexExpr":
        other = IndexExpr.of(other)
        coeffs: dict[SSAValue, int] = dict(self.terms)
        for v, c in other.terms:
            coeffs[v] = coeffs.get(v, 0) + c
        return IndexExpr(self.const + other.const,
                         tuple((v, c) for v, c in coeffs.items() if c != 0))

    def scale(self, k: int) -> "IndexExpr":
        return IndexExpr(self.const * k, tuple((v, c * k) for v, c in self.terms if c * k != 0))

    def evaluate(self, env) -> int:
        """Value under ``env`` (a callable SSAValue -> int)."""
        return self.const + sum(c * int(env(v)) for v, c in self.terms)


def index_expr(value: SSAValue) -> IndexExpr:
    """Fold an index value built from constants, additions and constant multiples into an
    IndexExpr; anything else stays an opaque term."""
    from xdsl.dialects import arith

    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        return IndexExpr(int(owner.value.value.data))  # type: ignore[union-attr]
    if isinstance(owner, arith.AddiOp):
        return index_expr(owner.lhs) + index_expr(owner.rhs)
    if isinstance(owner, arith.SubiOp):
        return index_expr(owner.lhs) + index_expr(owner.rhs).scale(-1)
    if isinstance(owner, arith.MuliOp):
        lhs, rhs = index_expr(owner.lhs), index_expr(owner.rhs)
        if rhs.is_const():
            return lhs.scale(rhs.const)
        if lhs.is_const():
            return rhs.scale(lhs.const)
    return IndexExpr(0, ((value, 1),))


@dataclass(frozen=True)
class Region:
    """A buffer region: the underlying buffer value, per-dim affine offsets, sizes and strides,
    composed through any chain of ``tirx.slice`` views."""

    buffer: SSAValue
    offsets: tuple[IndexExpr, ...]
    sizes: tuple[int, ...]
    strides: tuple[int, ...]

    @property
    def buffer_type(self) -> BufferType:
        assert isinstance(self.buffer.type, BufferType)
        return self.buffer.type

    def static_offsets(self) -> tuple[int, ...] | None:
        if all(o.is_const() for o in self.offsets):
            return tuple(o.const for o in self.offsets)
        return None

    def is_whole(self) -> bool:
        return self.static_offsets() == (0,) * len(self.sizes) and \
            self.sizes == self.buffer_type.get_shape() and set(self.strides) <= {1}


def resolve_region(value: SSAValue) -> Region:
    """Follow ``tirx.slice`` views back to the buffer they view, composing offsets (as affine
    index expressions) and strides."""
    btype = value.type
    assert isinstance(btype, BufferType)
    owner = value.owner
    if not isinstance(owner, SliceOp):
        shape = btype.get_shape()
        return Region(value, (IndexExpr(),) * len(shape), shape, (1,) * len(shape))
    parent = resolve_region(owner.source)
    offsets = tuple(po + IndexExpr.of(o).scale(ps) for po, ps, o in
                    zip(parent.offsets, parent.strides, owner.mixed_offsets()))
    strides = tuple(ps * s for ps, s in zip(parent.strides, owner.strides()))
    return Region(parent.buffer, offsets, owner.sizes(), strides)
