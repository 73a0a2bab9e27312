"""``tirx.copy`` between a shared-memory tile and a register tile of 8x8 fragments: variant
``ldstmatrix`` (TIRx's name, priority 10; tried before ``vec_auto`` by the name tie-break).

The register tile's layout must be a grid of 8x8 matrices of 16-bit elements, each held the way
ldmatrix leaves one (lane l: row ``l/4``, columns ``2(l%4)``, ``+1``) or transposed
(`fragments.matrix_tiles`): the mma A and C fragments and ``fragments.ldmatrix(...)`` are; at
cta scope every warp holds a translate of warp 0's block. shared -> local is ``ldmatrix``
(x4/x2/x1, ``.trans`` where the shared tile is contiguous along the other dim); local -> shared
is ``stmatrix`` on sm_90 and later, element stores before. A shared tile without 16-byte
contiguous rows moves element by element (`fragment_io`).
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.collective import WARP
from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.dispatch.fragment_io import (Lanes, Matrix, SharedTile,
                                                          load_matrices, store_matrices, unpack)
from tirx_mlir.backends.cuda.dispatch.warp_blocks import warp_blocks, warp_origin
from tirx_mlir.backends.cuda.layout import fragments as F
from tirx_mlir.backends.cuda.memory import LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import const_index, resolve_access
from tirx_mlir.dispatch import exec_scope_in, fail, predicate
from tirx_mlir.dispatch.builders import elem_type, scope_of, shape_of


def _local_shared_pair(op: T.CopyOp, ctx) -> tuple[bool, str]:
    pair = (scope_of(op.dst), scope_of(op.src))
    ok = pair[0] == LOCAL and pair[1] in SHARED_SCOPES or \
        pair[1] == LOCAL and pair[0] in SHARED_SCOPES
    return ok, f"copies {pair[1]} -> {pair[0]}; ldstmatrix moves shared <-> local"


@common.cuda_variant(T.CopyOp, "ldstmatrix", 10,
                     [exec_scope_in("warp", "warpgroup", "cta"), common.ONE_DIM_BLOCK,
                      predicate("local_shared", _local_shared_pair),
                      common.whole_groups(WARP, "ldmatrix/stmatrix")])
def ldstmatrix_copy(op: T.CopyOp, ctx) -> None:
    to_regs = scope_of(op.dst) == LOCAL
    local, shared = (op.dst, op.src) if to_regs else (op.src, op.dst)
    if elem_type(local) != elem_type(shared) or dtypes.bit_width(elem_type(local)) // 8 != 2:
        fail("ldmatrix/stmatrix move 16-bit elements of one type on both sides")
    if len(shape_of(local)) != 2 or shape_of(local) != shape_of(shared):
        fail("ldstmatrix copies 2-D tiles of equal shape")
    if resolve_access(local).buffer is not local:
        fail("ldstmatrix copies whole register tiles, not views of them")
    layout = common.register_partition(local).layout
    if layout.replica or layout.offset:
        fail("the register tile needs a plain layout of 8x8 fragments (no replicas, offsets)")
    holders = F.Holders.of(layout, shape_of(local))
    warps = 1 if ctx.is_warp else max(1, common.block_threads(ctx) // 32)
    if ctx.is_warp and holders.warps > 1:
        fail("a warp-scope copy's register tile is held by one warp; its layout must not use "
             "warpid")
    blocks = warp_blocks(holders, warps, lambda w: F.matrix_tiles(holders, w), "the register tile")
    tile = SharedTile.of(shared)
    if tile.contiguous is None:
        fail("the shared tile has no 16-byte contiguous rows along either dim (its layout "
             "splits them)")
    b = ctx.builder
    ids = common.ThreadIds(b)
    origin = warp_origin(ids, layout, shape_of(local), blocks.deltas, "the register tile")
    matrices = [Matrix(o, orient) for o, orient, _ in blocks.items]
    regs = common.registers(ctx, local)
    lanes = Lanes(b, ids["laneid"])
    t = elem_type(local)
    if to_regs:
        loaded = load_matrices(b, tile, matrices, origin, lanes)
        for (_, _, pair), reg in zip(blocks.items, loaded):
            for r, v in zip(pair, unpack(b, reg, t)):
                b.insert(cuda.StoreOp(regs, const_index(b, r), v))
        return
    elements = [[_reg(b, regs, r, t) for r in pair] for _, _, pair in blocks.items]
    store_matrices(b, tile, matrices, elements, origin, lanes,
                   use_stmatrix=common.sm_version(ctx) >= 90)


def _reg(b, regs: SSAValue, r: int, t) -> SSAValue:
    return b.insert(cuda.LoadOp(regs, const_index(b, r), result_types=[t])).result
