"""copy_async tma_auto through the cuda pipeline: numpy == tile interpreter == SIMT interpreter
after every pass (the SIMT interpreter reads the global tensor through the host-built tensor
map), the printed code compiles for sm_90a; and the reasons it declines."""

from __future__ import annotations

import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_mlir.diagnostics import TirxError

SYNC = """tirx.kernel @tma(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<{r}x{c}xf16, global>)
    grid [2] threads [128] target "cuda -arch=sm_90a" {{
  %cta = tirx.cta_id x : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %cta, %c64 : index
  %s = tirx.alloc : !tirx.buffer<{r}x{c}xf16, shared>
  %a = tirx.slice %A[%row, %c64] [{r}, {c}] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<{r}x{c}xf16, global>
  tirx.copy_async cta %s, %a dispatch "tma_auto" : !tirx.buffer<{r}x{c}xf16, shared>, !tirx.buffer<{r}x{c}xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<{r}x{c}xf16, global>, !tirx.buffer<{r}x{c}xf16, shared>
  tirx.return
}}
"""


@pytest.mark.parametrize("rows, cols", [(64, 128), (32, 64), (16, 32), (8, 16), (64, 8)])
def test_tma_into_each_swizzle(rows, cols):
    """128B (2 column blocks, and 1), 64B, 32B and an unswizzled 16-byte row."""
    final = check_every_stage(SYNC.format(r=rows, c=cols),
                              lambda a: [a[64:64 + rows, 64:64 + cols]], arch="sm_90a")
    assert "cp_async_bulk_tensor_g2s" in str(final)


def _declines(text: str, reason: str) -> None:
    with pytest.raises(TirxError, match=reason):
        lower(text)


def test_declines_a_transposed_source():
    _declines("""tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %t = tirx.transpose %A [1, 0] : !tirx.buffer<64x64xf16, global> -> !tirx.buffer<64x64xf16, global>
  tirx.copy_async cta %s, %t dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}
""", "unit-stride rectangular slice of a kernel parameter")


def test_declines_part_of_a_tile():
    _declines("""tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<64x128xf16, shared>
  %h = tirx.slice %s[0, 0] [64, 64] : !tirx.buffer<64x128xf16, shared> -> !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %h, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}
""", r"one whole \[64, 128\] tile")


def test_declines_before_sm90():
    _declines("""tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  tirx.copy_async cta %s, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.return
}
""", "needs sm_90 or newer")
