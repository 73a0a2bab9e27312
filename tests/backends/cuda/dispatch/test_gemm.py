"""tirx.gemm variant mma.m16n8k* through the cuda pipeline: numpy == tile interpreter == SIMT
interpreter after every pass, for warp and cta scope, the four transposes, f16/bf16/tf32, shared
(swizzled or not) and register operands; declines name their reason; the ldmatrix reads of a
swizzled tile have no bank conflicts."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.cuda_every_stage import check_every_stage, lower

from tirx_mlir.backends.cuda.interpreter import simulate
from tirx_mlir.backends.cuda.layout import fragments as F
from tirx_mlir.diagnostics import TirxError

MLIR_T = {"f16": "f16", "bf16": "bf16", "f32": "f32"}


def gemm_kernel(m: int, n: int, k: int, dtype: str = "f16", scope: str = "warp",
                threads: int = 32, ta: bool = False, tb: bool = False, a_layout: str = "",
                b_layout: str = "", extra: str = "", a_scope: str = "shared",
                b_scope: str = "shared") -> str:
    """C = op(A) @ op(B): A and B staged from global into ``a_scope``/``b_scope`` tiles, one
    gemm at ``scope``, the accumulator copied out."""
    t = MLIR_T[dtype]
    a = f"{k}x{m}" if ta else f"{m}x{k}"
    b = f"{n}x{k}" if tb else f"{k}x{n}"
    sa = f"!tirx.buffer<{a}x{t}, {a_scope}{a_layout}>"
    sb = f"!tirx.buffer<{b}x{t}, {b_scope}{b_layout}>"
    ga, gb = f"!tirx.buffer<{a}x{t}, global>", f"!tirx.buffer<{b}x{t}, global>"
    acc, gc = f"!tirx.buffer<{m}x{n}xf32, local>", f"!tirx.buffer<{m}x{n}xf32, global>"
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    stage_a = "cta" if a_scope != "local" else scope
    stage_b = "cta" if b_scope != "local" else scope
    return f"""tirx.kernel @g(%A: {ga}, %B: {gb}) -> (%C: {gc}) grid [1] threads [{threads}]
    target "cuda -arch=sm_80" {{
  %acc = tirx.alloc : {acc}
  %sa = tirx.alloc : {sa}
  %sb = tirx.alloc : {sb}
  tirx.copy {stage_a} %sa, %A : {sa}, {ga}
  tirx.copy {stage_b} %sb, %B : {sb}, {gb}
  tirx.gemm {scope} %acc, %sa, %sb{flags}{extra} : {acc}, {sa}, {sb}
  tirx.copy cta %C, %acc : {gc}, {acc}
  tirx.return
}}
"""


def reference(ta: bool, tb: bool):
    def ref(a, b):
        a32, b32 = a.astype(np.float32), b.astype(np.float32)
        return [(a32.T if ta else a32) @ (b32.T if tb else b32)]
    return ref


@pytest.mark.parametrize("ta,tb", [(False, False), (False, True), (True, False), (True, True)])
def test_warp_gemm_all_transposes(ta, tb):
    final = check_every_stage(gemm_kernel(32, 16, 32, ta=ta, tb=tb), reference(ta, tb),
                              rtol=1e-4, atol=1e-4, compile=(ta, tb) == (True, False))
    text = str(final)
    assert text.count("ptx.mma_sync") == 2 * 2 * 2              # 2x2 tiles, 2 K steps
    # A row-major and B^T row-major read plainly; a column-major operand with .trans
    assert ('"x4.trans.shared"' in text) == (ta or not tb)


def test_cta_gemm_on_swizzled_tiles_bf16_without_bank_conflicts():
    text = gemm_kernel(64, 64, 32, "bf16", "cta", 128,
                       a_layout=", swizzle(3,2,3) S[64,32]", b_layout=", swizzle(3,3,3) S[32,64]")
    check_every_stage(text, reference(False, False), rtol=1e-4, atol=1e-4)
    lowered = lower(text)
    rng = np.random.default_rng(0)
    import ml_dtypes

    a = rng.standard_normal((64, 32)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((32, 64)).astype(ml_dtypes.bfloat16)
    run = simulate(lowered, "g", a, b)
    np.testing.assert_allclose(run.outputs[0], reference(False, False)(a, b)[0], rtol=1e-4,
                               atol=1e-4)
    ldmatrix = [*run.stats.of("ptx.ldmatrix")]
    assert ldmatrix and sum(r.bank_conflicts for r in ldmatrix) == 0
    assert sum(r.counters.get("wavefronts", 0) for r in ldmatrix) > 0


def test_unswizzled_tiles_do_conflict():
    """The same reads of row-major 64-byte rows: 2 rows share each bank group (the counter
    works; the swizzle is what removes the conflicts)."""
    lowered = lower(gemm_kernel(64, 64, 32, "f16", "cta", 128))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    run = simulate(lowered, "g", a, b)
    ldmatrix = [*run.stats.of("ptx.ldmatrix")]
    assert sum(r.bank_conflicts for r in ldmatrix) > 0


@pytest.mark.parametrize("ta,tb,ldmatrix", [(False, False, 2), (False, True, 4),
                                             (True, False, 0), (True, True, 2)])
def test_tf32_gemm_rounds_its_inputs(ta, tb, ldmatrix):
    """f32 operands run as tf32; an operand contiguous along K is read with ldmatrix (a 32-bit
    element is one b32 of it: A row-major, B^T row-major; 2 K steps of 8, x4 for A's 16x8
    and x2 for B's 8x8), one contiguous along M or N element by element (.trans would swap
    16-bit halves)."""
    final = check_every_stage(gemm_kernel(16, 16, 16, "f32", ta=ta, tb=tb), reference(ta, tb),
                              rtol=2e-2, atol=2e-2, compile=(ta, tb) == (False, True))
    text = str(final)
    assert 'ptx.mma_sync "m16n8k8.f32.tf32.tf32.f32"' in text
    assert 'ptx.cvt_tf32 "rna"' in text
    assert text.count("ptx.ldmatrix") == ldmatrix and ".trans" not in text


def test_register_operands_read_through_ldmatrix_copies():
    a_layout = f", {F.tile_fragments(F.mma_a('f16'), (1, 2))}"
    b_layout = f", {F.tile_fragments(F.mma_b('f16'), (2, 2))}"
    text = gemm_kernel(16, 16, 32, a_layout=a_layout, b_layout=b_layout, a_scope="local",
                       b_scope="local")
    # the staging copies go global -> registers directly (no shared tile): vec_auto
    final = check_every_stage(text, reference(False, False), rtol=1e-4, atol=1e-4,
                              compile=False)
    assert "ptx.ldmatrix" not in str(final) and str(final).count("ptx.mma_sync") == 4


def test_beta_one_accumulates_over_a_k_loop():
    t = "!tirx.buffer<{}xf16, {}>"
    text = f"""tirx.kernel @g(%A: {t.format('32x64', 'global')}, %B: {t.format('64x16', 'global')})
    -> (%C: !tirx.buffer<32x16xf32, global>) grid [1] threads [64] target "cuda -arch=sm_80" {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %acc = tirx.alloc : !tirx.buffer<32x16xf32, local>
  %sa = tirx.alloc : {t.format('32x16', 'shared')}
  %sb = tirx.alloc : {t.format('16x16', 'shared')}
  tirx.zero cta %acc : !tirx.buffer<32x16xf32, local>
  scf.for %k = %c0 to %c64 step %c16 {{
    %a = tirx.slice %A[0, %k] [32, 16] : {t.format('32x64', 'global')} -> {t.format('32x16', 'global')}
    %b = tirx.slice %B[%k, 0] [16, 16] : {t.format('64x16', 'global')} -> {t.format('16x16', 'global')}
    tirx.copy cta %sa, %a : {t.format('32x16', 'shared')}, {t.format('32x16', 'global')}
    tirx.copy cta %sb, %b : {t.format('16x16', 'shared')}, {t.format('16x16', 'global')}
    tirx.gemm cta %acc, %sa, %sb beta 1.0 : !tirx.buffer<32x16xf32, local>, {t.format('32x16', 'shared')}, {t.format('16x16', 'shared')}
  }}
  tirx.copy cta %C, %acc : !tirx.buffer<32x16xf32, global>, !tirx.buffer<32x16xf32, local>
  tirx.return
}}
"""
    final = check_every_stage(text, reference(False, False), rtol=1e-4, atol=1e-4,
                              compile=False)
    assert "!tirx.buffer<32x16xf32, local" not in str(final)     # 2 warps of 16x16: 8 regs


def test_a_separate_c_is_added_with_beta_one():
    acc, c = "!tirx.buffer<16x8xf32, local>", "!tirx.buffer<16x8xf32, local>"
    t = "!tirx.buffer<{}xf16, {}>"
    text = f"""tirx.kernel @g(%A: {t.format('16x16', 'global')}, %B: {t.format('16x8', 'global')},
    %C0: !tirx.buffer<16x8xf32, global>) -> (%D: !tirx.buffer<16x8xf32, global>) grid [1]
    threads [32] target "cuda -arch=sm_80" {{
  %d = tirx.alloc : {acc}
  %c = tirx.alloc : {c}
  %sa = tirx.alloc : {t.format('16x16', 'shared')}
  %sb = tirx.alloc : {t.format('16x8', 'shared')}
  tirx.copy cta %sa, %A : {t.format('16x16', 'shared')}, {t.format('16x16', 'global')}
  tirx.copy cta %sb, %B : {t.format('16x8', 'shared')}, {t.format('16x8', 'global')}
  tirx.copy warp %c, %C0 : {c}, !tirx.buffer<16x8xf32, global>
  tirx.gemm warp %d, %sa, %sb c %c beta 1.0 : {acc}, {t.format('16x16', 'shared')}, {t.format('16x8', 'shared')}, {c}
  tirx.copy cta %D, %d : !tirx.buffer<16x8xf32, global>, {acc}
  tirx.return
}}
"""
    check_every_stage(text, lambda a, b, c0: [a.astype(np.float32) @ b.astype(np.float32) + c0],
                      rtol=1e-4, atol=1e-4, compile=False)


@pytest.mark.parametrize("extra,reason", [
    (" alpha 2.0", "alpha must be 1"),
    (" beta 0.5", "beta must be 0 or 1"),
])
def test_unsupported_scalars_decline_with_their_reason(extra, reason):
    with pytest.raises(TirxError, match=reason):
        lower(gemm_kernel(16, 8, 16, extra=extra))


def test_a_k_that_is_not_a_multiple_of_the_mma_declines():
    with pytest.raises(TirxError, match="K = 24 is not a multiple"):
        lower(gemm_kernel(16, 8, 24))


@pytest.mark.parametrize("threads", [16, 48])
def test_a_block_of_partial_warps_rejects_mma(threads):
    """mma.sync and ldmatrix are executed by whole warps: the variant's predicate rejects a
    block that ends in a partial warp, and the dispatch table says why."""
    with pytest.raises(TirxError, match=rf"mma.m16n8k\* \(prio=10\) \| rejected: whole warps .* "
                                        rf"threads \[{threads}\] is not a whole number of warps; "
                                        rf"mma.sync needs all 32 lanes of each warp"):
        lower(gemm_kernel(16, 8, 16, scope="cta", threads=threads))


def test_a_cta_accumulator_no_warp_grid_splits_declines_saying_what_to_change():
    """D [32, 8] on 4 warps: no grid of whole 16x8 tiles (found by
    tests/property/cuda_valid_campaign.py; the decline said only that D's layout was no grid
    of fragments)."""
    with pytest.raises(TirxError, match=r"D \[32, 8\]: 4 warps cannot split a 32x8 accumulator "
                                        r"into whole 16x8 mma tiles; make M a multiple"):
        lower(gemm_kernel(32, 8, 16, scope="cta", threads=128))
