"""``tirx.gemm`` on sm_80 tensor cores: variant ``mma.m16n8k*`` (TIRx's name, priority 10).

``D = A @ B (+ C)`` with D an f32 register tile (``local``) whose layout is a grid of m16n8
accumulator fragments (`fragments.accumulator_layout`, what cuda-default-layout gives a gemm
accumulator), at warp scope (every warp its own D) or cta scope (D spread over the warps: each
warp computes the mma tiles it holds). A and B are register tiles holding the mma A/B fragments
the D tiles need, or shared-memory tiles of any layout (swizzles included): their fragments are
loaded with ``ldmatrix`` (``.trans`` where the tile is contiguous along the other dim, so all four
``transpose_a``/``transpose_b`` combinations work; tf32 only where K is contiguous) or, where
no 16-byte row is contiguous, element by element (`fragment_io`). Inputs f16/bf16 use ``mma.sync.aligned.m16n8k16.row.col
.f32.<t>.<t>.f32``; f32 inputs run as tf32 (``m16n8k8``, each element rounded with
``cvt.rna.tf32.f32``). ``beta`` 0 starts from zero, 1 from C (C defaults to D; a separate C must
have D's layout); ``alpha`` must be 1; anything else declines with the reason.

Everything is unrolled: per K step of 16 (8) the warp loads the A fragments of its row blocks and
the B fragments of its column blocks, then issues one mma per D tile; accumulators stay in SSA
values between steps and go back to D's registers at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, f32
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.collective import WARP
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.dispatch.fragment_io import (Lanes, Matrix, SharedTile,
                                                          load_matrices, pack)
from tirx_mlir.backends.cuda.dispatch.warp_blocks import WarpBlocks, warp_blocks, warp_origin
from tirx_mlir.backends.cuda.layout import fragments as F
from tirx_mlir.backends.cuda.memory import LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index, resolve_access
from tirx_mlir.dispatch import exec_scope_in, fail
from tirx_mlir.dispatch.builders import btype, elem_type, scope_of, shape_of

MMA_INPUTS = {"f16": "f16", "bf16": "bf16", "f32": "tf32"}
"""Element type of A and B -> the mma input type."""


@dataclass(frozen=True)
class Operand:
    """A or B seen as op(A) [M, K] / op(B) [K, N]: a shared tile, or the register holders (in
    op coordinates) of a local one."""

    value: SSAValue
    name: str
    shared: SharedTile | None
    holders: F.Holders | None


def _operand(value: SSAValue, transposed: bool, name: str) -> Operand:
    scope = scope_of(value)
    if scope in SHARED_SCOPES:
        return Operand(value, name, SharedTile.of(value, transposed), None)
    if scope != LOCAL:
        fail(f"{name} is in {scope}; mma.sync reads its operands from registers (local) or "
             "shared memory: copy it there first")
    holders = F.Holders.of(_layout(value, name), shape_of(value))
    return Operand(value, name, None, holders.transposed() if transposed else holders)


def _layout(value: SSAValue, name: str):
    if resolve_access(value).buffer is not value:
        fail(f"register tile {name} is a view; mma reads whole register tiles")
    layout = common.register_partition(value).layout
    if layout.replica or layout.offset or layout.swizzle is not None:
        fail(f"register tile {name} has replicas, offsets or a swizzle in its layout {layout}; "
             "mma fragments are plain grids")
    return layout


# --- the variant ---------------------------------------------------------------------------


def _form(op: T.GemmOp):
    if op.float_prop("alpha", 1.0) != 1.0:
        fail("alpha must be 1 (scale D afterwards with tirx.mul)")
    beta = op.float_prop("beta", 0.0)
    if beta not in (0.0, 1.0):
        fail(f"beta must be 0 or 1, not {beta} (scale C first)")
    if scope_of(op.d) != LOCAL or elem_type(op.d) != f32:
        fail("D must be an f32 register tile (local); mma.sync accumulates in registers")
    ta, tb = dtypes.type_name(elem_type(op.a)), dtypes.type_name(elem_type(op.b))
    if ta != tb or ta not in MMA_INPUTS:
        fail(f"A and B must both be f16, bf16 or f32 (tf32 mma), got {ta} and {tb}")
    return MMA_INPUTS[ta], beta


def _warps(ctx) -> int:
    if ctx.is_warp:
        return 1
    return max(1, common.block_threads(ctx) // 32)


def _check_warp_grid(shape, warps: int) -> None:
    """A cta-scope D whose layout is no grid of fragments, of a shape no warp grid splits
    (cuda-default-layout then leaves it the plain spread): decline saying what to change."""
    m, n = shape
    try:
        F.warp_grid(m, n, warps)
    except F.LayoutError as err:
        fail(f"D [{m}, {n}]: {err}; make M a multiple of 16 and N of 8 times a grid of the "
             f"{warps} warps (e.g. [{16 * warps}, 8]), or run the gemm at warp scope")


@common.cuda_variant(T.GemmOp, "mma.m16n8k*", 10, [exec_scope_in("warp", "cta"),
                                                   common.ONE_DIM_BLOCK, common.sm_at_least(80),
                                                   common.whole_groups(WARP, "mma.sync")])
def mma_gemm(op: T.GemmOp, ctx) -> None:
    in_type, beta = _form(op)
    form = F.mma_form(in_type)
    d_layout = _layout(op.d, "D")
    d_holders = F.Holders.of(d_layout, shape_of(op.d))
    if ctx.is_warp and d_holders.warps > 1:
        fail("a warp-scope gemm's D is held by one warp; its layout must not use warpid")
    if not ctx.is_warp and not F.fragment_tiles(d_holders, F.mma_c(), 0):
        _check_warp_grid(shape_of(op.d), _warps(ctx))
    tiles = warp_blocks(d_holders, _warps(ctx), lambda w: F.fragment_tiles(d_holders, F.mma_c(), w),
                        "D")
    a = _operand(op.a, op.flag("transpose_a"), "A")
    b = _operand(op.b, op.flag("transpose_b"), "B")
    kdim = shape_of(op.a)[0 if op.flag("transpose_a") else 1]
    if kdim % form.k:
        fail(f"K = {kdim} is not a multiple of the mma K ({form.k} for {in_type})")
    c_value = op.c if op.c is not None else op.d
    if beta and c_value is not op.d and btype(c_value).get_layout() != d_layout:
        fail("C must have D's register layout")
    plan = _Plan(in_type, form, tiles, a, b, kdim, beta, c_value)
    plan.check_registers()
    _emit(ctx, op, plan, d_layout)


@dataclass
class _Plan:
    in_type: str
    form: object
    tiles: WarpBlocks
    a: Operand
    b: Operand
    kdim: int
    beta: float
    c_value: SSAValue

    def rows(self) -> list[int]:
        return sorted({o[0] for o, _ in self.tiles.items})

    def cols(self) -> list[int]:
        return sorted({o[1] for o, _ in self.tiles.items})

    def k_steps(self) -> range:
        return range(0, self.kdim, self.form.k)

    def block(self, which: str, first: int, k0: int) -> tuple[int, int]:
        return (first, k0) if which == "a" else (k0, first)

    def frag(self, which: str) -> F.Fragment:
        return F.mma_a(self.in_type) if which == "a" else F.mma_b(self.in_type)

    def register_fragment(self, which: str, first: int, k0: int) -> tuple[int, ...]:
        """The registers of a local operand's fragment (the same in every warp)."""
        operand = getattr(self, which)
        found = set()
        for w, delta in enumerate(self.tiles.deltas):
            shift = delta[0] if which == "a" else delta[1]
            r, c = self.block(which, first + shift, k0)
            warp = w if operand.holders.warps > 1 else 0
            regs = F.fragment_registers(operand.holders, self.frag(which), (r, c), warp)
            if regs is None:
                fail(f"register tile {operand.name} does not hold the mma {operand.name} "
                     f"fragment at {(r, c)} where warp {warp} needs it (give it "
                     f"fragments.tile_fragments(fragments.mma_{which}(...)) layout)")
            found.add(regs)
        if len(found) != 1:
            fail(f"the warps hold {operand.name}'s fragments in different registers")
        return found.pop()

    def check_registers(self) -> None:
        for which, firsts in (("a", self.rows()), ("b", self.cols())):
            if getattr(self, which).holders is None:
                continue
            for first in firsts:
                for k0 in self.k_steps():
                    self.register_fragment(which, first, k0)


def _tf32(b: Builder, value: SSAValue) -> SSAValue:
    return b.insert(ptx("cvt_tf32", [value], rnd="rna")).results[0]


def _emit(ctx, op: T.GemmOp, plan: _Plan, d_layout) -> None:
    b = ctx.builder
    ids = common.ThreadIds(b)
    lanes = Lanes(b, ids["laneid"])
    origin = warp_origin(ids, d_layout, shape_of(op.d), plan.tiles.deltas, "D")
    convert = _tf32 if plan.in_type == "tf32" else None
    d_regs = common.registers(ctx, op.d)
    acc = _initial(b, ctx, plan)
    p = F.elements_per_register(plan.in_type)
    for k0 in plan.k_steps():
        frags = {}
        for which, firsts, dim in (("a", plan.rows(), 0), ("b", plan.cols(), 1)):
            frags[which] = _fragments(ctx, plan, which, firsts, k0, origin, dim, lanes, p,
                                      convert)
        for t, ((r0, c0), _) in enumerate(plan.tiles.items):
            mma = ptx("mma_sync", [*frags["a"][r0], *frags["b"][c0], *acc[t]],
                      shape=plan.form.shape, dtype="f32", atype=plan.in_type,
                      btype=plan.in_type, ctype="f32")
            acc[t] = list(b.insert(mma).results)
    for t, (_, regs) in enumerate(plan.tiles.items):
        for r, v in zip(regs, acc[t]):
            b.insert(cuda.StoreOp(d_regs, const_index(b, r), v))


def _initial(b: Builder, ctx, plan: _Plan) -> list[list[SSAValue]]:
    if plan.beta == 0.0:
        zero = b.insert(arith.ConstantOp(FloatAttr(0.0, f32))).result
        return [[zero] * 4 for _ in plan.tiles.items]
    c_regs = common.registers(ctx, plan.c_value)
    return [[b.insert(cuda.LoadOp(c_regs, const_index(b, r), result_types=[f32])).result
             for r in regs] for _, regs in plan.tiles.items]


def _fragments(ctx, plan: _Plan, which: str, firsts, k0, origin, dim, lanes, p, convert):
    """``{first: [b32 registers]}``: the fragments of op(A) row blocks / op(B) column blocks at
    K step ``k0``."""
    b = ctx.builder
    operand: Operand = getattr(plan, which)
    frag = plan.frag(which)
    if operand.shared is None:
        regs = common.registers(ctx, operand.value)
        t = elem_type(operand.value)
        out = {}
        for first in firsts:
            idx = plan.register_fragment(which, first, k0)
            vals = [b.insert(cuda.LoadOp(regs, const_index(b, r), result_types=[t])).result
                    for r in idx]
            out[first] = [pack(b, vals[i:i + p], convert) for i in range(0, len(vals), p)]
        return out
    shapes = F.matrices_of(frag, p)
    assert shapes is not None
    matrices = [Matrix((o[0] + blk[0], o[1] + blk[1]), orient)
                for first in firsts for blk in [plan.block(which, first, k0)]
                for o, orient in shapes]
    zero = IndexExpr()
    warp = [origin[0], zero] if which == "a" else [zero, origin[1]]
    regs = load_matrices(b, operand.shared, matrices, warp, lanes, convert)
    n = len(shapes)
    return {first: regs[i * n:(i + 1) * n] for i, first in enumerate(firsts)}
