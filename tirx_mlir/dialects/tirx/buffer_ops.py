"""Buffer allocation, views and element access.

    %s  = tirx.alloc : !tirx.buffer<128x512xf32, shared, S[(128,512):(512,1)]>
    %v  = tirx.slice %A[%i, 0] [128, 512] : !tirx.buffer<1024x512xf32, global> -> !tirx.buffer<128x512xf32, global>
    %x  = tirx.load %s[%i, %j] : !tirx.buffer<128x512xf32, shared>
    tirx.store %x, %s[%i, %j] : !tirx.buffer<128x512xf32, shared>

A slice is a view (a buffer region in TIRx terms): offsets may be static or SSA index values,
strides optional, sizes static or *guarded*: an SSA index size bounded by the static size of the
result type (``[%n, 512] ... -> !tirx.buffer<128x512xf32, ...>``: at most 128 rows, %n at run
time, TIRx's guarded region for the partial last tile of a loop). An op on a guarded view
touches only its first ``%n`` rows; the buffer type (what allocators size) is the maximum.
``tirx.transpose`` permutes a view's dims and ``tirx.reshape`` splits (or merges unit) dims of a
view; both move no data. Tile primitives take
buffers and views alike; code that needs the underlying buffer and how a view walks it calls
`access.resolve_access` / `access.resolve_region`. `allocs`, `place_like` and `replace_alloc`
are what passes that rewrite allocations share; `VIEW_OPS` names the view ops.
"""

from __future__ import annotations

import math

from typing import ClassVar, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (AttrSizedOperandSegments, IRDLOperation, irdl_op_definition, operand_def,
                       opt_prop_def, prop_def, result_def, traits_def, var_operand_def, AnyAttr)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import MemoryAllocEffect, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import int_array, int_values
from tirx_mlir.dialects.tirx.op_build import build_op
from tirx_mlir.type_tests import IsInstance, find_ops

DYNAMIC = -(2**63)
"""Marker in ``static_offsets`` for an offset given as an SSA operand (MLIR's kDynamic)."""


@irdl_op_definition
class AllocOp(IRDLOperation):
    """Allocates an on-chip (or workspace) buffer in the scope and layout of its type.

    Example: ``%s = tirx.alloc : !tirx.buffer<128x512xf32, shared>``
    """

    VERIFY_READS: ClassVar[str] = "local"  # its checks' inputs (tirx_mlir.verification)

    name = "tirx.alloc"
    result = result_def(BufferType)
    traits = traits_def(MemoryAllocEffect())
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, buffer_type: BufferType):
        build_op(self, (), {}, [buffer_type])  # what xDSL's builder makes, at a fraction


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


_IS_VALUE = IsInstance(SSAValue)
"""An SSA value (not an int), answered once per class."""


def _static(n: int | SSAValue) -> int:
    """A slice offset or size as its static entry: itself (an int), DYNAMIC (an index value)."""
    if type(n) is int:  # the common case, without the class test
        return n
    return DYNAMIC if _IS_VALUE(n) else int(n)


@irdl_op_definition
class SliceOp(IRDLOperation):
    """A rectangular (optionally strided) view of a buffer: a TIRx buffer region.

    Example: ``%v = tirx.slice %A[%i, 0] [128, 512] : !tirx.buffer<1024x512xf32, global> ->
    !tirx.buffer<128x512xf32, global>``; add ``strides [1, 2]`` for a strided view. A size may
    be an index value (a guard): ``tirx.slice %A[%o, 0] [%n, 512] : ... ->
    !tirx.buffer<128x512xf32, global>`` views ``%n`` rows, at most 128 (the result type's size).
    """

    VERIFY_READS: ClassVar[str] = "local"  # its checks' inputs (tirx_mlir.verification)

    name = "tirx.slice"
    source = operand_def(BufferType)
    offsets = var_operand_def(IndexType)
    dynamic_sizes = var_operand_def(IndexType)
    static_offsets = prop_def(DenseArrayBase)
    static_sizes = prop_def(DenseArrayBase)
    static_strides = opt_prop_def(DenseArrayBase)
    result = result_def(BufferType)
    traits = traits_def(NoMemoryEffect())
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    def __init__(self, source: SSAValue, offsets: Sequence[int | SSAValue],
                 sizes: Sequence[int | SSAValue], strides: Sequence[int] | None = None,
                 max_sizes: Sequence[int] | None = None):
        """``sizes`` may hold index values (guards); ``max_sizes`` then gives the static
        maximum of each dim (the result type's shape; default: the static sizes, and for a
        guarded dim the source's extent)."""
        static = [_static(o) for o in offsets]
        dynamic = [o for o in offsets if type(o) is not int and _IS_VALUE(o)]
        src_type = source.type
        assert isinstance(src_type, BufferType)
        static_sizes = [_static(n) for n in sizes]
        if max_sizes is None:
            max_sizes = [dim if n == DYNAMIC else n
                         for n, dim in zip(static_sizes, src_type.get_shape())]
        props = {"static_offsets": int_array(static), "static_sizes": int_array(static_sizes)}
        if strides is not None and any(s != 1 for s in strides):
            props["static_strides"] = int_array(strides)
        guards = [n for n in sizes if type(n) is not int and _IS_VALUE(n)]
        build_op(self, [source, dynamic, guards], props, [src_type.with_shape(list(max_sizes))])

    def sizes(self) -> tuple[int, ...]:
        """The static sizes: of a guarded dim, its maximum (the result type's extent)."""
        res = self.result.type
        assert isinstance(res, BufferType)
        return tuple(m if n == DYNAMIC else n
                     for n, m in zip(int_values(self.static_sizes), res.get_shape()))

    def strides(self) -> tuple[int, ...]:
        if self.static_strides is None:
            return (1,) * len(int_values(self.static_sizes))
        return int_values(self.static_strides)

    def mixed_offsets(self) -> list[int | SSAValue]:
        if len(self._operands) == 1:  # only the source: every offset static (no segment read)
            return list(int_values(self.static_offsets))
        it = iter(self.offsets)
        return [next(it) if s == DYNAMIC else s for s in int_values(self.static_offsets)]

    def mixed_sizes(self) -> list[int | SSAValue]:
        """Each dim's size: an int, or the guard's index value."""
        if len(self._operands) == 1:  # only the source: every size static
            return list(int_values(self.static_sizes))
        it = iter(self.dynamic_sizes)
        return [next(it) if s == DYNAMIC else s for s in int_values(self.static_sizes)]

    def guards(self) -> dict[int, SSAValue]:
        """The guarded dims and their size values."""
        if len(self._operands) == 1:
            return {}
        return {d: n for d, n in enumerate(self.mixed_sizes()) if not isinstance(n, int)}

    def verify_(self) -> None:
        src = self.source.type
        res = self.result.type
        assert isinstance(src, BufferType) and isinstance(res, BufferType)
        static = int_values(self.static_offsets)
        raw_sizes, strides = int_values(self.static_sizes), self.strides()
        if not len(static) == len(raw_sizes) == len(strides) == src.rank:
            raise VerifyException(
                f"slice of a rank-{src.rank} buffer needs {src.rank} offsets, sizes and strides "
                f"(got {len(static)}, {len(raw_sizes)}, {len(strides)})")
        if sum(1 for s in static if s == DYNAMIC) != len(self.offsets):
            raise VerifyException("the number of dynamic offsets does not match the operands")
        if sum(1 for s in raw_sizes if s == DYNAMIC) != len(self.dynamic_sizes):
            raise VerifyException("the number of dynamic sizes does not match the operands")
        if res.rank != src.rank:
            raise VerifyException(f"slice result type must have rank {src.rank}, got {res}")
        sizes = self.sizes()
        if res.get_shape() != sizes or res.element_type != src.element_type or \
                res.scope_name != src.scope_name or res.get_layout() is not None:
            raise VerifyException(
                f"slice result type must be {src.with_shape(sizes)} (the sizes, the source's "
                f"element type and scope, no layout), got {res}")
        guards = self.guards()
        for d, (o, n, st, dim) in enumerate(zip(static, sizes, strides, src.get_shape())):
            if n <= 0 or st <= 0:
                raise VerifyException(f"slice dim {d}: sizes and strides must be positive")
            if d in guards:
                self._verify_guard(d, guards[d], n, o, dim)
                continue
            if o != DYNAMIC and (o < 0 or o + (n - 1) * st >= dim):
                raise VerifyException(
                    f"slice dim {d}: [{o}, {o + (n - 1) * st}] is out of bounds for extent {dim}")

    def _verify_guard(self, d: int, size: SSAValue, maximum: int, offset: int, dim: int) -> None:
        """A guarded dim: its maximum is the result's extent; a constant size must fit it; the
        accessed end (offset + size - 1) is `tirx-check-bounds`' to prove."""
        owner = size.owner  # an arith.constant size (access.constant_value, which imports us)
        const = owner.value.value.data if isinstance(owner, arith.ConstantOp) and \
            isinstance(owner.value, IntegerAttr) else None
        if isinstance(const, int) and not 0 <= const <= maximum:
            raise VerifyException(f"slice dim {d}: the guarded size is {const}, outside "
                                  f"[0, {maximum}] (the result type's extent is the maximum)")
        if offset != DYNAMIC and not 0 <= offset < dim:
            raise VerifyException(f"slice dim {d}: offset {offset} is out of bounds for "
                                  f"extent {dim}")

    @classmethod
    def parse(cls, parser: Parser) -> "SliceOp":
        source = parser.parse_unresolved_operand()
        static, dynamic = _parse_mixed_list(parser)
        sizes, dynamic_sizes = _parse_mixed_list(parser)
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
        props = {"static_offsets": int_array(static), "static_sizes": int_array(sizes)}
        if strides is not None:
            props["static_strides"] = int_array(strides)
        op = cls.build(operands=[parser.resolve_operand(source, src_type),
                                 [parser.resolve_operand(d, index) for d in dynamic],
                                 [parser.resolve_operand(d, index) for d in dynamic_sizes]],
                       properties=props, result_types=[res_type])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        _print_mixed_list(printer, self.static_offsets.get_values(), self.offsets)
        printer.print_string(" ")
        _print_mixed_list(printer, self.static_sizes.get_values(), self.dynamic_sizes)
        if self.static_strides is not None:
            printer.print_string(f" strides {list(self.strides())}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


class _ElementAccess(IRDLOperation):
    """Shared syntax of load and store: ``%buf[%i, %j] : type``."""

    VERIFY_READS: ClassVar[str] = "local"  # its checks' inputs (tirx_mlir.verification)

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


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """A view with permuted dims: result dim ``i`` is source dim ``permutation[i]``.

    Example: ``%t = tirx.transpose %v [1, 0] : !tirx.buffer<128x64xf32, shared> ->
    !tirx.buffer<64x128xf32, shared>``
    """

    VERIFY_READS: ClassVar[str] = "local"  # its checks' inputs (tirx_mlir.verification)

    name = "tirx.transpose"
    source = operand_def(BufferType)
    permutation = prop_def(DenseArrayBase)
    result = result_def(BufferType)
    traits = traits_def(NoMemoryEffect())

    def __init__(self, source: SSAValue, permutation: Sequence[int]):
        src = source.type
        assert isinstance(src, BufferType)
        shape = src.get_shape()
        build_op(self, [source], {"permutation": int_array(permutation)},
                 [src.with_shape([shape[p] for p in permutation])])

    def perm(self) -> tuple[int, ...]:
        return int_values(self.permutation)

    def verify_(self) -> None:
        src, res = self.source.type, self.result.type
        assert isinstance(src, BufferType) and isinstance(res, BufferType)
        perm = self.perm()
        if sorted(perm) != list(range(src.rank)):
            raise VerifyException(f"permutation {list(perm)} is not a permutation of "
                                  f"0..{src.rank - 1}")
        expected = src.with_shape([src.get_shape()[p] for p in perm])
        if res != expected:
            raise VerifyException(f"transpose result type must be {expected}, got {res}")

    @classmethod
    def parse(cls, parser: Parser) -> "TransposeOp":
        source = parser.parse_unresolved_operand()
        perm = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_type = parser.parse_type()
        parser.parse_punctuation("->")
        res_type = parser.parse_type()
        op = cls.build(operands=[parser.resolve_operand(source, src_type)],
                       properties={"permutation": int_array(perm)}, result_types=[res_type])
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_string(f" {list(self.perm())}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ReshapeOp(IRDLOperation):
    """A view of the same elements in another shape, row-major (as numpy's reshape); it moves
    no data. It splits dims, merges consecutive dims, or both (`reshape_groups`), and inserts or
    drops unit dims. Merged dims must lie in memory as one run (each dim's step the next one's
    extent times its step), so that the result is still a strided view of the buffer: a split is
    always one, a merge of a buffer's own dims is one for a row-major buffer, and a merge of a
    transposed or sliced view may not be (`access.resolve_access` refuses it, as
    the interpreter does at run time and a backend's lowering at compile time).
    Examples: ``%r = tirx.reshape %v : !tirx.buffer<256x512xf32, shared> ->
    !tirx.buffer<2x128x512xf32, shared>``, ``%m = tirx.reshape %x :
    !tirx.buffer<128x4x512xf32, shared> -> !tirx.buffer<128x2048xf32, shared>``
    """

    VERIFY_READS: ClassVar[str] = "local"  # its checks' inputs (tirx_mlir.verification)

    name = "tirx.reshape"
    source = operand_def(BufferType)
    result = result_def(BufferType)
    traits = traits_def(NoMemoryEffect())
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def __init__(self, source: SSAValue, shape: Sequence[int]):
        src = source.type
        assert isinstance(src, BufferType)
        build_op(self, [source], {}, [src.with_shape(shape)])

    def verify_(self) -> None:
        src, res = self.source.type, self.result.type
        assert isinstance(src, BufferType) and isinstance(res, BufferType)
        if res.element_type != src.element_type or res.scope_name != src.scope_name or \
                res.get_layout() is not None:
            raise VerifyException("reshape keeps the element type and scope and carries no layout")
        if reshape_groups(src.get_shape(), res.get_shape()) is None:
            raise VerifyException(
                f"reshape {list(src.get_shape())} -> {list(res.get_shape())} changes the "
                f"number of elements ({math.prod(src.get_shape())} -> "
                f"{math.prod(res.get_shape())})")



# --- rewriting allocations ------------------------------------------------------------------------


def allocs(root: Operation) -> list[AllocOp]:
    """Every ``tirx.alloc`` in ``root`` (a kernel, usually), in program order."""
    return find_ops(root, _IS_ALLOC)


def place_like(new: AllocOp, old: AllocOp) -> None:
    """Insert ``new`` before ``old`` with its name, attributes and source location."""
    block = old.parent_block()
    assert block is not None
    block.insert_op_before(new, old)
    new.result.name_hint = old.result.name_hint
    new.attributes.update(old.attributes)
    new.location = old.location


def replace_alloc(old: AllocOp, new: AllocOp) -> None:
    """Put ``new`` in place of ``old`` (keeping its name and attributes) and erase ``old``
    (reported to the running pass's `tirx_mlir.changes.current_changes`: its block and the
    users of its buffer)."""
    from tirx_mlir.changes import current_changes

    current_changes().removed(old)
    place_like(new, old)
    old.result.replace_all_uses_with(new.result)
    old.detach()
    old.erase()


VIEW_OPS = (SliceOp, TransposeOp, ReshapeOp)
"""The ops whose result views their ``source`` buffer (no data moves): what code that walks from a
view to the buffer behind it, or from a buffer to every view of it, follows."""

is_view_op = IsInstance(*VIEW_OPS)
"""``isinstance(op, VIEW_OPS)``, answered once per op class (`tirx_mlir.type_tests`)."""
_IS_ALLOC = IsInstance(AllocOp)


def erase_dead_views(value: SSAValue) -> None:
    """Erase the views of ``value`` (a buffer or a view) that nothing reads, innermost first
    (reported to the running pass's `tirx_mlir.changes.current_changes`)."""
    from tirx_mlir.changes import current_changes

    for use in list(value.uses):
        user = use.operation
        if is_view_op(user):
            erase_dead_views(user.results[0])
            if not user.results[0].uses:
                current_changes().removed(user)
                user.detach()
                user.erase()


def reshape_groups(src: Sequence[int], res: Sequence[int]
                   ) -> list[tuple[list[int], list[int]]] | None:
    """The smallest runs of consecutive non-unit source dims and non-unit result dims with equal
    products, as (source dim indices, result dim indices): ``[128, 4, 512] -> [128, 2048]`` is
    ``[([0], [0]), ([1, 2], [1])]`` (a merge), ``[256] -> [2, 128]`` ``[([0], [0, 1])]`` (a
    split). None when the element counts differ. Unit dims are free."""
    src_dims = [i for i, d in enumerate(src) if d != 1]
    res_dims = [i for i, d in enumerate(res) if d != 1]
    groups: list[tuple[list[int], list[int]]] = []
    a = b = 0
    while a < len(src_dims) and b < len(res_dims):
        gs, gr = [src_dims[a]], [res_dims[b]]
        ps, pr = src[src_dims[a]], res[res_dims[b]]
        a, b = a + 1, b + 1
        while ps != pr:
            if ps < pr and a < len(src_dims):
                gs.append(src_dims[a])
                ps, a = ps * src[src_dims[a]], a + 1
            elif pr < ps and b < len(res_dims):
                gr.append(res_dims[b])
                pr, b = pr * res[res_dims[b]], b + 1
            else:
                return None
        groups.append((gs, gr))
    return groups if a == len(src_dims) and b == len(res_dims) else None
