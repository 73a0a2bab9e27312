"""The Trainium hardware rules the nki ops obey (aws-neuron-sdk `nki/api/nki.language.tile_size.rst`, docs/trn.md), stated once.

The op verifiers call these at compile time; the interpreter calls the same functions at run
time for what only a run knows (dynamic view offsets: partition start, PSUM bank). Each rule
raises `rules.RuleError` with a message that names the operand and the limit and says what to
change; the callers prefix the op name (and the interpreter the source location).

Conventions: an on-chip tile (``trn.sbuf`` / ``trn.psum``) has its partition dim first, ``[P,
F...]``; its free elements are walked in row-major order. HBM tiles are in ``global``.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Iterable, Sequence

from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from tirx_mlir.backends.trn.memory import ADDR_ATTR, HBM, ON_CHIP, PSUM, SBUF, memory_space
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import KernelOp, target_holder
from tirx_mlir.dialects.tirx.access import AccessPattern, resolve_access, shared_answers
from tirx_mlir.dialects.tirx.rules import RuleError
from tirx_mlir.target.target import target_text_of

TENSOR_ENGINE_DTYPES = ("f8E4M3FN", "f8E5M2", "bf16", "f16", "f32")
"""Element types TensorE multiplies (tf32 has no tirx spelling)."""


# --- where the limits come from -----------------------------------------------------------------


@lru_cache(maxsize=64)
def limits_for_target(text: str | None) -> TrnLimits:
    """Limits of a target string; defaults when it is absent or not a known trn target.

    Raises RuleError for a target of another kind: nki instructions only run on Trainium."""
    if text is None:
        return TrnLimits()
    from tirx_mlir.target import Target, TargetError

    try:
        target = Target(text)
    except TargetError:
        return TrnLimits()
    if target.kind_name != "trn":
        raise RuleError(f"nki instructions need a trn target, but the kernel targets "
                        f"'{text}'; use e.g. target \"aws/trn1/trn1.2xlarge\"")
    return TrnLimits.from_target(target)


def limits_for(op: Operation) -> TrnLimits:
    """The limits of ``op``'s target. Inside one `access.shared_views` block they are found once
    per target holder: the nearest enclosing kernel or module, whose ``target`` (and whose
    ancestors') is all `target_text_of` reads above ``op``; it cannot change within the block,
    wherever ops or blocks move inside it."""
    shared = shared_answers()
    if shared is None:
        return limits_for_target(target_text_of(op))
    holder = target_holder(op)
    if holder is None:
        return limits_for_target(None)
    key = ("nki.limits", holder)
    limits = shared.get(key)
    if limits is None:
        limits = shared[key] = limits_for_target(target_text_of(holder))
    return limits




# --- operand facts ------------------------------------------------------------------------------


def is_scalar_type(t: Attribute) -> bool:
    if isinstance(t, (IndexType, IntegerType)):
        return True
    return dtypes.is_supported(t) and dtypes.is_float(t)


def buffer_type(value: SSAValue) -> BufferType:
    t = value.type
    assert isinstance(t, BufferType)
    return t


def scope(value: SSAValue) -> str:
    return buffer_type(value).scope_name


def partitions(value: SSAValue) -> int:
    return buffer_type(value).get_shape()[0]


def free_size(value: SSAValue) -> int:
    """Free elements per partition of an on-chip tile (every element for HBM)."""
    shape = buffer_type(value).get_shape()
    if scope(value) not in ON_CHIP:
        return math.prod(shape)
    return math.prod(shape[1:])


def dtype_name(value: SSAValue) -> str:
    t = value.type
    return dtypes.type_name(t.element_type if isinstance(t, BufferType) else t)


def is_tile(value: SSAValue | None) -> bool:
    return value is not None and isinstance(value.type, BufferType)


# --- rules --------------------------------------------------------------------------------------


def check_tile(op: Operation, name: str, value: SSAValue, limits: TrnLimits) -> None:
    """Rules every tile operand obeys: known scope; on-chip tiles are [P, F...] with P within
    the partitions, at most 4 free dims, unit partition stride, a legal start partition, and a
    buffer that fits the memory. They read only the tile, its view and ``limits``: inside one
    `access.shared_views` block (a verification), a tile that passed them is not checked
    again for the next op that reads it (``name`` only words the error)."""
    shared = shared_answers()
    if shared is not None and shared.get(("nki.check_tile", value)) is limits:
        return
    _check_tile(name, value, limits)
    if shared is not None:
        shared[("nki.check_tile", value)] = limits


def _check_tile(name: str, value: SSAValue, limits: TrnLimits) -> None:
    where = scope(value)
    if where not in (*ON_CHIP, HBM):
        raise RuleError(f"operand '{name}' is in '{where}'; nki tiles live in {SBUF}, {PSUM} "
                        f"or {HBM}")
    if where == HBM:
        return
    shape = buffer_type(value).get_shape()
    if len(shape) < 2:
        raise RuleError(f"operand '{name}' is a 1-D {where} tile {list(shape)}; on-chip tiles "
                        f"are [partition, free...]: give it a free dim, e.g. [{shape[0]}, 1]")
    if len(shape) > 5:
        raise RuleError(f"operand '{name}' has {len(shape) - 1} free dims; an access pattern "
                        f"has at most 4: merge free dims")
    if shape[0] > limits.partitions:
        raise RuleError(f"operand '{name}' spans {shape[0]} partitions; the limit is "
                        f"{limits.partitions} ({limits.source}): split the partition dim")
    access = resolve_access(value)
    if is_logical_view(value):
        return  # checked on the physical tile that trn-lower-layout makes of it
    check_buffer_fits(name, buffer_type(access.buffer), limits)
    check_partition_walk(name, access)
    if access.offset[0].is_const():
        check_partition_start(name, access.offset[0].const, shape[0])


def tile_view_facts(access: AccessPattern) -> tuple:
    """What `check_tile` reads of a tile operand's resolved view beyond the type of the buffer
    it views: its sizes and steps (the partition walk) and its partition offset (dim 0 of the
    buffer) when that is a number (the partition start; None when it depends on a value). Its
    other offsets, the buffer itself (its type aside) and the values the offsets are computed
    from it does not read (the buffer's type holds its layout, shape and scope: whether the view
    is logical, the buffer's size). An nki op's verification is keyed by this for each tile
    operand (``NkiOp.VERIFY_VIEW_FACTS``, `tirx_mlir.verification`), with its own types,
    properties and target and the buffer's type: the ops whose tiles differ only in what this
    leaves out (the same tile of another buffer, another free offset, an equal offset computed
    again) share one verdict."""
    first = access.offset[0]
    return access.sizes, access.steps, first.const if first.is_const() else None


def psum_view_facts(access: AccessPattern) -> tuple:
    """`tile_view_facts`, and what `check_psum_bank` reads besides (with the allocation's
    ``trn.addr``, which the op names in ``VERIFY_ALLOC_ATTRS``): all the view's offsets when they
    are numbers (None otherwise)."""
    return tile_view_facts(access), access.static_offset()


def is_logical_view(value: SSAValue) -> bool:
    """A view of an on-chip buffer that still has a Trainium layout (tile dispatch emits these,
    before ``trn-lower-layout``): its dim 0 is the partition dim of the instruction, but its
    offsets are logical, so the physical rules (partition walk and start, buffer size, PSUM
    bank) are checked on the physical tile ``trn-lower-layout`` turns it into."""
    return buffer_type(resolve_access(value).buffer).get_layout() is not None


def check_partition_walk(name: str, access: AccessPattern) -> None:
    """View dim 0 walks the partitions of the buffer with unit stride and every partition uses
    the same free pattern; the free dims stay inside a partition."""
    rank = len(access.offset)
    unit = tuple(1 if j == 0 else 0 for j in range(rank))
    if access.sizes[0] > 1 and access.steps[0] != unit:
        raise RuleError(f"operand '{name}': its dim 0 must walk the partitions of its buffer "
                        f"one by one (partitions cannot be strided or permuted); use "
                        f"nki.transpose to move data across partitions")
    for k in range(1, len(access.sizes)):
        if access.sizes[k] > 1 and access.steps[k][0] != 0:
            raise RuleError(f"operand '{name}': its free dim {k} walks partitions of its "
                            f"buffer; a free dim stays inside a partition (use nki.transpose "
                            f"to move data across partitions)")


def check_buffer_fits(name: str, root: BufferType, limits: TrnLimits) -> None:
    shape = root.get_shape()
    if shape[0] > limits.partitions:
        raise RuleError(f"operand '{name}' views a {root.scope_name} buffer of {shape[0]} "
                        f"partitions; the limit is {limits.partitions}")
    space = memory_space(limits, root.scope_name)
    nbytes, cap = space.row_bytes(root), space.bytes_per_row
    if nbytes > cap:
        raise RuleError(f"operand '{name}' views a {root.scope_name} buffer of {nbytes} bytes "
                        f"per partition; {root.scope_name} holds {cap} bytes per partition "
                        f"({limits.source}): make the buffer smaller")


def check_partition_start(name: str, start: int, nparts: int) -> None:
    """A tile of ``nparts`` partitions starts at 0 (> 64), at 0 or 64 (> 32), else at a
    multiple of 32 (``nl.tile_size``)."""
    quantum = 128 if nparts > 64 else 64 if nparts > 32 else 32
    if start % quantum:
        allowed = ", ".join(str(s) for s in range(0, 128, quantum))
        raise RuleError(f"operand '{name}' starts at partition {start}; a tile of {nparts} "
                        f"partitions must start at partition {allowed}")


def check_scope(name: str, value: SSAValue, allowed: Sequence[str], why: str) -> None:
    where = scope(value)
    if where not in allowed:
        raise RuleError(f"operand '{name}' is in {where}; {why}")


def check_same_partitions_and_free(names_values: Iterable[tuple[str, SSAValue]]) -> None:
    """Equal partition counts and equal free-element counts (free shapes may differ)."""
    items = [(n, v) for n, v in names_values if is_tile(v)]
    ref_name, ref = items[0]
    for name, value in items[1:]:
        if partitions(value) != partitions(ref):
            raise RuleError(f"operands '{ref_name}' and '{name}' span {partitions(ref)} and "
                            f"{partitions(value)} partitions; they must be equal")
        if free_size(value) != free_size(ref):
            raise RuleError(f"operands '{ref_name}' and '{name}' have {free_size(ref)} and "
                            f"{free_size(value)} free elements per partition; they must be "
                            f"equal (free shapes may differ)")


def check_not_both_psum(*names_values: tuple[str, SSAValue | None]) -> None:
    in_psum = [n for n, v in names_values if is_tile(v) and scope(v) == PSUM]  # type: ignore
    if len(in_psum) > 1:
        raise RuleError(f"operands {', '.join(repr(n) for n in in_psum)} are all in {PSUM}; at "
                        f"most one tensor input may be in PSUM: copy one to SBUF first")


def check_vector_operand(name: str, value: SSAValue | None, nparts: int, *,
                         fp32: bool = True, scalar_ok: bool = True, integer: bool = False
                         ) -> None:
    """A per-partition operand: an SSA scalar, or a (P, 1) tile broadcast along the free
    elements. ``fp32`` demands fp32 data (activation scale, tensor_scalar operands);
    ``integer`` asks for integer scalars/tiles instead (bit-vector operators)."""
    if value is None:
        return
    if not is_tile(value):
        if not scalar_ok:
            raise RuleError(f"operand '{name}' must be a ({nparts}, 1) tile here, not a scalar")
        want_int = dtypes.is_integer(value.type) if dtypes.is_supported(value.type) else \
            isinstance(value.type, (IntegerType, IndexType))
        if integer and not want_int:
            raise RuleError(f"operand '{name}' must be an integer scalar for a bit-vector "
                            f"operator, got {value.type}")
        if not integer and dtype_name(value) != "f32":
            raise RuleError(f"operand '{name}' must be an f32 scalar, got {value.type}; "
                            f"convert it with arith.sitofp / arith.extf")
        return
    if partitions(value) != nparts or free_size(value) != 1:
        shape = list(buffer_type(value).get_shape())
        raise RuleError(f"operand '{name}' is a {shape} tile; a per-partition operand is "
                        f"({nparts}, 1): one value per partition (slice one column)")
    if integer and not dtypes.is_integer(buffer_type(value).element_type):
        raise RuleError(f"operand '{name}' must hold integers for a bit-vector operator")
    if fp32 and not integer and dtype_name(value) != "f32":
        raise RuleError(f"operand '{name}' holds {dtype_name(value)}; per-partition operands "
                        f"of this instruction must be f32")


def check_integer_tiles(what: str, *names_values: tuple[str, SSAValue | None]) -> None:
    for name, value in names_values:
        if is_tile(value) and not dtypes.is_integer(buffer_type(value).element_type):  # type: ignore
            raise RuleError(f"{what} works on raw integer bits, but operand '{name}' holds "
                            f"{dtype_name(value)}")  # type: ignore[arg-type]


def free_span(access: AccessPattern, offset: Sequence[int]) -> tuple[int, int]:
    """(first, last) free-element index, within a partition row of the buffer, that a view
    touches, given the view's base offset (its dynamic parts evaluated)."""
    root_shape = buffer_type(access.buffer).get_shape()
    row = [math.prod(root_shape[j + 1:]) for j in range(len(root_shape))]
    first = sum(o * row[j] for j, o in enumerate(offset) if j)
    last = first + sum((n - 1) * sum(s * row[j] for j, s in enumerate(step) if j)
                       for n, step in zip(access.sizes[1:], access.steps[1:]))
    return first, last


def alloc_address(value: SSAValue) -> int | None:
    """The ``trn.addr`` byte offset of the allocation a view reads, if the allocator set one
    (an op class whose verifier calls this names ``trn.addr`` in ``VERIFY_ALLOC_ATTRS``)."""
    owner = resolve_access(value).buffer.owner
    attr = getattr(owner, "attributes", {}).get(ADDR_ATTR)
    return None if attr is None else int(attr.value.data)


def check_psum_bank(name: str, value: SSAValue, offset: Sequence[int],
                    limits: TrnLimits) -> None:
    """A matmul output stays inside one PSUM bank (2 KiB per partition); ``offset`` is the
    view's base offset in its buffer."""
    if is_logical_view(value):
        return
    first, last = free_span(resolve_access(value), offset)
    itemsize = dtypes.itemsize(buffer_type(value).element_type)
    base = alloc_address(value) or 0
    lo, hi = base + first * itemsize, base + (last + 1) * itemsize - 1
    bank = limits.psum_bank_bytes
    if lo // bank != hi // bank:
        raise RuleError(f"operand '{name}' covers PSUM bytes [{lo}, {hi}] of each partition, "
                        f"which crosses a {bank}-byte bank boundary; a matmul output must stay "
                        f"inside one bank: at most {bank // itemsize} {dtype_name(value)} "
                        f"elements, starting at a bank boundary")


def check_pattern(what: str, pattern: Sequence[tuple[int, int]], free: int) -> None:
    if not 1 <= len(pattern) <= 4:
        raise RuleError(f"{what} needs 1 to 4 [step, num] pairs, got {len(pattern)}")
    if any(num <= 0 for _, num in pattern):
        raise RuleError(f"{what} counts must be positive, got {[list(p) for p in pattern]}")
    count = math.prod(num for _, num in pattern)
    if count != free:
        raise RuleError(f"{what} {[list(p) for p in pattern]} covers {count} elements but the "
                        f"destination has {free} free elements per partition")
