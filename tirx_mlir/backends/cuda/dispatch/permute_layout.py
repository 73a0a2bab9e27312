"""CUDA variants of tirx.permute_layout: the same logical tile rewritten with another layout.

* ``warp_xor_swizzle`` (20, TIRx's name and algorithm, apache/tvm
  ``python/tvm/backend/cuda/tile_primitive/permute_layout/warp_xor_swizzle.py``): warp scope,
  both tiles in memory with plain layouts, ``V`` elements, ``P = V / 32`` a power of two up to
  32. Lane ``l`` handles flat elements ``l + 32 j`` with ``j = r ^ ((l >> (5 - k)) & (2^k - 1))``
  for ``r`` in ``[0, P)``: phase 1 reads them all from the source into values held in
  registers, ``__syncwarp``, phase 2 writes them all to the destination (so it is safe when the
  two alias, e.g. an in-place re-layout). ``k`` is the smallest in ``[0, log2 P]`` for which
  both phases are bank-conflict-free (simulated on the physical offsets, 32 banks of 4 bytes);
  the variant declines when none is.
* ``fallback`` (0): the same two phases at warp, warpgroup or CTA scope without the XOR
  (``P = V / threads``), with the scope's barrier between them.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.layout.defaults import scope_threads
from tirx_mlir.backends.cuda.memory import GLOBAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes, tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index, resolve_access
from tirx_mlir.dialects.tirx.layout import row_major_strides
from tirx_mlir.dispatch import exec_scope_in, fail
from tirx_mlir.dispatch.builders import elem_type, shape_of

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

BANKS, BANK_BYTES, WARP = 32, 4, 32


def element_offsets(view: SSAValue) -> np.ndarray:
    """The physical element offset of each logical element of ``view`` (row-major), from the
    constant part of the view's offsets (a runtime slice start shifts them all alike)."""
    pattern = resolve_access(view)
    btype = pattern.buffer_type
    layout = common.buffer_layout(btype)
    shape = pattern.sizes
    idx = np.indices(shape).reshape(len(shape), -1).T if shape else np.zeros((1, 0), np.int64)
    steps = np.array(pattern.steps, dtype=np.int64).reshape(len(shape), -1)
    base = np.array([o.const for o in pattern.offset], dtype=np.int64) + idx @ steps
    table = layout.apply_array(btype.get_shape())["m"]
    return table[tuple(base.T)]


def _lanes_flat(p: int, k: int) -> np.ndarray:
    """[P, 32]: the flat element lane ``l`` handles in slot ``r``."""
    lane = np.arange(WARP)
    r = np.arange(p)[:, None]
    j = r ^ ((lane[None, :] >> (5 - k)) & ((1 << k) - 1))
    return lane[None, :] + j * WARP


def bank_free(offsets: np.ndarray, elem_bytes: int, p: int, k: int) -> bool:
    """Whether every slot's 32 accesses hit 32 distinct banks (TIRx's ``_bank_free``)."""
    banks = (offsets[_lanes_flat(p, k)] * elem_bytes // BANK_BYTES) % BANKS
    return all(len(set(row)) == WARP for row in banks.tolist())


def choose_xor_bits(src: np.ndarray, dst: np.ndarray, elem_bytes: int, p: int) -> int | None:
    """The smallest XOR width ``k`` making both phases bank-conflict-free, None if none does."""
    for k in range(int(math.log2(p)) + 1):
        if bank_free(src, elem_bytes, p, k) and bank_free(dst, elem_bytes, p, k):
            return k
    return None


def _coords(b: Builder, flat: SSAValue, shape) -> tuple[IndexExpr, ...]:
    """Row-major coordinates of a flat index (index arithmetic)."""
    out = []
    for n, s in zip(shape, row_major_strides(shape)):
        v = flat if s == 1 else b.insert(arith.DivUIOp(flat, const_index(b, s))).result
        if n != math.prod(shape) // s:  # not the outermost dim: wrap
            v = b.insert(arith.RemUIOp(v, const_index(b, n))).result
        out.append(IndexExpr.of(v))
    return tuple(out)


def _staged(op, ctx, threads: int, k: int) -> None:
    """Both phases: ``threads`` threads, ``P`` slots each, the XOR of width ``k``."""
    b = ctx.builder
    shape = shape_of(op.src)
    p = math.prod(shape) // threads
    ids = common.ThreadIds(b)
    tid = ids["laneid" if threads == WARP else "tx"]
    if threads not in (WARP, common.block_threads(ctx)):
        tid = ids["tid_in_wg"]
    xor = None
    if k:
        lane = ids["laneid"]
        xor = ids.digit(lane, 1 << (5 - k), 1 << k)
    flats = []
    for r in range(p):
        j: SSAValue = const_index(b, r)
        if xor is not None:
            j = b.insert(arith.XOrIOp(j, xor)).result
        jt = b.insert(arith.MuliOp(j, const_index(b, threads))).result
        flats.append(b.insert(arith.AddiOp(tid, jt)).result)
    coords = [_coords(b, f, shape) for f in flats]
    values = []
    for c in coords:
        buf, base = common.base_coords(op.src, c)
        index = common.index_value(b, common.physical_index(b, buf.type, base))
        values.append(b.insert(LoadOp(buf, index, result_types=[elem_type(op.src)])).result)
    common.scope_barrier(b, op.exec_scope)
    dshape = shape_of(op.dst)
    for c, v in zip(coords, values):
        dc = _dst_coords(c, shape, dshape)
        buf, base = common.base_coords(op.dst, dc)
        index = common.index_value(b, common.physical_index(b, buf.type, base))
        b.insert(StoreOp(buf, index, v))


def _dst_coords(coords, shape, dshape) -> tuple[IndexExpr, ...]:
    """The source's coordinates on the destination's dims (equal shapes once unit dims drop)."""
    src_dims = [c for c, n in zip(coords, shape) if n != 1]
    it = iter(src_dims)
    return tuple(IndexExpr() if n == 1 else next(it) for n in dshape)


def _check_shapes(op) -> None:
    if elem_type(op.src) != elem_type(op.dst):
        fail("permute_layout keeps the element type")
    if any(resolve_access(v).flat for v in (op.src, op.dst)):
        fail("a view reshaping its buffer across dims is not supported")


def _warp_xor_swizzle(op, ctx) -> None:
    _check_shapes(op)
    v = math.prod(shape_of(op.src))
    p = v // WARP
    if v % WARP or p & (p - 1) or not 1 <= p <= WARP:
        fail(f"{v} elements are not 32 lanes times a power of two up to 32")
    elem_bytes = max(1, dtypes.bit_width(elem_type(op.src)) // 8)
    if elem_bytes not in (1, 2, 4, 8, 16):
        fail(f"element size {elem_bytes} bytes is not 1, 2, 4, 8 or 16")
    src, dst = element_offsets(op.src), element_offsets(op.dst)
    for name, offs in (("src", src), ("dst", dst)):
        if len(set(offs.tolist())) != v:
            fail(f"the {name} layout maps two elements to one address")
    k = choose_xor_bits(src, dst, elem_bytes, p)
    if k is None:
        fail(f"no XOR width k in [0, {int(math.log2(p))}] makes both phases bank-conflict-free")
    _staged(op, ctx, WARP, k)


def _fallback(op, ctx) -> None:
    _check_shapes(op)
    threads = scope_threads(op.exec_scope, common.block_threads(ctx))
    v = math.prod(shape_of(op.src))
    if v % threads:
        fail(f"{v} elements do not divide among the scope's {threads} threads")
    if v // threads > 64:
        fail(f"{v // threads} elements per thread would not stay in registers (at most 64)")
    _staged(op, ctx, threads, 0)


MEMORY = common.operands_in(GLOBAL, *SHARED_SCOPES)
common.cuda_variant(T.PermuteLayoutOp, "warp_xor_swizzle", 20,
                    [exec_scope_in("warp"), common.ONE_DIM_BLOCK, MEMORY])(_warp_xor_swizzle)
common.cuda_variant(T.PermuteLayoutOp, "fallback", 0,
                    [exec_scope_in("warp", "warpgroup", "cta"), common.ONE_DIM_BLOCK,
                     MEMORY])(_fallback)
