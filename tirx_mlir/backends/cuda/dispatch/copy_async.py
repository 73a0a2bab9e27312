"""``tirx.copy_async`` global -> shared with cp.async (LDGSTS, sm_80): variant ``ldgsts`` (TIRx's
name, priority 20; the TMA variants are in copy_async_tma.py, DSMEM in copy_async_dsmem.py).

The destination tile is shared out as TIRx's ``[outer, threads, vec]`` partition: its row-major
flat index in rounds of ``threads`` chunks of ``vec`` elements, one chunk per thread and round,
each one ``cp.async.{cg (16 bytes) | ca (8, 4)}.shared.global``. ``vec`` is the widest of 16, 8
or 4 bytes whose runs are aligned in both tiles (`layout.runs`: a swizzled shared tile keeps its
16-byte chunks whole, so it takes 16-byte copies). When the chunks do not fill the last round,
only the threads that have one copy in it (a predicated tail).

Ragged rows (``config {fill_mode = "zero"}``): when the last dim is not a multiple of the vector
but the shared rows are padded (the destination's physical runs of ``vec`` elements hold only
the row's elements and padding), each row's last chunk reads only its valid bytes
(``cp.async ..., src-size``) and zero-fills the padding.

A predicate (``where ... symbols [...]``, the tile op's; TIRx's ``predicate`` config): each
linear constraint ``E(d) >= 0`` (``E`` the constraint's sum over the destination coordinate,
the loop variables and scope ids of ``symbols``) is index arithmetic on the chunk's first
element. A constraint without the last dim holds for the whole chunk or none of it; one with
``-k * d_last`` (``k > 0``: an upper bound on the column, a tail) holds for the chunk's first
``clamp(floor(E / k) + 1, 0, vec)`` elements. The chunk's copy reads that many (the least over
the constraints, none where a whole-chunk one fails) and zero-fills the rest (``src-size``). A
constraint that keeps a chunk's last elements but not its first (``+k * d_last``, or an
equality on the last dim) fits only one-element chunks (4-byte elements); otherwise, and for a
non-linear predicate, the variant declines.

Config (TIRx's keys; any other key, or a value outside these, declines with the accepted ones):
``fill_mode = "zero"`` (above); ``prefetch_size = 64|128|256`` (the ``.L2::NB`` prefetch
qualifier on every cp.async); ``direct = true`` (thread scope: the tile is one run of 4, 8 or
16 bytes, copied with one cp.async).

No commit, wait or barrier: the caller waits (``cp.async.commit_group`` / ``wait_group``, or
cuda-pipeline-k-loop), as in TIRx. A stage of a pipelined ring (a ``dispatch "ldgsts"`` copy
whose tile only ``gemm_async`` reads, tma_ring.py) is filled by the producer warpgroup instead,
which waits for the stage to be empty and arrives on its full mbarrier
(``cp.async.mbarrier.arrive.noinc``) after its chunks.
"""

from __future__ import annotations

import math

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import common, shared_refill, tma_ring
from tirx_mlir.backends.cuda.layout.defaults import SCOPE_AXIS, scope_threads
from tirx_mlir.backends.cuda.layout.runs import padded_runs, view_runs
from tirx_mlir.backends.cuda.memory import GLOBAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index, resolve_access
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.predicate import LinearConstraint, linear_constraints
from tirx_mlir.dispatch import exec_scope_in, fail, predicate
from tirx_mlir.dispatch.builders import (config_choice, elem_type, scope_of,
                                         shape_of)

CP_ASYNC_BYTES = (16, 8, 4)
I32, I64 = IntegerType(32), IntegerType(64)


def _global_to_shared(op: T.CopyAsyncOp, ctx) -> tuple[bool, str]:
    pair = (scope_of(op.src), scope_of(op.dst))
    return pair[0] == GLOBAL and pair[1] in SHARED_SCOPES, \
        f"copies {pair[0]} -> {pair[1]}; cp.async copies global -> shared"


CONFIG = ("fill_mode", "prefetch_size", "direct")
"""The config keys of ldgsts (TIRx's, ``predicate`` being the op's ``where``)."""
PREFETCH_SIZES = (64, 128, 256)
"""``prefetch_size``: cp.async's ``.L2::64B`` / ``128B`` / ``256B`` qualifier."""


def _direct_vector(op: T.CopyAsyncOp, shape: tuple[int, ...], esize: int) -> int:
    """``config {direct = true}``: the tile is one run of 4, 8 or 16 bytes in both tiles, copied
    by the executing thread with one cp.async (thread scope)."""
    if op.exec_scope != ExecScope.THREAD:
        fail(f"config direct copies with one cp.async of the executing thread; it needs thread "
             f"scope, the op is at {op.exec_scope.value} scope")
    nbytes = math.prod(shape) * esize
    if nbytes not in CP_ASYNC_BYTES or math.prod(shape[:-1]) != 1:
        fail(f"config direct copies one row of 4, 8 or 16 bytes in one cp.async; the tile is "
             f"{'x'.join(map(str, shape))} of {esize}-byte elements ({nbytes} bytes)")
    last = len(shape) - 1
    if not (_runs(op.src, last, shape[last], shape, False) and
            _runs(op.dst, last, shape[last], shape, True)):
        fail(f"config direct: the {nbytes} bytes are not one contiguous run aligned to "
             f"{nbytes} bytes in both the global and the shared tile")
    return shape[last]


def _constraints(op: T.CopyAsyncOp) -> list[LinearConstraint]:
    """The ``where`` predicate's constraints (none without one)."""
    if op.where is None:
        return []
    found = linear_constraints(op.where.data)
    if found is None:
        fail("the where predicate has a constraint that is not linear in the indices "
             "(mod, floordiv): cp.async needs each as index arithmetic on a chunk")
    return found


def _splits_chunks(c: LinearConstraint) -> bool:
    """The constraint can fail on a chunk's first elements and hold on its last ones."""
    a = c.coeffs[-1]
    return a > 0 or (a != 0 and c.is_equality)


def _vector(op: T.CopyAsyncOp, shape: tuple[int, ...], esize: int, ragged: bool,
            constraints: list[LinearConstraint]) -> int:
    """The chunk in elements: the widest cp.async size whose runs are aligned in both tiles."""
    last = len(shape) - 1
    split = next((c for c in constraints if _splits_chunks(c)), None)
    for nbytes in CP_ASYNC_BYTES:
        vec = nbytes // esize
        if vec < 1 or nbytes % esize or (split is not None and vec > 1):
            continue
        if shape[last] % vec and not ragged:
            continue
        if _runs(op.src, last, vec, shape, False) and _runs(op.dst, last, vec, shape, True):
            return vec
    if split is not None:
        fail(f"the where constraint `{split}` can fail on a chunk's first elements and hold on "
             f"its last ones; cp.async zero-fills only a chunk's tail (src-size), so it needs "
             f"one-element chunks, and {esize}-byte elements are narrower than cp.async's 4 "
             f"bytes")
    fail(f"no 4/8/16-byte run of the {'x'.join(map(str, shape))} tile is contiguous and "
         "aligned in both the global and the shared tile (cp.async needs one)")


def _runs(view: SSAValue, dim: int, vec: int, shape, write: bool) -> bool:
    if shape[dim] % vec == 0:
        return view_runs(view, dim, vec)
    return padded_runs(view, dim, vec, write)


@common.cuda_variant(T.CopyAsyncOp, "ldgsts", 20,
                     [exec_scope_in("thread", "warp", "warpgroup", "cta"), common.ONE_DIM_BLOCK,
                      common.sm_at_least(80), predicate("global->shared", _global_to_shared)],
                     barriers=False, config=CONFIG)
def ldgsts_copy_async(op: T.CopyAsyncOp, ctx) -> None:
    if op.cta_mask is not None:
        fail("a cta_mask operand multicasts a TMA load (tma_auto); cp.async copies into this "
             "CTA only")
    if elem_type(op.dst) != elem_type(op.src):
        fail("cp.async copies bytes: source and destination must have one element type")
    shape = shape_of(op.dst)
    if shape_of(op.src) != shape:
        fail(f"cp.async needs equal shapes, got {list(shape_of(op.src))} -> {list(shape)}")
    esize = dtypes.bit_width(elem_type(op.dst)) // 8
    ragged = config_choice(op, "fill_mode", ("zero",)) == "zero"
    prefetch = config_choice(op, "prefetch_size", PREFETCH_SIZES)
    l2 = None if prefetch is None else f"L2::{prefetch}B"
    constraints = _constraints(op)
    if config_choice(op, "direct", (True, False), False):
        vec = _direct_vector(op, shape, esize)
        if vec > 1 and any(_splits_chunks(c) for c in constraints):
            fail("config direct copies one chunk; a where constraint that can fail on its "
                 "first elements needs one-element chunks")
    else:
        vec = _vector(op, shape, esize, ragged, constraints)
    where = _Where(op, constraints, vec)
    ring = _pipelined_ring(op, ctx)
    if ring is None:
        alloc = resolve_access(op.dst).buffer
        shared_refill.refill_barrier(ctx, ctx.builder, op, alloc)
        _issue_chunks(op, ctx.builder, op.exec_scope, common.block_threads(ctx), shape, vec,
                      esize, where, l2)
        return
    # a stage of a pipelined ring (tma_ring.py): the producer warpgroup fills it
    b = ctx.builder
    stage = tma_ring.stage_index(b, ring)
    alone = tma_ring.acquires_alone(ctx, op, ring.alloc)
    inner = tma_ring.producer_block(ctx, b)
    if alone is not False:
        tma_ring.acquire(ctx, inner, ring, stage)
    _issue_chunks(op, inner, ExecScope.WARPGROUP, common.block_threads(ctx), shape, vec, esize,
                  where, l2)
    full = tma_ring.shared_address(inner, tma_ring.ring_barriers(ctx, ring).full, stage)
    inner.insert(ptx("cp_async_mbarrier_arrive", [full], noinc="noinc", space="shared"))
    tma_ring.close_if(inner)


def _pipelined_ring(op: T.CopyAsyncOp, ctx) -> tma_ring.StageView | None:
    """The stage ``op`` fills when its destination is a pipelined ring's, else None."""
    if not tma_ring.is_cp_async_copy(op):
        return None
    view = tma_ring.stage_view(op.dst)
    if isinstance(view, str) or not tma_ring.pipelined(ctx, view.alloc):
        return None
    return view


def _issue_chunks(op: T.CopyAsyncOp, b: Builder, scope: ExecScope, block_threads: int, shape,
                  vec: int, esize: int, where: "_Where", l2: str | None) -> None:
    """The cp.async copies of the tile shared out over the threads of ``scope``."""
    threads = scope_threads(scope, block_threads)
    ids = common.ThreadIds(b)
    axis = SCOPE_AXIS.get(scope)
    tid = ids[axis] if axis is not None else None
    row = shape[-1]
    per_row = -(-row // vec)
    chunks = math.prod(shape[:-1]) * per_row
    rounds = -(-chunks // threads)
    cache: dict = {}
    hoisted = tid is not None and len(shape) <= 2 and threads % per_row == 0
    if hoisted:  # rounds advance whole rows: the thread's coordinates plus constants
        rows = b.insert(arith.DivUIOp(tid, const_index(b, per_row))).result
        col = b.insert(arith.MuliOp(b.insert(arith.RemUIOp(tid, const_index(b, per_row)))
                                    .result, const_index(b, vec))).result
        valid = _valid(b, col, shape[-1], vec)
    for r in range(rounds):
        first = r * threads
        live = min(threads, chunks - first)
        body = b if live == threads else _guard(b, tid, live)
        if hoisted:
            coords = [IndexExpr.of(col)]
            if len(shape) == 2:
                coords.insert(0, IndexExpr.of(rows) + first // per_row)
            _issue(body, op, coords, vec * esize, where.valid(body, coords, valid), esize,
                   cache, l2)
            continue
        chunk = IndexExpr(first) if tid is None else IndexExpr(first, ((tid, 1),))
        coords, valid_r = _chunk_coords(body, chunk, shape, per_row, vec)
        _issue(body, op, coords, vec * esize, where.valid(body, coords, valid_r), esize, cache,
               l2)


class _Where:
    """The predicate as each chunk's count of valid elements (see the module docstring)."""

    def __init__(self, op: T.CopyAsyncOp, constraints: list[LinearConstraint], vec: int):
        self.symbols = list(op.symbols)
        self.constraints = constraints
        self.vec = vec

    def _value(self, b: Builder, c: LinearConstraint, coords) -> SSAValue:
        expr = IndexExpr(c.const)
        for a, s in zip(c.sym_coeffs, self.symbols):  # loop variables, scope ids
            expr = expr + IndexExpr.of(s).scale(a)
        for a, d in zip(c.coeffs, coords):
            expr = expr + IndexExpr.of(d).scale(a)
        return common.index_value(b, common.materialize_cached(b, expr, None))

    def valid(self, b: Builder, coords, valid: SSAValue | None) -> SSAValue | None:
        """The chunk's valid element count: the least of ``valid`` (a ragged row's; None: the
        whole chunk) and the predicate's."""
        if not self.constraints:
            return valid
        zero = const_index(b, 0)
        count, whole = valid, None
        for c in self.constraints:
            value = self._value(b, c, coords)
            k = -c.coeffs[-1]
            if k > 0 and not c.is_equality and self.vec > 1:  # a tail: floor(E / k) + 1
                if k > 1:
                    value = b.insert(arith.FloorDivSIOp(value, const_index(b, k))).result
                n = b.insert(arith.AddiOp(value, const_index(b, 1))).result
                n = b.insert(arith.MaxSIOp(n, zero)).result
                n = b.insert(arith.MinSIOp(n, const_index(b, self.vec))).result
                count = n if count is None else b.insert(arith.MinSIOp(count, n)).result
                continue
            test = b.insert(arith.CmpiOp(value, zero, "eq" if c.is_equality else "sge")).result
            whole = test if whole is None else b.insert(arith.AndIOp(whole, test)).result
        if count is None:
            count = const_index(b, self.vec)
        if whole is None:
            return count
        return b.insert(arith.SelectOp(whole, count, zero)).result


def _guard(b: Builder, tid: SSAValue, live: int) -> Builder:
    """A builder inside ``if tid < live`` (the threads with a chunk in a partial round)."""
    cond = b.insert(arith.CmpiOp(tid, const_index(b, live), "ult")).result
    block = Block()
    block.add_op(scf.YieldOp())
    b.insert(scf.IfOp(cond, [], [block]))
    return Builder(InsertPoint.before(block.last_op))


def _chunk_coords(b: Builder, chunk: IndexExpr, shape, per_row: int, vec: int):
    """The tile coordinates of chunk ``chunk``'s first element, and its valid element count (an
    SSA value in the row's last chunk of a ragged row, else None)."""
    c = common.index_value(b, common.materialize_cached(b, chunk, None))
    rows_flat = b.insert(arith.DivUIOp(c, const_index(b, per_row))).result
    col_chunk = b.insert(arith.RemUIOp(c, const_index(b, per_row))).result
    col = b.insert(arith.MuliOp(col_chunk, const_index(b, vec))).result
    coords = [IndexExpr.of(col)]
    rest = rows_flat
    for k, n in enumerate(reversed(shape[:-1])):
        if k == len(shape) - 2:          # the outermost dim: no wrap-around
            coords.append(IndexExpr.of(rest))
            break
        coords.append(IndexExpr.of(b.insert(arith.RemUIOp(rest, const_index(b, n))).result))
        rest = b.insert(arith.DivUIOp(rest, const_index(b, n))).result
    return list(reversed(coords)), _valid(b, col, shape[-1], vec)


def _valid(b: Builder, col: SSAValue, row: int, vec: int) -> SSAValue | None:
    """The valid elements of the chunk at column ``col`` of a ragged row (None: whole)."""
    if row % vec == 0:
        return None
    left = b.insert(arith.SubiOp(const_index(b, row), col)).result
    return b.insert(arith.MinUIOp(left, const_index(b, vec))).result


def _issue(b: Builder, op: T.CopyAsyncOp, coords, nbytes: int, valid, esize: int,
           cache: dict, l2: str | None) -> None:
    sbuf, sbase = common.base_coords(op.src, coords)
    dbuf, dbase = common.base_coords(op.dst, coords)
    sidx = common.index_value(b, common.physical_index(b, sbuf.type, sbase, cache))
    didx = common.index_value(b, common.physical_index(b, dbuf.type, dbase, cache))
    src = b.insert(cuda.AddressOp(sbuf, sidx, result_types=[I64])).result
    dst = b.insert(cuda.AddressOp(dbuf, didx, result_types=[I32])).result
    cache_op = "cg" if nbytes == 16 else "ca"
    if valid is None:
        b.insert(ptx("cp_async", [dst, src], cache=cache_op, space="shared", cp_size=nbytes,
                     l2=l2))
        return
    size = b.insert(arith.MuliOp(valid, const_index(b, esize))).result
    size32 = b.insert(arith.IndexCastOp(size, I32)).result
    b.insert(ptx("cp_async_zfill", [dst, src, size32], cache=cache_op, space="shared",
                 cp_size=nbytes, l2=l2))
