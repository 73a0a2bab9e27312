"""``tirx.gemm_async`` variant ``wgmma`` (priority 10, sm_90a): C (+)= op(A) @ op(B)ᵀ with
``wgmma.mma_async.sync.aligned.m64nNk16`` (PTX ISA "Asynchronous Warpgroup Level Matrix
Multiply-Accumulate"), A and B in swizzled shared memory read through 64-bit matrix
descriptors, C f32 in registers. TIRx has no Hopper gemm_async variant (its ``tcgen05`` is
sm_100); this one follows CUTLASS's SM90 GMMA mainloop.

* **Operands**: A ``[M, K]`` (K-major) or, with ``transpose_a``, ``[K, M]`` (MN-major); B
  ``[N, K]`` (K-major) or, with ``transpose_b``, ``[K, N]``; f16 or bf16, each one whole tile of
  a shared alloc (or one stage of a ring, tma_ring.py) whose layout is a 32/64/128-byte
  `swizzle.swizzled_layout` (the default layout pass gives wgmma operands one); C an f32
  ``local`` tile with the wgmma accumulator layout (`fragments_wgmma.accumulator_layout`; the
  default layout pass gives it).
* **The rs form**: A may instead be a ``local`` ``[M, K]`` register tile (not transposed)
  holding the rs A fragments, which are the accumulator layout of ``[M, K]`` (an m64nNk16
  result is the A of a following GEMM over K = N, as in attention's P @ V); each K step of 16
  packs its 8 elements into the 4 b32 registers of ``wgmma.mma_async ... {a}, desc_b``.
* **Scopes**: ``warpgroup``: every warpgroup computes all of C in its own registers;
  ``cta``: the consumer warpgroups (layout/roles.py: all but the TMA producer's)
  split C's m64 row tiles, warpgroup ``c`` holding tiles ``c * mt/g ..``.
* **Instructions**: N per instruction is the widest multiple of 8 up to 256 dividing N; one
  wgmma per (m64 tile, N chunk, K step of 16), ``scale-d`` 0 on the first K step unless
  ``accum``; descriptors are the tile's (`wgmma_operand.OperandTile`), the start address
  advanced per piece.
* **Order** (so that ptxas neither serialises nor injects waits, advisories C7517/C7519): the
  accumulators are read into registers, ``wgmma.fence``, every wgmma of the op (chained on
  the same registers), ``wgmma.commit_group``, ``wgmma.wait_group 0``, then the registers are
  written back; nothing touches them in between. In the K loop of a pipelined ring the wait is
  ``wgmma.wait_group 1`` instead: one group stays in flight across K steps, its stage released
  one step later and the last after the loop (wgmma_in_flight.py); the registers written back
  are then still the tensor core's until that wait. Shared operands written by ordinary stores
  or cp.async are made visible to the async proxy first (``fence.proxy.async.shared::cta``;
  a cp.async the program does not wait for outside a pipelined ring is completed first,
  async_completion.py); ring stages are waited for (full) before and released (empty) after,
  once per barrier pair. The loop around an accumulating chain of several accumulator sets
  is kept rolled (`_keep_loop_rolled`, advisory C7520 otherwise).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, StringAttr, f32, i1, i64
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import common, shared_refill
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.backends.cuda.dispatch import ring_loop_roles as roles
from tirx_mlir.backends.cuda.dispatch import wgmma_in_flight as in_flight
from tirx_mlir.backends.cuda.dispatch.async_completion import complete_cp_async, unwaited_cp_async
from tirx_mlir.backends.cuda.dispatch.fragment_io import pack
from tirx_mlir.backends.cuda.layout import fragments_wgmma as fw
from tirx_mlir.backends.cuda.layout.async_defaults import is_tma_copy
from tirx_mlir.backends.cuda.loop_hints import mark_nounroll
from tirx_mlir.backends.cuda.layout.roles import WARPGROUP, consumer_warpgroups, warpgroups
from tirx_mlir.backends.cuda.layout.wgmma_operand import K_STEP, OperandTile, operand_tile
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dispatch import exec_scope_in, fail, predicate, register_dispatch
from tirx_mlir.dispatch.builders import check_config

PTX_TYPES = {"f16": "f16", "bf16": "bf16"}
_LOW_18 = (1 << 18) - 16
"""The shared-window address bits a descriptor's start field holds (bits 4-17)."""


def _sm90a(op, ctx):
    ok = common.sm_version(ctx) == 90 and common.is_arch_specific(ctx)
    return ok, f"wgmma exists only on sm_90a, the target is {ctx.target.get('arch')}"


def _operands(op, ctx):
    a, b, c = op.a.type, op.b.type, op.c.type
    if a.scope_name not in ("shared", "shared.dyn", "local") or \
            b.scope_name not in ("shared", "shared.dyn"):
        return False, "wgmma reads A from shared memory or registers and B from shared memory"
    if c.scope_name != "local" or dtypes.type_name(c.element_type) != "f32":
        return False, "wgmma accumulates into an f32 local (register) tile"
    names = {dtypes.type_name(a.element_type), dtypes.type_name(b.element_type)}
    if len(names) != 1 or not names <= set(PTX_TYPES):
        return False, f"wgmma takes f16 or bf16 A and B of one type, got {sorted(names)}"
    if op.sfa is not None:
        return False, "block-scaled gemm_async is tcgen05's (sm_100)"
    return True, ""


SM90A = predicate("sm_90a", _sm90a)
OPERANDS = predicate("shared or local A, shared B, f32 local C", _operands)


def accumulator_groups(op, kernel) -> int | None:
    """The ``warpgroups`` argument of C's accumulator layout: None at warpgroup scope (each
    holds all of C), the consumer warpgroup count at cta scope."""
    if op.exec_scope == ExecScope.WARPGROUP:
        return None
    return consumer_warpgroups(kernel)


class _Operand:
    """One shared operand: its stage view, descriptor tile and ring protocol."""

    def __init__(self, op, ctx, value: SSAValue, mn_major: bool, what: str):
        view = ring_.stage_view(value)
        if isinstance(view, str):
            fail(f"{what}: {view}")
        self.view = view
        btype = view.alloc.type
        e = dtypes.bit_width(btype.element_type) // 8
        tile = operand_tile(btype.get_layout(), btype.get_shape(), e, mn_major)
        if isinstance(tile, str):
            fail(f"{what}: {tile}")
        self.tile: OperandTile = tile
        self.pipelined = ring_.pipelined(ctx, view.alloc)
        writers = ring_.ring_writer_ops(ctx, view.alloc)
        self.async_proxy_writes = bool(writers) and all(is_tma_copy(w) for w in writers)
        """Whether only TMA (the async proxy) writes the alloc's tiles: its full barrier's
        wait (before the wgmma, or once after a one-shot load) makes them visible to wgmma
        without a proxy fence."""

    def descriptor_base(self, b: Builder, stage: SSAValue) -> SSAValue:
        """The descriptor of the stage tile's first piece (an i64 value)."""
        start = b.insert(arith.MuliOp(stage, ring_.const(b, self.view.tile_elements,
                                                         IndexType()))).result
        addr = ring_.shared_address(b, self.view.alloc, start)
        wide = b.insert(arith.ExtUIOp(addr, i64)).result
        low = b.insert(arith.AndIOp(wide, ring_.const(b, _LOW_18, i64))).result
        field = b.insert(arith.ShRUIOp(low, ring_.const(b, 4, i64))).result  # address / 16
        high = ring_.const(b, self.tile.descriptor(0).encode(), i64)
        return b.insert(arith.OrIOp(field, high)).result


def _advance(b: Builder, desc: SSAValue, byte_offset: int | SSAValue) -> SSAValue:
    """A descriptor whose start is ``byte_offset`` (a multiple of 16) further."""
    if isinstance(byte_offset, int):
        if byte_offset == 0:
            return desc
        byte_offset = ring_.const(b, byte_offset >> 4, i64)
    return b.insert(arith.AddiOp(desc, byte_offset)).result


@register_dispatch(T.GemmAsyncOp, "cuda", variant="wgmma", priority=10,
                   when=[SM90A, common.ONE_DIM_BLOCK, exec_scope_in("warpgroup", "cta"),
                         common.whole_groups(WARPGROUP, "wgmma"), OPERANDS])
def wgmma(op, ctx) -> None:
    check_config(op, ())
    kernel = ctx.kernel
    m, n = op.c.type.get_shape()
    groups = accumulator_groups(op, kernel)
    if not fw.is_accumulator_layout(op.c.type.get_layout(), (m, n), groups):
        fail(f"C's layout must be the wgmma accumulator layout {_wanted(m, n, groups)}, not "
             f"{op.c.type.get_layout()}")
    registers_a = op.a.type.scope_name == "local"
    a = None if registers_a else _Operand(op, ctx, op.a, op.flag("transpose_a"), "A")
    bop = _Operand(op, ctx, op.b, op.flag("transpose_b"), "B")
    a_mn, k = (a.tile.mn, a.tile.k) if a is not None else _register_a(op, groups)
    n_instr = fw.instruction_n(n)
    if n_instr is None or k % K_STEP or a_mn != m or bop.tile.mn != n or bop.tile.k != k:
        fail(f"wgmma tiles C [{m}, {n}] by m64 n<=256 k16; A gives [{a_mn}, {k}], B "
             f"[{bop.tile.mn}, {bop.tile.k}]")
    if not all(bop.tile.piece_fits(j, n_instr) for j in range(0, n, n_instr)):
        fail(f"B's MN-major column blocks do not split into n{n_instr} pieces")
    ptx_type = PTX_TYPES[dtypes.type_name(op.a.type.element_type)]
    regs = common.registers(ctx, op.c)
    b = ctx.builder
    if not all(x.pipelined for x in (a, bop) if x is not None) and unwaited_cp_async(op, ctx):
        complete_cp_async(b)  # a cp.async outside a pipelined ring has landed (CTA-wide)
    inner, wg = _consumer_block(b, op, kernel)
    shared = [x for x in (a, bop) if x is not None]
    shared_refill.note_reads(ctx, [x.view.alloc for x in shared if not x.pipelined])
    stages = [(x, ring_.stage_index(inner, x.view)) for x in shared]
    # one wait and one release per stage of a barrier pair: A and B may be the same stage
    # tile (X @ X^T) or tiles of one mixed group (tma_ring.py)
    synced = list({(ring_.barrier_key(ctx, x.view.alloc), x.view.stage): (x, stage)
                   for x, stage in stages if x.pipelined}.values())
    for x, stage in synced:
        bars = ring_.ring_barriers(ctx, x.view)
        parity = ring_.use_parity(ctx, inner, x.view, ring_.CONSUMER, stage)
        ring_.wait_parity(inner, ring_.shared_address(inner, bars.full, stage), parity)
    generic = [x for x in shared if not x.async_proxy_writes]
    loop = in_flight.in_flight_loop(op, ctx, shared)
    split = None if loop is not None else roles.register_ring_loop(ctx, op)
    if split is not None and generic and \
            all(roles.written_before(ctx, x.view.alloc, split) for x in generic):
        roles.fence_before(ctx, split)  # once, as the loop starts: nothing in it writes them
    elif generic:
        # generic-proxy writes (stores, cp.async) become visible to wgmma's async proxy
        inner.insert(ptx("fence_proxy_async", [], space="shared::cta"))
    mt = m // 64 // (groups or 1)
    if a is not None:
        desc_a = a.descriptor_base(inner, stages[0][1])
    else:
        a_values = _register_fragments(inner, common.registers(ctx, op.a), mt, k)
    desc_b = bop.descriptor_base(inner, stages[-1][1])
    if a is not None and groups is not None and groups > 1:
        per_group = a.tile.start_offset(64 * mt, 0) - a.tile.start_offset(0, 0)
        wg64 = inner.insert(arith.IndexCastOp(wg, i64)).result
        shift = inner.insert(arith.MuliOp(wg64, ring_.const(inner, per_group >> 4, i64))).result
        desc_a = _advance(inner, desc_a, shift)
    half = n // 2
    if op.flag("accum"):
        values = [inner.insert(cuda.LoadOp(regs, ring_.const(inner, r, IndexType()),
                                           result_types=[f32])).result
                  for r in range(mt * half)]
    else:  # scale-d 0 ignores them; zeros rather than unset registers
        zero = inner.insert(arith.ConstantOp(FloatAttr(0.0, f32))).result
        values = [zero] * (mt * half)
    inner.insert(ptx("wgmma_fence", []))
    shape = f"m64n{n_instr}k{K_STEP}"
    for i in range(mt):
        for j in range(0, n, n_instr):
            lo = i * half + j // 2
            acc = values[lo:lo + n_instr // 2]
            for kk in range(0, k, K_STEP):
                da = None if a is None else \
                    _advance(inner, desc_a, a.tile.start_offset(64 * i, kk))
                db = _advance(inner, desc_b, bop.tile.start_offset(j, kk))
                scale_d = ring_.const(inner, int(op.flag("accum") or kk > 0), i1)
                if da is None:
                    mma = ptx("wgmma_mma_async_rs", [*acc, *a_values[i][kk // K_STEP], db,
                                                     scale_d], shape=shape, dtype="f32",
                              atype=ptx_type, btype=ptx_type, scale_a=1, scale_b=1,
                              tnsp_b=int(bop.tile.mn_major))
                else:
                    mma = ptx("wgmma_mma_async_ss", [*acc, da, db, scale_d], shape=shape,
                              dtype="f32", atype=ptx_type, btype=ptx_type, scale_a=1,
                              scale_b=1, tnsp_a=int(a.tile.mn_major),
                              tnsp_b=int(bop.tile.mn_major))
                acc = list(inner.insert(mma).results)
            values[lo:lo + n_instr // 2] = acc
    inner.insert(ptx("wgmma_commit_group", []))
    if op.flag("accum") and mt * (n // n_instr) > 1:
        _keep_loop_rolled(op)
    defer = split is not None and roles.deferred(ctx, op)
    if not defer:  # a deferred group is retired by the next GEMM's wait (ring_loop_roles.py)
        inner.insert(ptx("wgmma_wait_group", [], n=0 if loop is None else 1))
    for r, v in enumerate(values):
        inner.insert(cuda.StoreOp(regs, ring_.const(inner, r, IndexType()), v))
    for slot, (x, stage) in enumerate(synced):
        if defer:  # released after the next GEMM's wait, which cleared the register
            in_flight.release_pending_view(ctx, inner, x.view, slot, stage, release=False)
        elif loop is None:
            ring_.release(inner, ring_.ring_barriers(ctx, x.view), stage)
        else:  # the previous K step's stage; this one's after the next step's wait
            in_flight.release_pending(ctx, inner, x, slot, stage)
    if split is not None:  # the stages of the deferred GEMMs this wait retired
        for slot, view in roles.retired_by(ctx, op):
            in_flight.release_pending_view(ctx, inner, view, slot, None)
    if inner is not b:
        ring_.close_if(inner)
    if split is not None and inner is not b:  # the consumers' loop of a split (roles)
        guard = inner.insertion_point.block.parent_op()
        assert isinstance(guard, scf.IfOp)
        roles.tag(split, guard, roles.CONSUMER_ROLE)
        if defer:
            drain = in_flight.drain(ctx, split, [x for x, _ in synced],
                                    lambda outer: _consumer_block(outer, op, kernel)[0])
            drain.attributes[in_flight.ROLE] = StringAttr(in_flight.DRAIN_ROLE)
    if loop is not None:
        drain = in_flight.drain(ctx, loop, [x for x, _ in synced],
                                lambda outer: _consumer_block(outer, op, kernel)[0])
        consumer = inner.insertion_point.block.parent_op()
        assert isinstance(consumer, scf.IfOp)
        in_flight.mark(loop, consumer, drain)


def _keep_loop_rolled(op) -> None:
    """Mark the loop around an accumulating wgmma chain of several accumulator sets
    ``cuda.nounroll``: unrolled by NVVM, its first iteration's accumulators are the constants
    the program zeroed them with, rematerialised (``mov``) right before the first wgmma of
    each set, between the wgmmas of the previous ones; ptxas then inserts a warpgroup arrive
    in the consumers' divergent path and serialises the chain (advisory C7520)."""
    loop = op.parent_op()
    while loop is not None and not isinstance(loop, (scf.ForOp, KernelOp)):
        loop = loop.parent_op()
    if isinstance(loop, scf.ForOp):
        mark_nounroll(loop)


def _register_a(op, groups: int | None) -> tuple[int, int]:
    """``(M, K)`` of an rs-form A, a local tile in the rs A fragment layout (see the module
    docstring), or a dispatch failure saying what it must be."""
    if op.flag("transpose_a"):
        fail("an A in registers is [M, K]: transpose_a applies to shared A only")
    shape = tuple(op.a.type.get_shape())
    if len(shape) != 2 or shape[1] % K_STEP:
        fail(f"an A in registers is [64 * i, 16 * j], not {list(shape)}")
    if not fw.is_accumulator_layout(op.a.type.get_layout(), shape, groups):
        fail(f"an A in registers needs the rs fragment layout "
             f"{_wanted(*shape, groups)}, not {op.a.type.get_layout()}")
    return shape


def _wanted(rows: int, cols: int, groups: int | None) -> str:
    """The accumulator layout of ``[rows, cols]`` over ``groups`` consumer warpgroups, or what
    the shape must be when there is none (a cta-scope C is split by rows, 64 per warpgroup)."""
    split = groups or 1
    if rows % (64 * split) or cols % 8 or rows <= 0 or cols <= 0:
        return (f"of [64 * k, 8 * j] with the rows split over the {split} consumer "
                f"warpgroup(s): {rows} rows must be a multiple of {64 * split} and {cols} "
                f"columns a multiple of 8 (or run the op at warpgroup scope)")
    return str(fw.accumulator_layout(rows, cols, groups))


def _register_fragments(b: Builder, regs: SSAValue, mt: int, k: int) -> list[list[list]]:
    """``[m64 tile][K step]`` -> the 4 b32 registers (8 packed elements) of the rs A."""
    t = regs.type.element_type
    per_tile, out = k // 2, []
    for i in range(mt):
        steps = []
        for ks in range(k // K_STEP):
            base = i * per_tile + ks * 8
            vals = [b.insert(cuda.LoadOp(regs, ring_.const(b, base + e, IndexType()),
                                         result_types=[t])).result for e in range(8)]
            steps.append([pack(b, vals[e:e + 2]) for e in range(0, 8, 2)])
        out.append(steps)
    return out


def _consumer_block(b: Builder, op, kernel) -> tuple[Builder, SSAValue | None]:
    """Where the consumers' code goes, and the consumer's warpgroup index (cta scope with
    several consumers) — the whole CTA at warpgroup scope or with a single warpgroup."""
    groups = accumulator_groups(op, kernel)
    if groups is None or warpgroups(kernel) == 1:
        return b, None
    wg = common.ThreadIds(b)["wgid"]
    is_consumer = b.insert(arith.CmpiOp(wg, ring_.const(b, groups, IndexType()), "ult")).result
    return ring_.emit_if(b, is_consumer), wg
