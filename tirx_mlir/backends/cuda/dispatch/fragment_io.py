"""Moving 8-row register fragments between a warp's registers and a shared-memory tile: with
``ldmatrix`` / ``stmatrix`` where the tile's layout allows it, else one element at a time.

A *matrix* is the unit both instructions move: an 8 x 8 block of 16-bit elements (8 x 4 of
32-bit ones: still 8 rows of 16 bytes), held by the warp as one b32 register per lane, in one of
two orientations relative to the tile's coordinates (``g = lane / 4``, ``t = lane % 4``,
``p`` = elements per register):

* ``ROW``: lane l holds elements ``(g, p*t + j)`` of the block (mma A and C/D fragments);
* ``COL``: lane l holds ``(p*t + j, g)`` (mma B fragments of a K x N operand).

ldmatrix reads 8 stored rows of 16 contiguous bytes per matrix and gives lane l stored row g,
elements ``2t, 2t + 1`` (with ``.trans``: stored rows ``2t, 2t + 1``, element g). So a ROW block
whose tile rows are contiguous in shared memory (tile dim 1 is the contiguous one) is a plain
ldmatrix of the block's 8 rows; a ROW block of a tile contiguous along dim 0 is an ldmatrix
``.trans`` of its 8 columns; COL blocks the other way round. 32-bit elements cannot be split by
``.trans``: their blocks must have the plain orientation, or they move element by element.

The tile's contiguity is a static property of its shared buffer's layout (swizzle included) and
of the view (`contiguous_dim`, by `layout.runs`): 16-byte runs along one tile dim, starting on
16-byte boundaries. Addresses are the physical element index of each row
(`common.physical_index`), so any layout, swizzled or not, is respected; lanes ``8i .. 8i + 7``
address the rows of matrix i.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, StringAttr
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.ops import OPS_BY_ROW
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.layout.runs import view_runs
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index
from tirx_mlir.dialects.tirx.op_build import arith_binary
from tirx_mlir.dispatch.builders import elem_type

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

ROW, COL = "row", "col"
ROW_BYTES = 16
I32 = IntegerType(32)


@dataclass(frozen=True)
class Matrix:
    """One 8-row block: its origin in tile coordinates (relative to the warp's origin) and its
    orientation."""

    origin: tuple[int, int]
    orientation: str


@dataclass(frozen=True)
class SharedTile:
    """A 2-D shared-memory view seen in the coordinates of the gemm/copy (``transposed``: tile
    ``(i, j)`` is view ``(j, i)``), with the tile dim whose 16-byte runs are contiguous and
    16-byte aligned (None: neither)."""

    view: SSAValue
    transposed: bool
    contiguous: int | None

    @property
    def elem_bytes(self) -> int:
        return dtypes.bit_width(elem_type(self.view)) // 8

    @property
    def per_row(self) -> int:
        """Elements of one 16-byte stored row."""
        return ROW_BYTES // self.elem_bytes

    def view_coords(self, coords: Sequence[IndexExpr]) -> list[IndexExpr]:
        return list(coords[::-1]) if self.transposed else list(coords)

    @staticmethod
    def of(view: SSAValue, transposed: bool = False) -> "SharedTile":
        c = contiguous_dim(view, ROW_BYTES * 8 // dtypes.bit_width(elem_type(view)))
        if c is not None and transposed:
            c = 1 - c
        return SharedTile(view, transposed, c)


def contiguous_dim(view: SSAValue, run: int) -> int | None:
    """The dim of a 2-D view whose runs of ``run`` elements are aligned in memory
    (`runs.view_runs`; dim 1 preferred), None when neither dim's are."""
    return next((d for d in (1, 0) if view_runs(view, d, run)), None)


def plain_orientation(tile: SharedTile) -> str | None:
    """The orientation an ldmatrix without ``.trans`` gives for this tile."""
    if tile.contiguous is None:
        return None
    return ROW if tile.contiguous == 1 else COL


def ldmatrix_ok(tile: SharedTile, m: Matrix) -> bool:
    plain = plain_orientation(tile)
    return plain is not None and (tile.elem_bytes == 2 or m.orientation == plain)


# --- lane values -----------------------------------------------------------------------------


class Lanes:
    """Lane-derived index values of one replacement (built on first use)."""

    def __init__(self, b: Builder, laneid: SSAValue):
        self.b, self.laneid, self._cache = b, laneid, {}

    def part(self, div: int, mod: int | None) -> SSAValue:
        """``(lane / div) % mod`` (``mod`` None: no remainder)."""
        key = (div, mod)
        if key not in self._cache:
            v = self.laneid
            if div != 1:
                v = self.b.insert(arith_binary(arith.DivUIOp, v, const_index(self.b, div))).result
            if mod is not None:
                v = self.b.insert(arith_binary(arith.RemUIOp, v, const_index(self.b, mod))).result
            self._cache[key] = v
        return self._cache[key]

    def expr(self, div: int, mod: int | None, coeff: int) -> IndexExpr:
        if coeff == 0:
            return IndexExpr()
        return IndexExpr(0, ((self.part(div, mod), coeff),))


def _unit(dim: int, k: int) -> tuple[int, int]:
    return (0, k) if dim == 1 else (k, 0)


def _address_coords(tile: SharedTile, group: Sequence[Matrix], origin: Sequence[IndexExpr],
                    lanes: Lanes) -> list[IndexExpr] | None:
    """Tile coordinates of the stored row lane ``8q + u`` addresses in an ldmatrix of the
    ``group`` matrices: None unless their origins are affine in the bits of q."""
    o = [np.array(m.origin) for m in group]
    d1 = o[1] - o[0] if len(o) > 1 else np.zeros(2, int)
    d2 = o[2] - o[0] if len(o) > 2 else np.zeros(2, int)
    if len(o) == 4 and not (o[3] == o[0] + d1 + d2).all():
        return None
    along = tile.contiguous
    assert along is not None
    row_dim = 1 - along                      # stored rows are steps along the other dim
    coords = []
    for k in range(2):
        e = origin[k] + int(o[0][k])
        e = e + lanes.expr(8, 2, int(d1[k])) + lanes.expr(16, None, int(d2[k]))
        if k == row_dim:
            e = e + lanes.expr(1, 8, 1)
        coords.append(e)
    return coords


def _groups(matrices: Sequence[Matrix]) -> list[tuple[int, list[int]]]:
    """Matrix indices grouped into x4/x2/x1 instructions (consecutive, same ``.trans``)."""
    out, i = [], 0
    while i < len(matrices):
        for num in (4, 2, 1):
            idx = list(range(i, i + num))
            if idx[-1] >= len(matrices):
                continue
            if len({matrices[j].orientation for j in idx}) == 1:
                out.append((num, idx))
                i += num
                break
    return out


def _trans(tile: SharedTile, m: Matrix) -> bool:
    return m.orientation != plain_orientation(tile)


def load_matrices(b: Builder, tile: SharedTile, matrices: Sequence[Matrix],
                  origin: Sequence[IndexExpr], lanes: Lanes,
                  convert=None) -> list[SSAValue]:
    """One b32 register per matrix, loaded from ``tile`` at ``origin`` + each matrix's origin:
    ldmatrix where the layout allows it, else element loads packed into registers (each
    element passed through ``convert(b, value) -> b32`` when given, e.g. to tf32). A 32-bit
    element is one b32 of ldmatrix's result (its two b16 halves, in place), so ``convert``
    applies to it, reinterpreted as the element type; 16-bit elements take no conversion."""
    regs: list[SSAValue | None] = [None] * len(matrices)
    cache: dict = {}
    fast = [i for i, m in enumerate(matrices) if ldmatrix_ok(tile, m)
            and (convert is None or tile.elem_bytes == 4)]
    slow = [i for i in range(len(matrices)) if i not in fast]
    for num, idx in _groups([matrices[i] for i in fast]):
        group = [matrices[fast[j]] for j in idx]
        coords = _address_coords(tile, group, origin, lanes)
        if coords is None:
            slow += [fast[j] for j in idx]
            continue
        addr = _shared_address(b, tile, coords, cache)
        op = b.insert(ptx("ldmatrix", [addr], num=f"x{num}",
                          trans="trans" if _trans(tile, group[0]) else None, space="shared"))
        for j, res in zip(idx, op.results):
            if convert is not None:
                element = b.insert(arith.BitcastOp(res, elem_type(tile.view))).result
                res = convert(b, element)
            regs[fast[j]] = res
    for i in sorted(slow):
        regs[i] = _load_elements(b, tile, matrices[i], origin, lanes, convert, cache)
    return [r for r in regs if r is not None]


def element_index(b: Builder, view: SSAValue, coords: Sequence[IndexExpr], cache: dict | None
                  ) -> tuple[SSAValue, SSAValue]:
    """(underlying buffer, physical element index) of ``view[coords]``."""
    buf, base = common.base_coords(view, coords)
    return buf, common.index_value(b, common.physical_index(b, buf.type, base, cache))


def _shared_address(b: Builder, tile: SharedTile, coords: Sequence[IndexExpr],
                    cache: dict) -> SSAValue:
    buf, index = element_index(b, tile.view, tile.view_coords(coords), cache)
    return b.insert(cuda.AddressOp(buf, index, result_types=[I32])).result


def _element_coords(tile: SharedTile, m: Matrix, origin: Sequence[IndexExpr], lanes: Lanes,
                    j: int) -> list[IndexExpr]:
    p = 4 // tile.elem_bytes
    g = lanes.expr(4, None, 1)
    t = lanes.expr(1, 4, p)
    first, second = (g, t + j) if m.orientation == ROW else (t + j, g)
    return [origin[0] + m.origin[0] + first, origin[1] + m.origin[1] + second]


def _load_elements(b: Builder, tile: SharedTile, m: Matrix, origin: Sequence[IndexExpr],
                   lanes: Lanes, convert, cache: dict) -> SSAValue:
    t = elem_type(tile.view)
    values = []
    for j in range(4 // tile.elem_bytes):
        coords = tile.view_coords(_element_coords(tile, m, origin, lanes, j))
        buf, index = element_index(b, tile.view, coords, cache)
        values.append(b.insert(cuda.LoadOp(buf, index, result_types=[t])).result)
    return pack(b, values, convert)


def pack(b: Builder, values: Sequence[SSAValue], convert=None) -> SSAValue:
    """One b32 register of 32 bits of elements (two 16-bit ones low first, or one 32-bit one
    through ``convert``)."""
    if len(values) == 2:
        return b.insert(ptx("mov_pack", list(values), type="b32")).results[0]
    assert convert is not None, "a 32-bit mma element needs a conversion to its b32 form"
    return convert(b, values[0])


def unpack(b: Builder, reg: SSAValue, t) -> list[SSAValue]:
    """The two 16-bit elements of a b32 register, low first, as values of type ``t``."""
    op = OPS_BY_ROW["mov_unpack"].build(operands=[[reg]], result_types=[[t, t]],
                                        properties={"type": StringAttr("b32")})
    return list(b.insert(op).results)


def store_matrices(b: Builder, tile: SharedTile, matrices: Sequence[Matrix],
                   elements: Sequence[Sequence[SSAValue]], origin: Sequence[IndexExpr],
                   lanes: Lanes, use_stmatrix: bool) -> None:
    """Store each matrix's elements (per lane: its 2 16-bit or 1 32-bit values) into ``tile``:
    stmatrix where allowed (``use_stmatrix``: sm_90), else element stores."""
    slow = list(range(len(matrices)))
    cache: dict = {}
    if use_stmatrix and tile.elem_bytes == 2 and plain_orientation(tile) is not None:
        slow = []
        for num, idx in _groups([matrices[j] for j in range(len(matrices))]):
            group = [matrices[j] for j in idx]
            coords = _address_coords(tile, group, origin, lanes)
            if coords is None:
                slow += idx
                continue
            addr = _shared_address(b, tile, coords, cache)
            regs = [pack(b, elements[j]) for j in idx]
            b.insert(ptx("stmatrix", [addr, *regs], num=f"x{num}",
                         trans="trans" if _trans(tile, group[0]) else None, space="shared"))
    for i in slow:
        for j, v in enumerate(elements[i]):
            coords = tile.view_coords(_element_coords(tile, matrices[i], origin, lanes, j))
            buf, index = element_index(b, tile.view, coords, cache)
            b.insert(cuda.StoreOp(buf, index, v))
