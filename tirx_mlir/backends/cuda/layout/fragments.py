"""Register layouts of the sm_80 tensor-core fragments, as TileLayouts on ``laneid`` (the lane
holding an element), ``warpid`` (the warp, for CTA-level tiles) and ``m`` (its register index in
the thread's register array, one element per index).

The fragment tables themselves are stated once, by the SIMT interpreter's tensor-core model
(`tirx_mlir.backends.cuda.interpreter.tensor_core.mma_fragments` for ``mma.sync.aligned.m16n8k*``:
PTX ISA, "Warp Level Matrix Multiply-Accumulate Instructions", sections "Matrix Fragments for
mma.m16n8k8" and "Matrix Fragments for mma.m16n8k16 with floating point type"; and
``tensor_core.ldmatrix`` for ``ldmatrix.sync.aligned.m8n8``: "Warp-level matrix load
instruction: ldmatrix"). This module reads those tables and fits the strided TileLayout that
reproduces each of them exactly (`layout_of_map`), so the layout and the interpreter can never
disagree. With ``g = lane >> 2`` and ``t = lane % 4`` the results are, for f16/bf16 m16n8k16::

    A 16x16   S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]  a_i: (g + 8*(i//2 % 2), 2t + i%2 + 8*(i//4))
    B 16x8    S[(2,4,2,8):(2,1@laneid,1,4@laneid)]     b_i: (2t + i%2 + 8*(i//2), g)
    C/D 16x8  S[(2,8,4,2):(2,4@laneid,1@laneid,1)]     c_i: (g + 8*(i//2), 2t + i%2)

Larger tiles are grids of fragments (`tile_fragments`): ``tiles`` fragments per warp, in
row-major register order, and a ``warps`` grid of warps (warp ``w`` at grid position
``(w // warps[1], w % warps[1])``). `accumulator_layout` is the CTA (or warp) accumulator of
``tirx.gemm``: an M x N f32 tile split over a warps_m x warps_n grid, each warp holding its
(M/warps_m) x (N/warps_n) block as m16n8 C fragments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.interpreter.tensor_core import ldmatrix as _ldmatrix
from tirx_mlir.backends.cuda.interpreter.tensor_core import mma_fragments as _mma
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import per_register
from tirx_mlir.dialects.tirx.layout import Iter, LayoutError, TileLayout

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

LANES = 32
MMA_M, MMA_N = _mma.M, _mma.N
"""Every m16n8k* form covers a 16 x 8 block of D."""

MMA_K = {"f16": 16, "bf16": 16, "tf32": 8}
"""The K of the form used for each input type (f16/bf16 -> m16n8k16, tf32 -> m16n8k8)."""


@dataclass(frozen=True)
class Fragment:
    """One operand's fragment: its layout over the ``shape`` block a warp holds."""

    layout: TileLayout
    shape: tuple[int, int]

    @property
    def registers(self) -> int:
        """Elements (register-array entries) per lane."""
        return self.layout.span("m")


def mma_form(in_type: str) -> _mma.MmaForm:
    """The mma.sync form ``tirx.gemm`` uses for ``in_type`` inputs (f32 accumulation)."""
    if in_type not in MMA_K:
        raise ValueError(f"mma.sync takes {', '.join(MMA_K)} inputs with an f32 accumulator, "
                         f"not {in_type}")
    return _mma.MmaForm(f"m16n8k{MMA_K[in_type]}", in_type, in_type, "f32")


# --- fitting a strided layout to a fragment table -----------------------------------------------


def layout_of_map(shape: tuple[int, ...], lane: np.ndarray, reg: np.ndarray) -> TileLayout:
    """The TileLayout on ``laneid``/``m`` whose element ``x`` of a ``shape`` tile is held by
    lane ``lane[x]`` in register ``reg[x]``: each bit of each (power-of-two) dim must move the
    element along one axis by a fixed stride. Raises LayoutError when no strided layout fits."""
    coords = {"laneid": np.asarray(lane).reshape(shape), "m": np.asarray(reg).reshape(shape)}
    if any(c.flat[0] for c in coords.values()):
        raise LayoutError("element 0 of a fragment must be lane 0's register 0")
    shard: list[Iter] = []
    for d, n in enumerate(shape):
        dim: list[Iter] = []
        if n & (n - 1):
            raise LayoutError(f"fragment dim {d} of extent {n} is not a power of two")
        for bit in reversed(range(n.bit_length() - 1)):
            idx = [0] * len(shape)
            idx[d] = 1 << bit
            moves = [(ax, int(c[tuple(idx)] - c[(0,) * len(shape)])) for ax, c in coords.items()]
            moves = [(ax, s) for ax, s in moves if s]
            if len(moves) != 1 or moves[0][1] < 0:
                raise LayoutError(f"bit {bit} of fragment dim {d} moves {moves or 'nothing'}; "
                                  "a strided layout moves one axis")
            dim.append(Iter(2, moves[0][1], moves[0][0]))
        shard += _merged(dim)
    layout = TileLayout(tuple(shard))
    got = layout.apply_array(shape)
    zero = np.zeros(shape, np.int64)
    if any(not np.array_equal(got.get(ax, zero), c) for ax, c in coords.items()):
        raise LayoutError(f"the fragment table is not the strided layout {layout}")
    return layout


def _merged(iters: list[Iter]) -> list[Iter]:
    """Adjacent iterators (of one dim) on one axis with ``outer stride = inner extent *
    stride`` as one iterator (``2:4@laneid, 2:2@laneid`` -> ``4:2@laneid``)."""
    out: list[Iter] = []
    for it in iters:
        prev = out[-1] if out else None
        if prev is not None and prev.axis == it.axis and prev.stride == it.extent * it.stride:
            out[-1] = Iter(prev.extent * it.extent, it.stride, it.axis)
        else:
            out.append(it)
    return out


def _fit(shape: tuple[int, int], rows: np.ndarray, cols: np.ndarray) -> TileLayout:
    """The layout of a per-lane (row, col) map ``(32, elements)``."""
    lane = np.empty(shape, np.int64)
    reg = np.empty(shape, np.int64)
    lane[rows, cols] = np.arange(LANES)[:, None]
    reg[rows, cols] = np.arange(rows.shape[1])[None, :]
    return layout_of_map(shape, lane, reg)


# --- mma.sync operand fragments ------------------------------------------------------------------


@lru_cache(maxsize=None)
def mma_a(in_type: str) -> Fragment:
    """A (16 x K) of the mma form for ``in_type``."""
    form = mma_form(in_type)
    return Fragment(_fit((MMA_M, form.k), *_mma.a_map(form)), (MMA_M, form.k))


@lru_cache(maxsize=None)
def mma_b(in_type: str) -> Fragment:
    """B (K x 8) of the mma form for ``in_type``."""
    form = mma_form(in_type)
    return Fragment(_fit((form.k, MMA_N), *_mma.b_map(form)), (form.k, MMA_N))


@lru_cache(maxsize=None)
def mma_c() -> Fragment:
    """C/D (16 x 8, f32) of every m16n8k* form with an f32 accumulator."""
    return Fragment(_fit((MMA_M, MMA_N), *_mma.c_map(mma_form("f16"))), (MMA_M, MMA_N))


def elements_per_register(in_type: str) -> int:
    """Fragment elements one b32 mma register packs (f16/bf16: 2, tf32: 1)."""
    return per_register(in_type)


# --- ldmatrix ------------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def ldmatrix(num: int, trans: bool = False) -> Fragment:
    """The registers ``ldmatrix.sync.aligned.m8n8.x<num>[.trans].b16`` fills, over the
    ``(8 * num) x 8`` b16 tile of its matrices stacked by rows as stored in shared memory
    (matrix i is rows ``8i .. 8i + 7``; row r of a matrix is the 16 bytes lane ``8i + r``
    addresses). Register ``2i + j`` (element j of b32 register i) belongs to matrix i."""
    if num not in _ldmatrix.MATRICES.values():
        raise ValueError(f"ldmatrix moves 1, 2 or 4 matrices, not {num}")
    r, c = _ldmatrix.fragment_positions(trans)                      # (32, 2) within a matrix
    rows = np.concatenate([r + 8 * i for i in range(num)], axis=1)
    cols = np.concatenate([c] * num, axis=1)
    return Fragment(_fit((8 * num, 8), rows, cols), (8 * num, 8))


# --- grids of fragments --------------------------------------------------------------------------


def tile_fragments(frag: Fragment, tiles: tuple[int, int] = (1, 1),
                   warps: tuple[int, int] = (1, 1)) -> TileLayout:
    """The layout of a ``(warps[0] * tiles[0] * rows) x (warps[1] * tiles[1] * cols)`` tile: a
    ``warps`` grid of warps (row-major warp ids), each holding a ``tiles`` grid of ``frag``
    fragments whose registers follow one another in row-major tile order."""
    groups = frag.layout.dim_groups(frag.shape)
    if groups is None or frag.layout.replica or frag.layout.offset:
        raise LayoutError(f"fragment layout {frag.layout} does not split along its dims")
    block = frag.registers
    (wm, wn), (tm, tn) = warps, tiles
    rows = [Iter(wm, wn, "warpid"), Iter(tm, tn * block, "m"), *groups[0]]
    cols = [Iter(wn, 1, "warpid"), Iter(tn, block, "m"), *groups[1]]
    return TileLayout(tuple(it for it in (*rows, *cols) if it.extent != 1))


def accumulator_layout(m: int, n: int, warps_m: int = 1, warps_n: int = 1) -> TileLayout:
    """The register layout of an ``m x n`` f32 gemm accumulator over a ``warps_m x warps_n``
    grid of warps: each warp's ``(m / warps_m) x (n / warps_n)`` block as m16n8 C fragments
    (`tile_fragments` of `mma_c`). Raises LayoutError when the blocks do not divide."""
    bm, bn = m // max(warps_m, 1), n // max(warps_n, 1)
    if warps_m < 1 or warps_n < 1 or bm * warps_m != m or bn * warps_n != n or \
            bm % MMA_M or bn % MMA_N or bm == 0 or bn == 0:
        raise LayoutError(f"a {m}x{n} accumulator does not split into {warps_m}x{warps_n} warps "
                          f"of whole {MMA_M}x{MMA_N} mma tiles")
    return tile_fragments(mma_c(), (bm // MMA_M, bn // MMA_N), (warps_m, warps_n))


def warp_grid(m: int, n: int, warps: int) -> tuple[int, int]:
    """How ``warps`` warps split an ``m x n`` accumulator: the grid ``(warps_m, warps_n)`` with
    whole 16x8 tiles per warp whose per-warp block is closest to square (fewest shared-memory
    fragment loads per mma), ties to more warps along M."""
    best: tuple[float, int, tuple[int, int]] | None = None
    for wm in range(1, warps + 1):
        if warps % wm:
            continue
        wn = warps // wm
        if m % (wm * MMA_M) or n % (wn * MMA_N):
            continue
        bm, bn = m // wm, n // wn
        key = (abs(math.log2(bm / bn)), -wm, (wm, wn))
        best = key if best is None or key < best else best
    if best is None:
        raise LayoutError(f"{warps} warps cannot split a {m}x{n} accumulator into whole "
                          f"{MMA_M}x{MMA_N} mma tiles")
    return best[2]


# --- reading fragments out of a register layout ------------------------------------------------

_HOLDERS: dict[tuple[TileLayout, tuple[int, ...]], "Holders"] = {}
"""(layout, shape) -> its `Holders` (`Holders.of`)."""


@dataclass(frozen=True)
class Holders:
    """Who holds each element of a register tile: ``warp``, ``lane`` and ``reg`` arrays over
    the tile's shape (``warp`` is 0 everywhere when the layout has no ``warpid`` axis: every
    warp holds the whole tile). Read-only: `of` shares one per (layout, shape), and the
    readings below (`fragment_tiles`, `matrix_tiles`) are kept in ``memo``."""

    warp: np.ndarray
    lane: np.ndarray
    reg: np.ndarray
    memo: dict = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def of(layout: TileLayout, shape: tuple[int, ...]) -> "Holders":
        key = (layout, tuple(shape))
        found = _HOLDERS.get(key)
        if found is None:
            c = layout.apply_array(shape)
            zero = np.zeros(shape, np.int64)
            found = _HOLDERS[key] = Holders(c.get("warpid", zero), c.get("laneid", zero),
                                            c.get("m", zero))
        return found

    @property
    def warps(self) -> int:
        found = self.memo.get("warps")
        if found is None:
            found = self.memo["warps"] = int(self.warp.max()) + 1
        return found

    def transposed(self) -> "Holders":
        return Holders(self.warp.T, self.lane.T, self.reg.T)


def fragment_registers(holders: Holders, frag: Fragment, origin: tuple[int, int],
                       warp: int) -> tuple[int, ...] | None:
    """The registers (one per fragment element, in fragment register order) in which warp
    ``warp`` holds the ``frag``-shaped block at ``origin`` of a tile, each lane holding its
    fragment elements: None unless every element is where the fragment needs it, in the same
    register of every lane. Kept in ``holders.memo`` (a GEMM asks for each block per K step)."""
    key = ("fragment_registers", id(frag), tuple(origin), warp)  # the entry keeps frag alive
    memo = holders.memo
    found = memo.get(key)
    if found is None:
        found = memo[key] = (frag, _fragment_registers(holders, frag, origin, warp))
    return found[1]


def _fragment_registers(holders: Holders, frag: Fragment, origin: tuple[int, int],
                        warp: int) -> tuple[int, ...] | None:
    r0, c0 = origin
    fl = Holders.of(frag.layout, frag.shape)
    rows, cols = np.indices(frag.shape)
    rr, cc = rows + r0, cols + c0
    if rr.max() >= holders.lane.shape[0] or cc.max() >= holders.lane.shape[1] or r0 < 0 or c0 < 0:
        return None
    if holders.warps > 1 and not (holders.warp[rr, cc] == warp).all():
        return None
    if not (holders.lane[rr, cc] == fl.lane).all():
        return None
    regs = np.full(frag.registers, -1, np.int64)
    regs[fl.reg.ravel()] = holders.reg[rr, cc].ravel()
    check = regs[fl.reg]
    if not (check == holders.reg[rr, cc]).all():
        return None
    return tuple(int(r) for r in regs)


def fragment_tiles(holders: Holders, frag: Fragment, warp: int = 0
                   ) -> list[tuple[tuple[int, int], tuple[int, ...]]] | None:
    """The tile, read as ``frag``-shaped blocks held by warp ``warp``: ``[(origin, registers)]``
    in register order, covering every register of the warp exactly once; None when the layout
    is not such a grid (e.g. not m16n8 accumulator fragments)."""
    key = ("fragment_tiles", frag, warp)
    if key not in holders.memo:
        holders.memo[key] = _fragment_tiles(holders, frag, warp)
    found = holders.memo[key]
    return None if found is None else list(found)


def _fragment_tiles(holders: Holders, frag: Fragment, warp: int
                    ) -> list[tuple[tuple[int, int], tuple[int, ...]]] | None:
    mine = holders.warp == warp
    if not mine.any():
        return None
    lane0 = np.argwhere(mine & (holders.lane == 0))
    tiles, seen = [], set()
    for r0, c0 in sorted(lane0.tolist(), key=lambda x: holders.reg[x[0], x[1]]):
        if holders.reg[r0, c0] in seen:
            continue
        regs = fragment_registers(holders, frag, (r0, c0), warp)
        if regs is None or seen & set(regs):
            return None
        seen |= set(regs)
        tiles.append(((r0, c0), regs))
    if len(seen) * 32 != int(mine.sum()):
        return None
    return tiles



def matrices_of(frag: Fragment, per_reg: int) -> list[tuple[tuple[int, int], str]] | None:
    """Each b32 register of ``frag`` (``per_reg`` elements each) as an 8-row matrix, the unit
    ldmatrix moves: ``(origin, orientation)`` with orientation ``"row"`` (lane l holds
    ``origin + (l/4, p*(l%4) + j)``) or ``"col"`` (``origin + (p*(l%4) + j, l/4)``); None when
    a register is neither."""
    found = _matrices_of(frag, per_reg)
    return None if found is None else list(found)


@lru_cache(maxsize=None)
def _matrices_of(frag: Fragment, per_reg: int) -> tuple[tuple[tuple[int, int], str], ...] | None:
    h = Holders.of(frag.layout, frag.shape)
    where = {(int(h.lane[x]), int(h.reg[x])): x for x in np.ndindex(*frag.shape)}
    lane = np.arange(LANES)[:, None]
    g, t = lane // 4, per_reg * (lane % 4) + np.arange(per_reg)[None, :]
    out = []
    for q in range(frag.registers // per_reg):
        held = np.array([[where[(l, q * per_reg + j)] for j in range(per_reg)]
                         for l in range(LANES)])                      # (32, p, 2)
        origin = held[0, 0]
        rel = held - origin
        if (rel[..., 0] == g).all() and (rel[..., 1] == t).all():
            out.append(((int(origin[0]), int(origin[1])), "row"))
        elif (rel[..., 0] == t).all() and (rel[..., 1] == g).all():
            out.append(((int(origin[0]), int(origin[1])), "col"))
        else:
            return None
    return tuple(out)


def matrix_tiles(holders: Holders, warp: int = 0
                 ) -> list[tuple[tuple[int, int], str, tuple[int, int]]] | None:
    """A 16-bit register tile read as 8x8 matrices held by warp ``warp``: ``[(origin,
    orientation, (register of element j = 0, of j = 1))]``, orientation ``"row"`` (lane l holds
    ``origin + (l/4, 2*(l%4) + j)``, what ldmatrix gives) or ``"col"`` (the transpose); None
    unless every register of the warp is in exactly one matrix."""
    key = ("matrix_tiles", warp)
    if key not in holders.memo:
        holders.memo[key] = _matrix_tiles(holders, warp)
    found = holders.memo[key]
    return None if found is None else list(found)


def _matrix_tiles(holders: Holders, warp: int
                  ) -> list[tuple[tuple[int, int], str, tuple[int, int]]] | None:
    mine = holders.warp == warp
    if not mine.any():
        return None
    out, seen = [], set()
    for r0, c0 in sorted(np.argwhere(mine & (holders.lane == 0)).tolist(),
                         key=lambda x: holders.reg[x[0], x[1]]):
        if holders.reg[r0, c0] in seen:
            continue
        for orient, frag in (("row", ldmatrix(1, False)), ("col", ldmatrix(1, True))):
            regs = fragment_registers(holders, frag, (r0, c0), warp)
            if regs is not None:
                break
        else:
            return None
        if seen & set(regs):
            return None
        seen |= set(regs)
        out.append(((r0, c0), orient, (regs[0], regs[1])))
    if len(seen) * LANES != int(mine.sum()):
        return None
    return out


def default_accumulator_layout(shape: tuple[int, ...], scope: str, threads: int
                               ) -> TileLayout | None:
    """The layout cuda-default-layout gives a register tile used as a gemm's D/C: at warp
    scope the whole tile per warp, at cta scope split over the CTA's warps (`warp_grid`); None
    when the shape has no such layout (the gemm then declines with its reason)."""
    if len(shape) != 2:
        return None
    m, n = shape
    try:
        if scope == "warp":
            return accumulator_layout(m, n)
        if scope == "cta":
            return accumulator_layout(m, n, *warp_grid(m, n, max(1, threads // LANES)))
    except LayoutError:
        return None
    return None


def gemm_accumulator_rule(alloc, first_use, operand: str, kernel) -> TileLayout | None:
    """cuda-default-layout's rule for gemm accumulators: a ``local`` tile that some
    ``tirx.gemm`` of the kernel uses as D or C gets `default_accumulator_layout` for that
    gemm's scope (whatever op uses it first, e.g. the ``tirx.zero`` that clears it)."""
    from tirx_mlir.dialects.tirx.access import resolve_access
    from tirx_mlir.dialects.tirx.tile_ops import GemmOp

    for op in kernel.walk():
        if not isinstance(op, GemmOp):
            continue
        for value in (op.d, op.c):
            if value is not None and resolve_access(value).buffer is alloc.result:
                return default_accumulator_layout(alloc.result.type.get_shape(),
                                                  op.exec_scope.value, kernel.num_threads())
    return None
