"""tirx.copy_async variant ldgsts: cp.async global -> shared. The tile level has no wait, so the
kernels here wait themselves (``ptx.cp_async_wait_all`` + a barrier between the copy and its
reader, as a TIRx user writes them) and are checked after the cuda pipeline: numpy == SIMT (whose
cp.async model refuses to read a destination before the wait), and the printed code compiles."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tirx_testing.cuda_every_stage import check_compiles, lower

from tirx_mlir.backends.cuda.interpreter import simulate
from tirx_mlir.diagnostics import TirxError


def kernel(shape, shared_layout: str = "", scope: str = "cta", threads: int = 128,
           t: str = "f16", config: str = "", src_shape=None) -> str:
    s = "x".join(map(str, shape))
    src = f"!tirx.buffer<{s}x{t}, global>"
    g = src
    view = "%X"
    head = ""
    if src_shape is not None:                 # a column slice of a wider global tensor
        g = f"!tirx.buffer<{'x'.join(map(str, src_shape))}x{t}, global>"
        head = f"  %x = tirx.slice %X[0, 0] [{shape[0]}, {shape[1]}] : {g} -> {src}\n"
        view = "%x"
    sh = f"!tirx.buffer<{s}x{t}, shared{shared_layout}>"
    return f"""tirx.kernel @k(%X: {g}) -> (%Y: {src}) grid [1] threads [{threads}]
    target "cuda -arch=sm_80" {{
  %s = tirx.alloc : {sh}
{head}  tirx.copy_async {scope} %s, {view}{config} : {sh}, {src}
  ptx.cp_async_wait_all
  cuda.sync_threads
  tirx.copy cta %Y, %s : {src}, {sh}
  tirx.return
}}
"""


def _run(text, x):
    module = lower(text)
    return module, simulate(module, "k", x).outputs[0]


def _copies(module) -> list[str]:
    return [line.split('"')[1] + " " + line.split("],")[-1].split(":")[0].strip()
            for line in str(module).splitlines() if "ptx.cp_async" in line and '"' in line]


@pytest.mark.parametrize("layout", ["", ", swizzle(3,3,3) S[64,64]"])
def test_16_byte_copies_into_plain_and_swizzled_tiles(layout):
    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float16)
    module, y = _run(kernel((64, 64), layout), x)
    np.testing.assert_array_equal(y, x)
    assert _copies(module) == ["cg.shared [%3], 16"] * 4 or \
        all(c.startswith("cg.shared") and c.endswith("16") for c in _copies(module))
    assert len(_copies(module)) == 64 * 64 * 2 // 16 // 128
    check_compiles(module, "sm_80", "ldgsts")


def test_narrow_rows_take_narrower_copies():
    x = np.random.default_rng(1).standard_normal((32, 2)).astype(np.float32)  # 8-byte rows
    module, y = _run(kernel((32, 2), t="f32", threads=32, scope="warp"), x)
    np.testing.assert_array_equal(y, x)
    assert all(c.startswith("ca.shared") and c.endswith("8") for c in _copies(module))


def test_a_partial_last_round_is_predicated():
    x = np.random.default_rng(2).standard_normal((24, 8)).astype(np.float16)  # 24 chunks
    module, y = _run(kernel((24, 8), threads=32, scope="warp"), x)
    np.testing.assert_array_equal(y, x)
    assert "scf.if" in str(module) and len(_copies(module)) == 1


RING = "!tirx.buffer<2x16x30xf16, shared, S[(2,16,30):(512,32,1)]>"
STAGE = "!tirx.buffer<1x16x30xf16, shared>"
TILE = "!tirx.buffer<16x30xf16, shared>"


def ragged_kernel(config: str) -> str:
    """30-element rows of a 32-wide global tensor into stage 0 of a ring of two 16x30 tiles
    whose rows are padded to 32 elements (64 bytes)."""
    g, v = "!tirx.buffer<16x32xf16, global>", "!tirx.buffer<16x30xf16, global>"
    return f"""tirx.kernel @k(%X: {g}) -> (%Y: {v}) grid [1] threads [64]
    target "cuda -arch=sm_80" {{
  %ring = tirx.alloc : {RING}
  %st = tirx.slice %ring[0, 0, 0] [1, 16, 30] : {RING} -> {STAGE}
  %s = tirx.reshape %st : {STAGE} -> {TILE}
  %x = tirx.slice %X[0, 0] [16, 30] : {g} -> {v}
  tirx.copy_async cta %s, %x{config} : {TILE}, {v}
  ptx.cp_async_wait_all
  cuda.sync_threads
  tirx.copy cta %Y, %s : {v}, {TILE}
  tirx.return
}}
"""


def test_zero_fill_pads_a_ragged_row():
    """Each row's last 16-byte copy reads 12 bytes and zero-fills the row's padding."""
    x = np.random.default_rng(3).standard_normal((16, 32)).astype(np.float16)
    module, y = _run(ragged_kernel(' config {fill_mode = "zero"}'), x)
    np.testing.assert_array_equal(y, x[:, :30])
    assert "ptx.cp_async_zfill" in str(module)
    assert all(c.startswith("cg.shared") for c in _copies(module))


def test_a_ragged_row_without_zero_fill_uses_narrower_copies():
    x = np.random.default_rng(3).standard_normal((16, 32)).astype(np.float16)
    module, y = _run(ragged_kernel(""), x)
    np.testing.assert_array_equal(y, x[:, :30])
    assert "zfill" not in str(module) and all(c.endswith(" 4") for c in _copies(module))


def test_shared_to_global_is_not_cp_async():
    text = """tirx.kernel @k(%X: !tirx.buffer<64xf32, global>) grid [1] threads [32]
    target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<64xf32, shared>
  tirx.copy_async warp %X, %s dispatch "ldgsts" : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, shared>
  tirx.return
}
"""
    with pytest.raises(TirxError, match="cp.async copies global -> shared"):
        lower(text)


G, V, SH = ("!tirx.buffer<64x256xf16, global>", "!tirx.buffer<64x64xf16, global>",
            "!tirx.buffer<64x64xf16, shared>")


def predicated_kernel(where: str, t: str = "f16") -> str:
    """Four 64x64 column tiles of X copied through shared memory with a predicate over the
    tile's coordinate and the loop variable; no wait written (dispatch completes the copy
    before the tile is read)."""
    g, v, sh = (x.replace("f16", t) for x in (G, V, SH))
    return f"""tirx.kernel @k(%X: {g}) -> (%Y: {g}) grid [1] threads [128]
    target "cuda -arch=sm_80" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %s = tirx.alloc : {sh}
  scf.for %i = %c0 to %c4 step %c1 {{
    %o = arith.muli %i, %c64 : index
    %x = tirx.slice %X[0, %o] [64, 64] : {g} -> {v}
    %y = tirx.slice %Y[0, %o] [64, 64] : {g} -> {v}
    tirx.copy_async cta %s, %x where {where} symbols [%i] : {sh}, {v}, index
    tirx.copy cta %y, %s : {v}, {sh}
  }}
  tirx.return
}}
"""


def _masked(x, pred):
    y = np.zeros_like(x)
    r, c = np.indices((64, 64))
    for i in range(4):
        y[:, i * 64:(i + 1) * 64] = np.where(pred(r, c, i), x[:, i * 64:(i + 1) * 64], 0)
    return [y]


TAIL = "(d0, d1)[s0] : (50 - s0 * 13 - d1 >= 0, 60 - d0 - s0 >= 0, 2 * s0 - 3 * d1 + 150 >= 0)"


def test_a_predicate_zero_fills_each_chunk_past_its_bound():
    """Row bounds hold per chunk (src-size 16 or 0), column bounds cut a chunk's tail
    (floor((50 - 13 i - 8 c) / 1) + 1 elements, and floor((150 + 2 i - 24 c) / 3) + 1), all
    moving with the loop: numpy == tile interpreter == SIMT after every pass; ptxas and nvcc
    take it and the SASS copies with LDGSTS."""
    from tirx_testing.cuda_compile import ptx_sass_opcodes
    from tirx_testing.cuda_every_stage import check_every_stage, lower

    from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

    final = check_every_stage(
        predicated_kernel(TAIL),
        lambda x: _masked(x, lambda r, c, i: (c <= 50 - 13 * i) & (r <= 60 - i) &
                          (3 * c <= 150 + 2 * i)), arch="sm_80", name="k")
    text = str(final)
    assert "ptx.cp_async_zfill" in text and "ptx.cp_async \"" not in text
    # cuda-pipeline-k-loop rings the loop: its wait before the reader replaces the dispatch's
    assert "ptx.cp_async_wait_all" not in text and "ptx.cp_async_wait_group 1" in text
    assert any(o.startswith("LDGSTS") for o in ptx_sass_opcodes(emit_ptx(final), "sm_80"))
    alone = str(lower(predicated_kernel(TAIL), "k", arch="sm_80", num_stages=1))
    assert alone.count("ptx.cp_async_wait_all") == 1    # the completion before the reader


def test_four_byte_elements_take_any_linear_predicate():
    """A lower bound on the column (it fails on a chunk's first elements) fits one-element
    chunks: f32 copies of 4 bytes."""
    from tirx_testing.cuda_every_stage import check_every_stage

    final = check_every_stage(
        predicated_kernel("(d0, d1)[s0] : (d1 - s0 * 9 - 3 >= 0, d1 - d0 == 0)", "f32"),
        lambda x: _masked(x, lambda r, c, i: (c >= 9 * i + 3) & (r == c)), arch="sm_80",
        name="k", compile=False)
    sizes = re.findall(r'ptx.cp_async_zfill "(\w+).shared" \[.*?\], \[.*?\], (\d+),', str(final))
    assert sizes and set(sizes) == {("ca", "4")}


@pytest.mark.parametrize("where,reason", [
    ("(d0, d1)[s0] : (d1 - s0 - 3 >= 0)",
     r"the where constraint `d1 - s0 - 3 >= 0` can fail on a chunk's first elements"),
    ("(d0, d1)[s0] : (d1 mod 2 + s0 == 0)", "not linear in the indices"),
])
def test_predicates_cp_async_cannot_zero_fill_decline(where, reason):
    with pytest.raises(TirxError, match=reason):
        lower(predicated_kernel(where))


def test_tma_declines_a_predicated_copy():
    text = predicated_kernel("(d0, d1)[s0] : (50 - d1 - s0 >= 0)").replace(
        "sm_80", "sm_90a").replace("index\n    tirx.copy cta",
                                   "index\n    tirx.copy cta").replace(
        "symbols [%i] :", "symbols [%i] dispatch \"tma_auto\" :")
    with pytest.raises(TirxError, match="the op has a where predicate; a TMA box is copied whole"):
        lower(text)


def test_a_ragged_k_gemm_pipelines_its_predicated_copies():
    """examples/cuda/tile/gemm_sm80.mlir with its K tiles loaded by predicated copy_async
    (K = 500 of the 512 columns of A, rows of B: A's bound cuts the chunk holding k = 499,
    B's zero-fills whole rows past it): cuda-pipeline-k-loop turns them into its 3-stage ring,
    the src-size arithmetic advanced with the loop variable; numpy == tile interpreter == SIMT
    after every pass, and it builds without spills."""
    from pathlib import Path

    from tirx_testing.cuda_every_stage import check_every_stage

    text = (Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" /
            "gemm_sm80.mlir").read_text()
    sa = "!tirx.buffer<128x32xf16, shared, swizzle(3,2,3) S[128,32]>"
    sb = "!tirx.buffer<32x128xf16, shared, swizzle(3,3,4) S[32,128]>"
    ga, gb = "!tirx.buffer<128x32xf16, global>", "!tirx.buffer<32x128xf16, global>"
    for old, new in [
            (f"tirx.copy cta %sa, %a : {sa}, {ga}",
             f"tirx.copy_async cta %sa, %a where (d0, d1)[s0] : (499 - s0 - d1 >= 0) "
             f"symbols [%k] : {sa}, {ga}, index"),
            (f"tirx.copy cta %sb, %b : {sb}, {gb}",
             f"tirx.copy_async cta %sb, %b where (d0, d1)[s0] : (499 - s0 - d0 >= 0) "
             f"symbols [%k] : {sb}, {gb}, index")]:
        assert old in text
        text = text.replace(old, new)
    final = check_every_stage(
        text, lambda a, b: [a[:, :500].astype(np.float32) @ b[:500].astype(np.float32)],
        arch="sm_80", rtol=1e-3, atol=1e-2, name="gemm_sm80")
    names = [op.name for op in final.walk()]
    assert "ptx.cp_async_wait_group" in names and "ptx.cp_async_wait_all" not in names
    assert names.count("ptx.cp_async_zfill") == 3 * 8   # 2 prologue stages + the loop's


# --- config: prefetch_size, direct, and keys ldgsts does not take ----------------------------------


def test_prefetch_size_qualifies_every_copy_with_its_l2_prefetch():
    x = np.random.default_rng(4).standard_normal((64, 64)).astype(np.float16)
    module, y = _run(kernel((64, 64), config=" config {prefetch_size = 256}"), x)
    np.testing.assert_array_equal(y, x)
    assert _copies(module) and all(".L2::256B" in c for c in _copies(module))
    check_compiles(module, "sm_80", "ldgsts_prefetch")


ROWS = "!tirx.buffer<4x8xf16, global>"
ROW = "!tirx.buffer<1x8xf16, global>"
SROW = "!tirx.buffer<1x8xf16, shared>"


def direct_kernel(config: str = " config {direct = true}", scope: str = "thread",
                  threads: int = 1) -> str:
    """CTA i (of one thread: a thread-scope op writing shared memory runs once per CTA) copies
    row i, 16 bytes, with one cp.async (TIRx's direct ldgsts); no wait written (dispatch
    completes the copy before the reader)."""
    return f"""tirx.kernel @k(%X: {ROWS}) -> (%Y: {ROWS}) grid [4] threads [{threads}]
    target "cuda -arch=sm_80" {{
  %s = tirx.alloc : {SROW}
  %i = tirx.cta_id x : index
  %x = tirx.slice %X[%i, 0] [1, 8] : {ROWS} -> {ROW}
  %y = tirx.slice %Y[%i, 0] [1, 8] : {ROWS} -> {ROW}
  tirx.copy_async {scope} %s, %x{config} : {SROW}, {ROW}
  tirx.copy cta %y, %s : {ROW}, {SROW}
  tirx.return
}}
"""


def test_direct_copies_a_thread_row_with_one_cp_async():
    from tirx_testing.cuda_every_stage import check_every_stage

    final = check_every_stage(direct_kernel(), lambda x: [x], arch="sm_80", name="k")
    copies = _copies(final)
    assert len(copies) == 1 and copies[0].startswith("cg.shared") and copies[0].endswith("16")


@pytest.mark.parametrize("text,reason", [
    (direct_kernel(scope="warp", threads=32), "config direct copies with one cp.async of the executing "
                                  "thread; it needs thread scope, the op is at warp scope"),
    (kernel((64, 64), config=" config {direct = true}", scope="thread"),
     "config direct copies one row of 4, 8 or 16 bytes in one cp.async; the tile is 64x64"),
    (kernel((64, 64), config=" config {prefetch_size = 96}"),
     "config prefetch_size must be one of 64, 128, 256, got 96"),
    (kernel((64, 64), config=' config {fill_mode = "nan"}'),
     'config fill_mode must be one of "zero", got "nan"'),
    (kernel((64, 64), config=' config {direct = "yes"}'),
     'config direct must be one of true, false, got "yes"'),
    (kernel((64, 64), config=" config {prefetch = 128, vec_len = 4}"),
     r"config prefetch, vec_len is not a config of this variant \(it takes: fill_mode, "
     r"prefetch_size, direct\)"),
])
def test_bad_config_is_a_located_error_listing_what_ldgsts_takes(text, reason):
    with pytest.raises(TirxError, match=reason) as err:
        lower(text)
    assert "ldgsts (prio=20)" in str(err.value)
