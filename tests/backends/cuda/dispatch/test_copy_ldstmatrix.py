"""tirx.copy variant ldstmatrix: shared <-> register tiles of 8x8 fragments with ldmatrix
(.trans for a column-major tile) and stmatrix (sm_90), element stores before sm_90; numpy ==
tile interpreter == SIMT after every pass."""

from __future__ import annotations

import pytest
from tirx_testing.cuda_every_stage import check_every_stage

from tirx_mlir.backends.cuda.layout import fragments as F

A_FRAGS = str(F.tile_fragments(F.mma_a("f16"), (2, 2)))            # 32x32, 32 registers
C_GRID = str(F.tile_fragments(F.mma_c(), (2, 2), (2, 2)))           # 64x32 over 4 warps


def kernel(shape, reg_layout: str, scope: str, threads: int, shared_layout: str = "",
           back_to_shared: bool = False, arch: str = "sm_80", t: str = "f16") -> str:
    """global -> shared -> registers (the copy under test) [-> shared again] -> global."""
    s = "x".join(map(str, shape))
    g, sh = f"!tirx.buffer<{s}x{t}, global>", f"!tirx.buffer<{s}x{t}, shared{shared_layout}>"
    r = f"!tirx.buffer<{s}x{t}, local, {reg_layout}>"
    out = "%s2" if back_to_shared else "%r"
    out_t = sh if back_to_shared else r
    extra = f"""  %s2 = tirx.alloc : {sh}
  tirx.copy {scope} %s2, %r : {sh}, {r}
""" if back_to_shared else ""
    return f"""tirx.kernel @k(%X: {g}) -> (%Y: {g}) grid [1] threads [{threads}]
    target "cuda -arch={arch}" {{
  %s = tirx.alloc : {sh}
  %r = tirx.alloc : {r}
  tirx.copy cta %s, %X : {sh}, {g}
  tirx.copy {scope} %r, %s : {r}, {sh}
{extra}  tirx.copy cta %Y, {out} : {g}, {out_t}
  tirx.return
}}
"""


def same(x):
    return [x]


@pytest.mark.parametrize("shared_layout,trans", [
    ("", False), (", swizzle(3,2,3) S[32,32]", False), (", S[(32,32):(1,32)]", True)])
def test_shared_to_registers_with_ldmatrix(shared_layout, trans):
    final = str(check_every_stage(kernel((32, 32), A_FRAGS, "warp", 32, shared_layout), same,
                                  compile=trans))
    assert final.count('ptx.ldmatrix "x4.trans.shared"' if trans else
                       'ptx.ldmatrix "x4.shared"') == 4


def test_cta_scope_reads_each_warps_block():
    final = str(check_every_stage(kernel((64, 32), C_GRID, "cta", 128), same, compile=False))
    assert final.count("ptx.ldmatrix") == 2                       # 8 matrices per warp: 2 x4


@pytest.mark.parametrize("arch,stmatrix", [("sm_80", False), ("sm_90a", True)])
def test_registers_to_shared(arch, stmatrix):
    final = str(check_every_stage(kernel((32, 32), A_FRAGS, "warp", 32, back_to_shared=True,
                                         arch=arch), same, arch=arch, compile=stmatrix))
    assert ("ptx.stmatrix" in final) == stmatrix


def test_a_32_bit_tile_is_not_ldmatrix():
    """f32 registers hold one element each: the copy goes to vec_auto (and still works)."""
    layout = str(F.tile_fragments(F.mma_c(), (1, 1)))
    final = str(check_every_stage(kernel((16, 8), layout, "warp", 32, t="f32"), same,
                                  compile=False))
    assert "ptx.ldmatrix" not in final


def test_a_block_of_partial_warps_is_not_ldmatrix():
    """48 threads end in a half warp, which cannot execute ldmatrix: the variant is rejected and
    the copy goes to another (and still works)."""
    layout = str(F.tile_fragments(F.mma_a("f16"), (1, 1)))
    final = str(check_every_stage(kernel((16, 16), layout, "cta", 48), same, compile=False))
    assert "ptx.ldmatrix" not in final
    whole = str(check_every_stage(kernel((16, 16), layout, "cta", 32), same, compile=False))
    assert "ptx.ldmatrix" in whole
