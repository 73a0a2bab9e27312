"""The register layout of a reduction's destination: the source's layout restricted to its kept
dims, replicated over the threads that reduced each row.

    tirx.sum cta %rows, %x  with  %x : <32x256xf32, local, S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]>
      -> %rows : <32x1xf32, local, S[(4,8):(1@warpid,1)] + R[32:1@laneid]>

Each kept dim keeps the source's iterators on it (thread digits as they are, registers renumbered
compactly); the source's thread digits on reduced dims, and the scope's threads the source leaves
unused, become replicas. Every thread then holds the results of the rows it reduced, in the
registers the reduction writes directly (`dispatch.reduction`: no data moves between threads
after the butterfly). A rule of `cuda-default-layout` (`LAYOUT_RULES`), for a ``local``
destination without a layout that the reduction writes whole (its first use, or a later one:
an ``accum`` destination filled first).

A second rule, `reduction_source_layout`, is for a register tile a reduction later reads: the
reduction combines threads by the bits of their index (`reduction_plan`), so where the scope's
default spread would use a thread digit that is no power of two (``[32, 12]`` over 32 threads:
24 threads in digits of 3 and 8), the tile, and every register tile of its shape and scope (the
elementwise ops and casts between them need one spread), gets the reduction's own spread
instead (`reduction_plan.memory_spread`: lanes along the rows, then the other bits). Every other
tile keeps the default spread.
"""

from __future__ import annotations

from tirx_mlir.backends.cuda.layout.defaults import (SCOPE_AXIS, default_register_layout,
                                                     scope_threads, vector_width)
from tirx_mlir.backends.cuda.layout.partition import MEMORY_AXIS, PartitionError, RegisterPartition
from tirx_mlir.backends.cuda.layout.reduction_plan import (PlanError, axis_bits, log2_exact,
                                                             memory_spread, scope_bits,
                                                             thread_fields)
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.backends.cuda.memory import LOCAL
from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.layout import Iter, TileLayout, row_major_strides


def destination_layout(src_layout: TileLayout, src_shape, axes, dst_shape,
                       scope_axis: str | None, threads: int) -> TileLayout | None:
    """The destination layout (module docstring), None when the source's is not a register
    distribution this rule understands."""
    try:
        part = RegisterPartition(src_layout, src_shape)
        axes = rules.normalize_axes(axes, len(src_shape))
    except (PartitionError, rules.RuleError):
        return None
    kept = [d for d in range(len(src_shape)) if d not in axes and src_shape[d] != 1]
    if [src_shape[d] for d in kept] != [n for n in dst_shape if n != 1]:
        return None
    shard: list[Iter] = []
    for d in kept:
        shard += [Iter(it.extent, it.stride, it.axis)
                  for it in sorted((i for i in part.iters if i.dim == d), key=lambda i: -i.weight)]
    m_iters = [i for i, it in enumerate(shard) if it.axis == MEMORY_AXIS]
    strides = row_major_strides([shard[i].extent for i in m_iters])
    for i, s in zip(m_iters, strides):
        shard[i] = Iter(shard[i].extent, s)
    replica = [Iter(it.extent, it.stride, it.axis) for it in part.iters
               if it.axis != MEMORY_AXIS and it.dim in axes]
    replica += [it for it in src_layout.replica if it.axis != MEMORY_AXIS]
    replica += _unused_threads(part, scope_axis, threads)
    layout = TileLayout(tuple(shard) or (Iter(1, 1),), tuple(replica))
    try:
        RegisterPartition(layout, dst_shape)
    except PartitionError:
        return None
    return layout


def _unused_threads(part: RegisterPartition, scope_axis: str | None, threads: int) -> list[Iter]:
    """Replicas over the scope's threads the source layout does not name (its own scope axis,
    power-of-two runs of bits), so that every thread of the scope holds the results."""
    if scope_axis is None or threads & (threads - 1):
        return []
    try:
        fields = thread_fields(part, threads.bit_length() - 1)
    except PlanError:
        return []
    n = threads.bit_length() - 1
    used = {b for f in fields for b in f.bit_set()}
    for it in part.layout.replica:
        if it.axis != MEMORY_AXIS:
            try:
                lo, k = axis_bits(it.axis, it.stride, it.extent, n)
            except PlanError:
                return []
            used |= set(range(lo, lo + k))
    out: list[Iter] = []
    b = 0
    while b < n:
        if b in used:
            b += 1
            continue
        lo = b
        while b < n and b not in used:
            b += 1
        out.append(Iter(1 << (b - lo), 1 << lo, scope_axis))
    return out


REDUCED_OPERANDS = {T.UnaryReduceOp: ("red_out", "un_out"), T.BinaryReduceOp: ("red_out", "bin_out")}
"""Fused ops: (their reduction's destination, the tile it reduces)."""


def _reduction(op) -> tuple[str, object] | None:
    """(the destination's operand name, the reduced source) of a reduction or fused op."""
    if isinstance(op, T._ReduceOp):  # noqa: SLF001 - the reductions' base
        return "dst", op.src
    if type(op) in REDUCED_OPERANDS:
        dst_name, src_name = REDUCED_OPERANDS[type(op)]
        return dst_name, getattr(op, src_name)
    return None


def reduction_destinations(kernel) -> set:
    """The values reductions (and fused ops' reductions) of ``kernel`` write: cuda-default-layout
    gives their allocations layouts after the others, so that each source's is known."""
    out = set()
    for op in kernel.walk():
        red = _reduction(op)
        if red is not None:
            out.add(getattr(op, red[0]))
    return out


def _later_reduction_into(alloc, first, kernel):
    """The first reduction at ``first``'s scope that writes ``alloc``'s whole tile (an
    ``accum`` destination first filled by another op), or None."""
    for op in kernel.walk():
        red = _reduction(op)
        if red is not None and op.exec_scope == first.exec_scope and \
                getattr(op, red[0]) is alloc.result:
            return op
    return None


def reduction_destination_layout(alloc, op, name: str, kernel) -> TileLayout | None:
    """`cuda-default-layout` rule: the layout of a register destination of a reduction (or a
    fused op's reduction) of a register tile (module docstring): first used by it, or by
    another op before it (``fill`` then ``max ... accum``)."""
    red = _reduction(op)
    if red is None or name != red[0]:
        op = _later_reduction_into(alloc, op, kernel)
        if op is None:
            return None
        red = _reduction(op)
        name = red[0]
    dst_name, source = red
    dst = getattr(op, dst_name)
    src = resolve_access(source)
    if name != dst_name or src.buffer_type.scope_name != LOCAL or src.buffer is not source or \
            resolve_access(dst).buffer is not dst:
        return None
    layout = src.buffer_type.get_layout()
    btype = alloc.result.type
    if layout is None or not isinstance(btype, BufferType):
        return None
    scope = op.exec_scope
    return destination_layout(layout, src.buffer_type.get_shape(),
                              op.ints_prop("axes", (-1,)), btype.get_shape(),
                              SCOPE_AXIS.get(scope), scope_threads(scope, kernel.num_threads()))


def reduction_source_layout(alloc, op, name: str, kernel) -> TileLayout | None:
    """`cuda-default-layout` rule: a power-of-two spread for a register tile like one that a
    reduction reads whole (same shape and scope), where the default spread of
    its first use (``op``) has a thread digit that is no power of two (module docstring);
    None otherwise."""
    btype = alloc.result.type
    if not isinstance(btype, BufferType) or btype.scope_name != LOCAL:
        return None
    shape = btype.get_shape()
    elem_bytes = dtypes.bit_width(btype.element_type) // 8
    scope = op.exec_scope
    default = default_register_layout(shape, elem_bytes, scope, kernel.num_threads())
    if _power_of_two_digits(default, shape):
        return None
    axes = _reduced_axes(btype, scope, kernel)
    if axes is None:
        return None
    try:
        nbits = scope_bits(scope, kernel.num_threads())
        layout = memory_spread(shape, rules.normalize_axes(axes, len(shape)), nbits,
                               SCOPE_AXIS.get(scope), vector_width(shape, elem_bytes))
        RegisterPartition(layout, shape)
    except (PlanError, PartitionError, rules.RuleError):
        return None
    return layout


def _power_of_two_digits(layout: TileLayout, shape) -> bool:
    try:
        for it in RegisterPartition(layout, shape).thread_digits():
            log2_exact(it.extent, "extent")
            log2_exact(it.stride, "stride")
    except (PlanError, PartitionError):
        return False
    return True


def _reduced_axes(btype: BufferType, scope, kernel) -> tuple[int, ...] | None:
    """The axes of the first reduction (or fused op's reduction) at ``scope`` that reads a
    whole register tile of ``btype``'s shape, or None. Every such tile gets the same spread
    (an f16 copy of an f32 one too), so the elementwise ops and casts between them find each
    element in one thread."""
    for op in kernel.walk():
        if isinstance(op, T._ReduceOp):  # noqa: SLF001 - the reductions' base
            source = op.src
        elif type(op) in REDUCED_OPERANDS:
            source = getattr(op, REDUCED_OPERANDS[type(op)][1])
        else:
            continue
        src = source.type
        if op.exec_scope == scope and isinstance(src, BufferType) and \
                src.scope_name == LOCAL and src.get_shape() == btype.get_shape() and \
                resolve_access(source).buffer is source:
            return tuple(op.ints_prop("axes", (-1,)))
    return None
