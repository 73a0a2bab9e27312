"""The elementwise engine every pointwise CUDA variant (copy, cast, the unary/binary ops, fills)
lowers through: an iteration partition of the destination over the scope's threads, each
operand read where that thread finds it, one scalar function per element, vector accesses.

The iteration partition (who computes which destination element):

* a register destination: its own layout (each thread computes what it holds);
* else a register source of the destination's shape (a register tile written to memory): that
  tile's layout, writing only from the threads a layout leaves out (`_writer_guard`: warp 0 of a
  CTA-scope write from a warp tile, lane 0 of a tile every lane holds);
* else TIRx's synthesized ``[outer, threads, vec]`` spread of the destination (`spread_layout`).

Operands: a register tile is read from the register `register_slots` finds in the same thread
(the variant declines if some thread would need another thread's register); a memory operand
(global, shared) at its physical address through its views and layout, ``vec`` consecutive
elements in one ``ld``/``st.v{2,4}`` when they are consecutive and aligned in every thread;
a plain copy between memories (``move``) of 8- or 16-bit elements moves them packed, 16 bytes
as ``ld``/``st.v4.b32`` of 32-bit words (2 or 4 elements a register: ``.v4`` of one register
per element would stop at 8 bytes of f16), which is what cuda-pipeline-k-loop turns into a
16-byte ``cp.async.cg``;
a scalar operand (an SSA value) as is. Rounds are one loop body (`rounds`, `_rolled`) when
their coordinates and every register operand's indices move by constant steps (the PTX
printer expands loops over registers, printers/ptx/unroll.py). Broadcast
operands (extent 1 on a dim, or fewer dims) read index 0 of that dim. Values are computed in f32 (f64 if an operand is f64) and rounded on store,
as the tile interpreter does (`tirx_mlir.interpreter.runtime.compute_dtype`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import AnyFloat, Float64Type, IntegerType, VectorType, f32, f64, i32
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.ptx import ops as ptx
from tirx_mlir.backends.cuda.dispatch import common, rounds
from tirx_mlir.backends.cuda.layout.defaults import (MAX_VECTOR_BYTES, MAX_VECTOR_LANES,
                                                     SCOPE_AXIS, scope_threads, spread_layout,
                                                     vector_width)
from tirx_mlir.backends.cuda.layout.runs import aligned, view_runs
from tirx_mlir.backends.cuda.layout.partition import PartitionError, RegisterPartition, partition_of
from tirx_mlir.backends.cuda.memory import GLOBAL, LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope
from tirx_mlir.dispatch import fail
from tirx_mlir.dispatch.builders import elem_type, is_buffer, scope_of, shape_of
from tirx_mlir.ir_insert import nested_builder

ScalarFn = Callable[[Builder, Sequence[SSAValue]], SSAValue]
"""Builds the destination element from the operands' values (in the compute type)."""


@dataclass
class Operand:
    value: SSAValue
    shape: tuple[int, ...]
    kind: str  # "reg" | "mem" | "scalar"
    regs: list[int] | None = None
    array: SSAValue | None = None
    squeezed: tuple[int, ...] | None = None
    """For a memory operand with the destination's elements in another shape (a copy of
    ``[1, 64]`` into ``[64]``): the destination dims its non-unit dims take, in order."""
    shift: IndexExpr = IndexExpr()
    """For a register operand in rolled rounds: what the round adds to its register index
    (an affine expression of the loops' induction variables, `_rolled`)."""


def compute_type(types: Sequence[Attribute]) -> Attribute:
    """f64 when an operand is f64, else f32 for floats; integers compute in their own type
    (the widest of them)."""
    if any(isinstance(t, Float64Type) for t in types):
        return f64
    if any(isinstance(t, AnyFloat) for t in types):
        return f32
    ints = [t for t in types if isinstance(t, IntegerType)]
    return max(ints, key=lambda t: t.width.data) if ints else f32


def convert(b: Builder, value: SSAValue, to: Attribute) -> SSAValue:
    """``value`` converted to ``to`` (float widths, float <-> int, int widths; round to nearest
    even, float -> int truncates toward zero as the tile interpreter does)."""
    src = value.type
    if src == to:
        return value
    if isinstance(src, AnyFloat) and isinstance(to, AnyFloat):
        wider = src.bitwidth < to.bitwidth
        return b.insert((arith.ExtFOp if wider else arith.TruncFOp)(value, to)).result
    if isinstance(src, IntegerType) and isinstance(to, AnyFloat):
        return b.insert(arith.SIToFPOp(value, to)).result
    if isinstance(src, AnyFloat) and isinstance(to, IntegerType):
        return b.insert(arith.FPToSIOp(value, to)).result
    if isinstance(src, IntegerType) and isinstance(to, IntegerType):
        if src.width.data < to.width.data:
            return b.insert(arith.ExtSIOp(value, to)).result
        return b.insert(arith.TruncIOp(value, to)).result
    fail(f"no conversion from {src} to {to}")


def _iteration(op, ctx, dst: SSAValue, srcs: Sequence[SSAValue], lanes: int
               ) -> tuple[RegisterPartition, bool]:
    """(iteration partition, whether it was synthesized); ``lanes``: the most elements one
    thread's vector access may hold."""
    shape = shape_of(dst)
    for v in (dst, *srcs):
        if is_buffer(v) and scope_of(v) == LOCAL and shape_of(v) == shape and \
                _whole(v):
            return common.register_partition(v), False
    scope = op.exec_scope
    nthreads = scope_threads(scope, common.block_threads(ctx))
    vec = _memory_vector(shape, [v for v in (dst, *srcs) if is_buffer(v)], lanes)
    layout = spread_layout(shape, SCOPE_AXIS.get(scope), nthreads, vec)
    try:
        return partition_of(layout, shape), True
    except PartitionError as err:
        fail(str(err))


def _whole(value: SSAValue) -> bool:
    pattern = resolve_access(value)
    return pattern.buffer is value


def _memory_vector(shape: Sequence[int], buffers: Sequence[SSAValue], lanes: int) -> int:
    """The widest vector every memory operand can be accessed with along the last dim."""
    v = min(vector_width(shape, dtypes.bit_width(elem_type(x)) // 8, lanes=lanes)
            for x in buffers)
    while v > 1 and not all(_contiguous(x, shape, v) for x in buffers
                            if scope_of(x) != LOCAL):
        v //= 2
    return v


def _contiguous(view: SSAValue, iter_shape: Sequence[int], v: int) -> bool:
    """Whether runs of ``v`` elements along the iteration's last dim are consecutive and
    ``v``-aligned in the operand's physical memory."""
    vshape = shape_of(view)
    if not vshape or vshape[-1] != iter_shape[-1]:
        return v == 1
    rank = len(vshape)
    btype = resolve_access(view).buffer_type
    zero = [IndexExpr()] * rank
    buf, base = common.base_coords(view, zero)
    lin = common.linear_index(btype, base)
    unit = list(zero)
    unit[-1] = IndexExpr(1)
    _, step = common.base_coords(view, unit)
    lin1 = common.linear_index(btype, step)
    if lin is None:  # a swizzled (or otherwise non-strided) layout: read its runs statically
        return view_runs(view, rank - 1, v)
    if lin1 is None or lin1.const - lin.const != 1:
        return False
    if not aligned(lin, v):
        return False
    # every other dim's step keeps the alignment
    for k in range(rank - 1):
        unit = list(zero)
        unit[k] = IndexExpr(1)
        _, s = common.base_coords(view, unit)
        lk = common.linear_index(btype, s)
        if lk is None or (lk.const - lin.const) % v:
            return False
    return True


NUMBERINGS = {
    "tx": (("tx",), ("laneid", "warpid"), ("laneid", "wid_in_wg", "wgid"),
           ("tid_in_wg", "wgid")),
    "tid_in_wg": (("tid_in_wg",), ("laneid", "wid_in_wg")),
    "laneid": (("laneid",),),
}
"""The ways the thread axes number the threads of one instance of a scope (keyed by the
scope's axis): ``tx = laneid + 32 warpid = laneid + 32 (wid_in_wg + 4 wgid) = tid_in_wg + 128
wgid``."""


def _axis_threads(axis: str, full: int) -> int:
    """The extent of thread axis ``axis`` over a scope instance of ``full`` threads."""
    return {"tx": full, "tid_in_wg": min(full, 128), "laneid": min(full, 32),
            "warpid": max(1, full // 32), "wid_in_wg": max(1, min(full, 128) // 32),
            "wgid": max(1, full // 128)}[axis]


def _writer_guard(b: Builder, part: RegisterPartition, scope: ExecScope, nthreads: int,
                  ids: common.ThreadIds) -> Builder:
    """A builder inside ``if`` (the threads that write memory for ``part``): of the scope's
    threads, those the layout leaves out write nothing (beyond its extent on an axis, or any
    but 0 on an axis of the numbering it does not use: a cta tile over ``laneid`` and
    ``wid_in_wg`` is written by warpgroup 0), and of replicas only replica 0 writes."""
    axis = SCOPE_AXIS.get(scope)
    if axis is None:
        return b
    full = scope_threads(scope, nthreads)
    used = set(part.threads)
    numbering = next((n for n in NUMBERINGS[axis] if used <= set(n)), None)
    if numbering is None:
        fail(f"the layout's thread axes {sorted(used)} do not number the threads of one "
             f"{scope.value} instance ({' / '.join('+'.join(n) for n in NUMBERINGS[axis])})")
    limits = [(ax, part.threads.get(ax, 1)) for ax in numbering]  # (axis, threads allowed)
    conds: list[SSAValue] = []
    for ax, allowed in limits:
        if allowed >= _axis_threads(ax, full):
            continue
        conds.append(b.insert(arith.CmpiOp(ids[ax], const_index(b, allowed), "ult")).result)
    for it in part.replicas:
        digit = ids.digit(ids[it.axis], it.stride, it.extent)
        conds.append(b.insert(arith.CmpiOp(digit, const_index(b, 0), "eq")).result)
    if not conds:
        return b
    cond = conds[0]
    for c in conds[1:]:
        cond = b.insert(arith.AndIOp(cond, c)).result
    body = Block()
    body.add_op(scf.YieldOp())
    b.insert(scf.IfOp(cond, [], [body]))
    return nested_builder(b, InsertPoint.before(body.last_op))


def lower(op, ctx, dst: SSAValue, srcs: Sequence[SSAValue | None], fn: ScalarFn,
          ctype: Attribute | None = None, at: "Callable | None" = None,
          require_vector: int | None = None, packed: ScalarFn | None = None,
          convert_pairs: bool = False, move: bool = False) -> None:
    """Lower ``dst[i] = fn(srcs[...][i])`` (module docstring). With ``at``, the function is
    ``at(builder, values, coords)``: it also sees the element's destination coordinate (one
    affine `IndexExpr` per dim). With ``require_vector``, every memory operand must be
    accessed with vectors of exactly that many elements (else the variant declines).
    ``packed``, the same function on half2/bfloat162 values, computes two elements at once
    where `_packable` allows; ``convert_pairs`` (a tirx.cast) converts two elements at once where
    `_conversion_pairs` allows. ``move``: ``fn`` returns its one operand unchanged (a copy), so
    8- and 16-bit elements between memories may travel packed in 32-bit words (`_word_lanes`)."""
    b = ctx.builder
    shape = shape_of(dst)
    present = [s for s in srcs if s is not None]
    lanes = _word_lanes(dst, present) if move else MAX_VECTOR_LANES
    if require_vector is not None:
        most = min(lanes, MAX_VECTOR_BYTES * 8 // max(dtypes.bit_width(elem_type(v))
                                                     for v in (dst, *present) if is_buffer(v)))
        if require_vector > most:
            fail(f"{require_vector} elements per access: at most {most} here (16 bytes, and 4 "
                 f"registers unless a copy between memories packs 8/16-bit elements in 32-bit "
                 f"words)")
        lanes = require_vector
    part, synthesized = _iteration(op, ctx, dst, [s for s in present if is_buffer(s)], lanes)
    scope = op.exec_scope
    nthreads = common.block_threads(ctx)
    ids = common.ThreadIds(b)
    types = [elem_type(v) for v in (dst, *present)]
    ctype = ctype or compute_type(types)
    operands = [_operand(ctx, s, part, shape, scope, nthreads) for s in present]
    dst_op = _operand(ctx, dst, part, shape, scope, nthreads)
    slots = part.registers()
    thread = ids.thread_coords(part) if part.threads else (IndexExpr(),) * len(shape)
    cache: dict = {}
    vec = _group(part, slots, shape, lanes)
    if require_vector is not None:
        _require_vector(operands + [dst_op], part, slots, shape, thread, require_vector, vec)
    wb = _writer_guard(b, part, scope, nthreads, ids) if dst_op.kind == "mem" else b
    pair_type = elem_type(dst) if packed is not None and \
        _packable(ctx, dst, operands, len(slots)) else None
    if convert_pairs and pair_type is None:
        pair_type, packed = _conversion_pairs(ctx, dst, operands, len(slots)), _same
    pairs = pair_type is not None
    step = max(vec, 2) if pairs else vec
    groups = [slots[start:start + step] for start in range(0, len(slots), step)]
    rolled = _rolled(op, operands + [dst_op], groups, part, slots)
    if rolled is not None:  # one body in loops over the rounds (`rounds`)
        wb, round_coord = rolled.emit(wb)
        thread = tuple(t + c for t, c in zip(thread, round_coord))
        shifts = iter(round_coord[len(thread):])
        for o in operands + [dst_op]:
            if o.kind == "reg":
                o.shift = next(shifts)
        groups = groups[:1]
    for k, group in enumerate(groups):
        start = k * step
        coords = [tuple(t + c for t, c in zip(thread, part.reg_coords(r))) for r in group]
        if len(group) > MAX_VECTOR_LANES:  # a packed move (`_word_lanes`)
            _move_words(wb, operands[0], dst_op, coords, cache)
            continue
        values = [_read(wb, ctx, o, coords, start, vec, cache) for o in operands]
        if pairs:
            outs = _packed_pairs(wb, packed, values, len(group), pair_type, elem_type(dst))
            _write(wb, dst_op, coords, start, outs, cache)
            continue
        args = [[convert(wb, v[j], ctype) if v[j].type != ctype and _is_value(v[j]) else v[j]
                 for v in values] for j in range(len(group))]
        outs = [fn(wb, a) if at is None else at(wb, a, coords[j]) for j, a in enumerate(args)]
        _write(wb, dst_op, coords, start, [convert(wb, o, elem_type(dst)) for o in outs], cache)


def _rolled(op, operands: list[Operand], groups, part: RegisterPartition, slots):
    """The loops the groups roll into (`rounds.roll`), or None. A register operand's index
    joins the rolled coordinate (one extra dim each, after the destination's), so the rounds
    roll only when it too moves by constant steps; the PTX printer expands such loops
    (printers/ptx/unroll.py: registers cannot be indexed). Swizzled operands stay unrolled
    (`rounds.unswizzled`), and so does a copy from global to shared memory in a loop body
    (cuda-pipeline-k-loop makes its top-level moves a cp.async ring)."""
    if not rounds.unswizzled([o.value for o in operands if o.kind == "mem"]):
        return None
    if _in_loop(op) and any(o.kind == "mem" and scope_of(o.value) == GLOBAL
                            for o in operands[:-1]) and \
            scope_of(operands[-1].value) in SHARED_SCOPES:
        return None
    registers = [o.regs for o in operands if o.kind == "reg"]
    position = {r: k for k, r in enumerate(slots)}
    return rounds.roll(groups, lambda r: (*part.reg_coords(r),
                                          *(regs[position[r]] for regs in registers)))


def _in_loop(op) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, scf.ForOp):
            return True
        parent = parent.parent_op()
    return False


PACKED_TYPES = {"f16": 53, "bf16": 90}
"""Element types computed two at a time (``half2``/``bfloat162``) and the sm the packed add,
sub and mul need (sm_90 for bf16x2, PTX ISA "Half Precision Floating-Point Instructions")."""


def _packable(ctx, dst: SSAValue, operands: list[Operand], nslots: int) -> bool:
    """Whether the packed form applies: every operand a tile of the destination's f16/bf16
    type (a packed op rounds once to that type, as f32 arithmetic rounded on store does for
    add, sub, mul, max and min: f32 holds the exact result to 2p+2 bits), an even count."""
    name = dtypes.type_name(elem_type(dst))
    need = PACKED_TYPES.get(name)
    return need is not None and common.sm_version(ctx) >= need and nslots % 2 == 0 and \
        all(o.kind != "scalar" and elem_type(o.value) == elem_type(dst) for o in operands)


def _conversion_pairs(ctx, dst: SSAValue, operands: list[Operand], nslots: int
                      ) -> Attribute | None:
    """The 16-bit type of a cast between register tiles of f32 and f16/bf16 that converts two
    elements at once (TIRx's ``cast_vec2``): f32 -> half2/bfloat162 is one
    ``cvt.rn.{f16x2,bf16x2}.f32`` (sm_80), half2/bfloat162 -> f32 one ``__half22float2`` /
    ``__bfloat1622float2``; each rounds (or widens) each element as the scalar cvt does. None
    where it does not apply (another pair of types, memory or scalar operands, an odd
    count)."""
    if len(operands) != 1 or nslots % 2 or common.sm_version(ctx) < 80:
        return None
    src = operands[0]
    if src.kind != "reg" or scope_of(dst) != LOCAL:
        return None
    types = {dtypes.type_name(elem_type(src.value)): elem_type(src.value),
             dtypes.type_name(elem_type(dst)): elem_type(dst)}
    half = [n for n in types if n in PACKED_TYPES]
    return types[half[0]] if len(types) == 2 and "f32" in types and half else None


def _same(b: Builder, xs: Sequence[SSAValue]) -> SSAValue:
    return xs[0]


def _packed_pairs(b: Builder, packed: ScalarFn, values: list[list[SSAValue]], n: int,
                  pair_type: Attribute, out_type: Attribute) -> list[SSAValue]:
    """Elements ``2i`` and ``2i+1`` of every operand packed into one half2/bfloat162 of
    ``pair_type`` (``cuda.pack``: converting f32 halves), ``packed`` applied once, and the
    result split again into ``out_type`` halves (``cuda.unpack``: widening to f32)."""
    from tirx_mlir.backends.cuda.dialects.cuda.math import PackOp, UnpackOp

    outs: list[SSAValue] = []
    vt = VectorType(pair_type, [2])
    for j in range(0, n, 2):
        pair = [b.insert(PackOp(v[j], v[j + 1], result_types=[vt])).result for v in values]
        result = packed(b, pair)
        split = b.insert(UnpackOp(result, result_types=[out_type, out_type]))
        outs += [split.lo_half, split.hi_half]
    return outs


def _require_vector(operands, part, slots, shape, thread, n: int, vec: int) -> None:
    coords = [tuple(t + c for t, c in zip(thread, part.reg_coords(r))) for r in slots[:n]]
    for o in operands:
        if o.kind == "mem" and n > 1 and (vec != n or not _consecutive(None, o, coords, None)):
            fail(f"the {n} elements are not one aligned vector in {scope_of(o.value)} memory")


def _is_value(v) -> bool:
    return isinstance(v, SSAValue)


def _group(part: RegisterPartition, slots: list[int], shape, lanes: int) -> int:
    """Slots per vector access: ``vec`` of the synthesized spread (its innermost ``m``
    iterator), at most ``lanes``, a power of two dividing it (a run of 12 registers: 3
    vectors of 4, not 4 of 3); 1 for a register layout's own order."""
    inner = [it for it in part.iters if it.axis == "m"]
    if not inner or inner[0].weight != 1 or inner[0].dim != len(shape) - 1 or \
            inner[0].stride != 1:
        return 1
    extent = inner[0].extent
    v = 1  # the widest power of two within ``lanes`` that divides the run (ptx vectors: v2/v4)
    while 2 * v <= lanes and extent % (2 * v) == 0:
        v *= 2
    return v if len(slots) % v == 0 else 1


WORD_BITS = 32


def _word_lanes(dst: SSAValue, srcs: Sequence[SSAValue]) -> int:
    """The most elements one vector access of a plain copy may hold: 16 bytes packed in 32-bit
    words (8 f16, 16 i8) when both ends are global/shared memory of one 8- or 16-bit element
    type, else `MAX_VECTOR_LANES` (one register per element)."""
    if len(srcs) != 1 or not all(is_buffer(v) and scope_of(v) in (GLOBAL, *SHARED_SCOPES)
                                 for v in (dst, *srcs)):
        return MAX_VECTOR_LANES
    t = elem_type(dst)
    bits = dtypes.bit_width(t)
    if elem_type(srcs[0]) != t or bits not in (8, 16):
        return MAX_VECTOR_LANES
    return MAX_VECTOR_BYTES * 8 // bits


def _move_words(b, src: Operand, dst: Operand, coords, cache) -> None:
    """Copy the elements at ``coords`` (more than 4, consecutive in the destination's row) from
    ``src`` to ``dst`` as ``ld``/``st.v{2,4}.b32`` of packed words where both runs are
    consecutive and aligned, else in vectors of at most 4 elements."""
    n = len(coords)
    t = elem_type(dst.value)
    words = n * dtypes.bit_width(t) // WORD_BITS
    if _consecutive(b, src, coords, cache) and _consecutive(b, dst, coords, cache):
        sbuf, sindex = _address_parts(b, src, coords[0], cache)
        regs = _vector_load(b, sbuf, common.index_value(b, sindex), i32, words)
        dbuf, dindex = _address_parts(b, dst, coords[0], cache)
        _vector_store(b, dbuf, common.index_value(b, dindex), regs)
        return
    for j in range(0, n, MAX_VECTOR_LANES):
        part = coords[j:j + MAX_VECTOR_LANES]
        _write(b, dst, part, 0, _read(b, None, src, part, 0, len(part), cache), cache)


def _operand(ctx, value: SSAValue, part, shape, scope, nthreads) -> Operand:
    if not is_buffer(value):
        return Operand(value, (), "scalar")
    vshape = shape_of(value)
    if scope_of(value) == LOCAL:
        try:
            regs = common.register_slots(common.register_partition(value), value, part, shape,
                                         scope, nthreads)
        except PartitionError as err:
            fail(str(err))
        return Operand(value, vshape, "reg", regs, common.registers(ctx, value))
    if scope_of(value) not in (GLOBAL, *SHARED_SCOPES):
        fail(f"operand in {scope_of(value)} is neither registers nor global/shared memory")
    return Operand(value, vshape, "mem", squeezed=_squeezed(vshape, tuple(shape)))


def _squeezed(vshape: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The destination dims of ``vshape``'s non-unit dims when the operand holds the
    destination's elements in another shape (the tile semantics: a reshape, not a broadcast),
    else None (the same shape, or a NumPy broadcast). Only unit dims may differ."""
    if vshape == shape or math.prod(vshape) != math.prod(shape):
        return None
    dims = [d for d, n in enumerate(shape) if n != 1]
    if [n for n in vshape if n != 1] != [shape[d] for d in dims]:
        fail(f"an operand {list(vshape)} holds the destination's {list(shape)} elements in "
             f"other dims; only unit dims may differ")
    return tuple(dims)


def operand_coords(vshape: tuple[int, ...], shape: tuple[int, ...],
                   coords: Sequence[IndexExpr]) -> tuple[IndexExpr, ...]:
    """The coordinate in an operand of shape ``vshape`` of the destination element at
    ``coords`` (destination shape ``shape``): the same element of a reshaped operand, the
    broadcast one otherwise (`_squeezed`)."""
    return _coords(vshape, _squeezed(vshape, shape), tuple(coords))


def _coords(vshape, squeezed, coords: tuple[IndexExpr, ...]) -> tuple[IndexExpr, ...]:
    if squeezed is not None:
        taken = iter(squeezed)
        return tuple(IndexExpr() if n == 1 else coords[next(taken)] for n in vshape)
    lead = len(coords) - len(vshape)
    return tuple(IndexExpr() if n == 1 else c for n, c in zip(vshape, coords[lead:]))


def _view_coords(o: Operand, coords: tuple[IndexExpr, ...]) -> tuple[IndexExpr, ...]:
    return _coords(o.shape, o.squeezed, coords)


def _address_parts(b, o: Operand, coords, cache):
    buf, base = common.base_coords(o.value, _view_coords(o, coords))
    btype = buf.type
    assert isinstance(btype, BufferType)
    return buf, common.physical_index(b, btype, base, cache)


def _read(b, ctx, o: Operand, coords, start, vec, cache) -> list[SSAValue]:
    if o.kind == "scalar":
        return [o.value] * len(coords)
    t = elem_type(o.value)
    if o.kind == "reg":
        assert o.regs is not None and o.array is not None
        return [b.insert(LoadOp(o.array, _register_index(b, o, start + j, cache),
                                result_types=[t])).result for j in range(len(coords))]
    if len(coords) > 1 and _consecutive(b, o, coords, cache):
        buf, index = _address_parts(b, o, coords[0], cache)
        return _vector_load(b, buf, common.index_value(b, index), t, len(coords))
    out = []
    for c in coords:
        buf, index = _address_parts(b, o, c, cache)
        out.append(b.insert(LoadOp(buf, common.index_value(b, index), result_types=[t])).result)
    return out


def _register_index(b, o: Operand, position: int, cache) -> SSAValue:
    """The index in a register operand's array of its ``position``-th slot (moved by the
    rolled round's `Operand.shift`)."""
    assert o.regs is not None
    shifted = o.shift + IndexExpr(o.regs[position])
    return common.index_value(b, common.materialize_cached(b, shifted, cache))


def _consecutive(b, o: Operand, coords, cache) -> bool:
    if o.shape and o.shape[-1] == 1:
        return False
    buf, base = common.base_coords(o.value, _view_coords(o, coords[0]))
    lin = common.linear_index(buf.type, base)
    if lin is None:
        return _swizzled_run(o, coords)
    if not aligned(lin, len(coords)):
        return False
    for j, c in enumerate(coords[1:], 1):
        _, bj = common.base_coords(o.value, _view_coords(o, c))
        lj = common.linear_index(buf.type, bj)
        if lj is None or lj.terms != lin.terms or lj.const != lin.const + j:
            return False
    return True


def _swizzled_run(o: Operand, coords) -> bool:
    """For a layout without a stride per dim (a swizzle): the coordinates step by 1 along the
    last dim from an aligned start, and the layout keeps such runs whole (`runs.view_runs`)."""
    n = len(coords)
    first = [IndexExpr.of(x) for x in _view_coords(o, coords[0])]
    if not first:
        return False
    for j, c in enumerate(coords[1:], 1):
        delta = [IndexExpr.of(x) + f.scale(-1) for x, f in zip(_view_coords(o, c), first)]
        if any(d != IndexExpr() for d in delta[:-1]) or delta[-1] != IndexExpr(j):
            return False
    if not aligned(first[-1], n):
        return False
    return view_runs(o.value, len(first) - 1, n)


def _vector_load(b, buf, index, t, n) -> list[SSAValue]:
    """``ld.<space>.v<n>.<type>`` with results of type ``t``."""
    space, addr = common.ptx_access(b, buf, index)
    op = ptx.make("ld", [addr], [t] * n, space=space, vec=f"v{n}", type=common.ptx_type(t))
    return list(b.insert(op).results)


def _vector_store(b, buf, index, values: list[SSAValue]) -> None:
    """``st.<space>.v<n>.<type>`` of ``values`` (one type)."""
    space, addr = common.ptx_access(b, buf, index)
    b.insert(ptx.make("st", [addr, *values], space=space, vec=f"v{len(values)}",
                      type=common.ptx_type(values[0].type)))


def _write(b, o: Operand, coords, start, values: list[SSAValue], cache) -> None:
    if o.kind == "reg":
        assert o.regs is not None and o.array is not None
        for j, v in enumerate(values):
            b.insert(StoreOp(o.array, _register_index(b, o, start + j, cache), v))
        return
    if len(coords) > 1 and _consecutive(b, o, coords, cache):
        buf, index = _address_parts(b, o, coords[0], cache)
        _vector_store(b, buf, common.index_value(b, index), values)
        return
    for c, v in zip(coords, values):
        buf, index = _address_parts(b, o, c, cache)
        b.insert(StoreOp(buf, common.index_value(b, index), v))
