"""The fragment layouts of layout/fragments.py: each equals the PTX ISA's table (written out case
by case in tirx_testing.ptx_isa_fragments), the interpreter's mma.sync computes A @ B + C on
registers placed by them, and the CTA accumulator tiles its warps."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.ptx_isa_fragments import isa_a, isa_b, isa_c, isa_ldmatrix

from tirx_mlir.backends.cuda.interpreter.tensor_core.mma import mma_sync
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import element_dtype, pack, unpack
from tirx_mlir.backends.cuda.interpreter.tensor_core import ldmatrix as lm
from tirx_mlir.backends.cuda.layout import fragments as F
from tirx_mlir.dialects.tirx.layout import LayoutError, TileLayout

INPUTS = ("f16", "bf16", "tf32")
BITS = {"f16": 16, "bf16": 16, "tf32": 32}


def holders(layout: TileLayout, shape) -> tuple[np.ndarray, np.ndarray]:
    """(lane, register) of every element of a ``shape`` tile."""
    c = layout.apply_array(shape)
    return c["laneid"], c["m"]


def per_lane(layout: TileLayout, shape) -> dict[tuple[int, int], tuple[int, int]]:
    lane, reg = holders(layout, shape)
    return {(int(lane[x]), int(reg[x])): x for x in np.ndindex(*shape)}


@pytest.mark.parametrize("t", INPUTS)
def test_operand_fragments_are_the_isa_tables(t):
    shape = F.mma_form(t).shape
    a, b = F.mma_a(t), F.mma_b(t)
    for frag, isa in ((a, isa_a), (b, isa_b)):
        table = per_lane(frag.layout, frag.shape)
        assert len(table) == 32 * frag.registers
        for (lane, i), pos in table.items():
            assert pos == isa(shape, BITS[t], lane, i), (t, lane, i)


def test_accumulator_fragment_is_the_isa_table():
    table = per_lane(F.mma_c().layout, (16, 8))
    assert table == {(l, i): isa_c(l, i)
                                                for l in range(32) for i in range(4)}


def test_docstring_states_the_fitted_layouts():
    assert str(F.mma_a("f16").layout) == "S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]"
    assert str(F.mma_b("f16").layout) == "S[(2,4,2,8):(2,1@laneid,1,4@laneid)]"
    assert str(F.mma_c().layout) == "S[(2,8,4,2):(2,4@laneid,1@laneid,1)]"
    assert F.__doc__ is not None and all(str(x.layout) in F.__doc__ for x in
                                         (F.mma_a("f16"), F.mma_b("f16"), F.mma_c()))


def _registers(mat: np.ndarray, frag: F.Fragment, ptx_type: str) -> np.ndarray:
    """Per-lane b32 registers ``(1, 32, regs)`` of a matrix placed by ``frag``."""
    lane, reg = holders(frag.layout, frag.shape)
    elems = np.empty((32, frag.registers), dtype=mat.dtype)
    elems[lane, reg] = mat
    return pack(elems, ptx_type)[None] if ptx_type != "f32" else elems[None]


@pytest.mark.parametrize("t", INPUTS)
def test_interpreter_mma_on_these_layouts_is_a_matmul(t):
    rng = np.random.default_rng(1)
    form = F.mma_form(t)
    a = rng.standard_normal((16, form.k)).astype(element_dtype(t))
    b = rng.standard_normal((form.k, 8)).astype(element_dtype(t))
    c = rng.standard_normal((16, 8)).astype(np.float32)
    if t == "tf32":  # the tensor core reads 19 bits: feed values it represents exactly
        a, b = (unpack(pack(x, "tf32"), "tf32") for x in (a, b))
    d = mma_sync(_registers(a, F.mma_a(t), t), _registers(b, F.mma_b(t), t),
                 _registers(c, F.mma_c(), "f32"), form)
    lane, reg = holders(F.mma_c().layout, (16, 8))
    want = a.astype(np.float32) @ b.astype(np.float32) + c
    np.testing.assert_allclose(d[0][lane, reg], want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_fragment_is_the_isa_table_and_the_interpreter(num, trans):
    frag = F.ldmatrix(num, trans)
    for (lane, e), (row, col) in per_lane(frag.layout, frag.shape).items():
        matrix, r, c = isa_ldmatrix(lane, e // 2, e % 2, trans)
        assert (row, col) == (8 * matrix + r, c)
    rows = np.arange(64 * num, dtype=np.uint16).reshape(1, 8 * num, 8)
    regs = lm.rows_to_registers(rows, trans)
    lane, reg = holders(frag.layout, frag.shape)
    assert np.array_equal(unpack(regs, "b16")[0][lane, reg], rows[0])


def test_accumulator_layout_tiles_the_warp_grid():
    layout = F.accumulator_layout(64, 32, warps_m=2, warps_n=2)
    c = layout.apply_array((64, 32))
    assert layout.span("m") == 2 * 2 * 4 and layout.span("warpid") == 4
    owners = set(zip(c["warpid"].ravel(), c["laneid"].ravel(), c["m"].ravel()))
    assert len(owners) == 64 * 32                       # every element has its own register
    for w in range(4):
        rows, cols = np.nonzero(c["warpid"] == w)
        assert (rows.min(), cols.min()) == (32 * (w // 2), 16 * (w % 2))
        assert (rows.max() - rows.min(), cols.max() - cols.min()) == (31, 15)
    # mma tile (i, j) of a warp is registers 4 * (2i + j) .. + 3, laid out as one C fragment
    for (lane, e), (r, col) in per_lane(F.mma_c().layout, (16, 8)).items():
        x = (16 + r, 8 + col)                            # warp 0, tile (1, 1)
        assert (c["warpid"][x], c["laneid"][x], c["m"][x]) == (0, lane, 4 * 3 + e)


@pytest.mark.parametrize("shape,warps", [((24, 8), (1, 1)), ((32, 8), (1, 2)), ((32, 12), (1, 1))])
def test_accumulator_layout_rejects_partial_tiles(shape, warps):
    with pytest.raises(LayoutError, match="whole 16x8"):
        F.accumulator_layout(*shape, *warps)


def test_warp_grid_prefers_square_blocks():
    assert F.warp_grid(128, 128, 4) == (2, 2)
    assert F.warp_grid(16, 64, 4) == (1, 4)
    assert F.warp_grid(64, 8, 4) == (4, 1)
    with pytest.raises(LayoutError, match="cannot split"):
        F.warp_grid(16, 8, 4)


def test_layout_of_map_refuses_a_table_that_is_not_strided():
    lane = np.arange(4).reshape(2, 2)
    reg = np.zeros((2, 2), np.int64)
    assert str(F.layout_of_map((2, 2), lane, reg)) == "S[(2,2):(2@laneid,1@laneid)]"
    swapped = lane.copy()
    swapped[1, 1], swapped[1, 0] = 2, 3
    with pytest.raises(LayoutError):
        F.layout_of_map((2, 2), swapped, reg)
    with pytest.raises(LayoutError, match="power of two"):
        F.layout_of_map((3, 2), np.arange(6).reshape(3, 2), np.zeros((3, 2), np.int64))


def test_mma_form_names_the_supported_inputs():
    assert str(F.mma_form("bf16")) == "m16n8k16.f32.bf16.bf16.f32"
    assert F.mma_form("tf32").k == 8
    with pytest.raises(ValueError, match="f16, bf16, tf32"):
        F.mma_form("s8")


def test_fragment_tiles_read_the_accumulator_back():
    layout = F.accumulator_layout(32, 32, 1, 2)
    h = F.Holders.of(layout, (32, 32))
    tiles = F.fragment_tiles(h, F.mma_c(), warp=1)
    assert [o for o, _ in tiles] == [(0, 16), (0, 24), (16, 16), (16, 24)]
    assert [r for _, r in tiles] == [(0, 1, 2, 3), (4, 5, 6, 7), (8, 9, 10, 11), (12, 13, 14, 15)]
    assert F.fragment_tiles(h, F.mma_c(), warp=2) is None          # no such warp
    row_major = F.Holders.of(TileLayout.parse("S[(16,8):(8@laneid,1)]"), (16, 8))
    assert F.fragment_tiles(row_major, F.mma_c()) is None


def test_readings_are_shared_and_a_caller_cannot_change_them():
    """`Holders.of` is one per (layout, shape) and keeps its readings; each caller gets its own
    list, so changing one changes no later answer."""
    layout = F.accumulator_layout(32, 32, 1, 2)
    h = F.Holders.of(layout, (32, 32))
    assert F.Holders.of(F.accumulator_layout(32, 32, 1, 2), [32, 32]) is h
    assert F.Holders.of(layout, (16, 64)) is not h
    first = F.fragment_tiles(h, F.mma_c(), warp=1)
    first.clear()
    again = F.fragment_tiles(h, F.mma_c(), warp=1)
    assert [o for o, _ in again] == [(0, 16), (0, 24), (16, 16), (16, 24)]
    assert F.fragment_tiles(h, F.mma_c(), warp=0)[0][0] == (0, 0)   # keyed by warp too
    a = F.Holders.of(F.mma_a("f16").layout, (16, 16))
    F.matrix_tiles(a).pop()
    assert len(F.matrix_tiles(a)) == 4
    F.matrices_of(F.mma_a("bf16"), 2).pop()
    assert len(F.matrices_of(F.mma_a("bf16"), 2)) == 4


def test_fragment_registers_find_operand_fragments_in_a_grid():
    layout = F.tile_fragments(F.mma_a("f16"), tiles=(2, 2))        # a 32x32 A, 4 fragments
    h = F.Holders.of(layout, (32, 32))
    assert F.fragment_registers(h, F.mma_a("f16"), (16, 16), 0) == tuple(range(24, 32))
    assert F.fragment_registers(h, F.mma_a("f16"), (8, 0), 0) == (2, 3, 16, 17, 6, 7, 20, 21)
    assert F.fragment_registers(h, F.mma_a("f16"), (4, 0), 0) is None   # lanes misplaced
    assert F.fragment_registers(h, F.mma_b("f16"), (0, 0), 0) is None


def test_matrix_tiles_see_rows_and_columns():
    a = F.Holders.of(F.mma_a("f16").layout, (16, 16))
    assert F.matrix_tiles(a) == [((0, 0), "row", (0, 1)), ((8, 0), "row", (2, 3)),
                                 ((0, 8), "row", (4, 5)), ((8, 8), "row", (6, 7))]
    b = F.Holders.of(F.mma_b("f16").layout, (16, 8))
    assert F.matrix_tiles(b) == [((0, 0), "col", (0, 1)), ((8, 0), "col", (2, 3))]
    tf = F.Holders.of(F.mma_a("tf32").layout, (16, 8))
    assert F.matrix_tiles(tf) is None          # 32-bit elements: one per register


def test_matrices_of_the_operand_fragments():
    assert F.matrices_of(F.mma_a("bf16"), 2) == [((0, 0), "row"), ((8, 0), "row"),
                                                 ((0, 8), "row"), ((8, 8), "row")]
    assert F.matrices_of(F.mma_b("tf32"), 1) == [((0, 0), "col"), ((4, 0), "col")]


def test_default_accumulator_layout_by_scope():
    assert F.default_accumulator_layout((16, 16), "warp", 128) == F.accumulator_layout(16, 16)
    assert F.default_accumulator_layout((128, 128), "cta", 128) == \
        F.accumulator_layout(128, 128, 2, 2)
    assert F.default_accumulator_layout((20, 8), "cta", 128) is None
    assert F.default_accumulator_layout((16, 8), "thread", 1) is None


def test_the_partition_of_an_accumulator_spans_every_warp_and_lane():
    from tirx_mlir.backends.cuda.layout.partition import RegisterPartition

    part = RegisterPartition(F.accumulator_layout(128, 128, 2, 2), (128, 128))
    assert part.threads == {"warpid": 4, "laneid": 32} and part.nregs == 128


def test_fragment_registers_and_warps_are_kept_per_question():
    """`fragment_registers` answers each (fragment, origin, warp) once per holders (a GEMM
    asks again at every K step); the kept answer is the computed one, refusals included."""
    layout = F.tile_fragments(F.mma_a("f16"), tiles=(2, 2))
    h = F.Holders.of(layout, (32, 32))
    frag = F.mma_a("f16")
    for origin in ((0, 0), (16, 16), (8, 0), (32, 0)):
        first = F.fragment_registers(h, frag, origin, 0)
        assert first == F._fragment_registers(h, frag, origin, 0)
        assert F.fragment_registers(h, frag, origin, 0) is first
    assert F.fragment_registers(h, frag, (0, 0), 0) is not None
    assert F.fragment_registers(h, frag, (32, 0), 0) is None
    assert h.warps == int(h.warp.max()) + 1 and h.memo["warps"] == h.warps
