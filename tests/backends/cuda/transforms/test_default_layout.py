"""``cuda-default-layout`` reports what it changes (the kernel's target when it binds a new one,
each allocation it replaces), so the verification after it visits only that."""

from __future__ import annotations

from tirx_testing.reports import reported_points, silenced_is_caught

EXAMPLE = "examples/cuda/tile/gemm_sm80.mlir"


def test_the_pass_reports_each_replaced_allocation(monkeypatch):
    assert reported_points(EXAMPLE, "cuda", "cuda-default-layout") == 1
    assert silenced_is_caught(monkeypatch, EXAMPLE, "cuda", "cuda-default-layout")


def test_a_bad_target_option_is_a_located_error_not_a_kernel_target(capsys):
    """``cuda-default-layout{target=sm_80}`` bound the unparsable string to the kernel: the pass
    succeeded and the next op verifier (or reader of the printed IR) met a target it could not
    read (found by tests/property/cuda_fuzz_campaign.py)."""
    from tirx_mlir.tools.tirx_opt import main

    assert main([EXAMPLE, "-p", "cuda-default-layout{target=sm_80}"]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith(f"{EXAMPLE}:18:1: error: 'tirx.kernel' op unknown target kind "
                                   f"or tag 'sm_80'"), captured.err
    assert "internal" not in captured.err and captured.out == ""


SWIZZLED_Q_AND_A_RING = """
tirx.kernel @k(%Q: !tirx.buffer<64x64xf16, global>, %K: !tirx.buffer<128x64xf16, global>)
    -> (%S: !tirx.buffer<64x64xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %sq = tirx.alloc : !tirx.buffer<64x64xf16, shared, swizzle(3,3,3) S[64,64]>
  %rk = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %s = tirx.alloc : !tirx.buffer<64x64xf32, local>
  tirx.copy cta %sq, %Q : !tirx.buffer<64x64xf16, shared, swizzle(3,3,3) S[64,64]>, !tirx.buffer<64x64xf16, global>
  scf.for %j = %c0 to %c2 step %c1 {
    %kb = arith.muli %j, %c64 : index
    %k = tirx.slice %K[%kb, 0] [64, 64] : !tirx.buffer<128x64xf16, global> -> !tirx.buffer<64x64xf16, global>
    %k3 = tirx.slice %rk[%j, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sk = tirx.reshape %k3 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    tirx.copy_async cta %sk, %k dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
    tirx.gemm_async cta %s, %sq, %sk : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf16, shared, swizzle(3,3,3) S[64,64]>, !tirx.buffer<64x64xf16, shared>
  }
  tirx.copy cta %S, %s : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf32, local>
  tirx.return
}
"""


def test_an_explicitly_swizzled_shared_tile_is_aligned_to_its_swizzle_pattern():
    """Q's 128B-swizzled tile is written by generic stores (the swizzle on its element offsets)
    and read by wgmma (the swizzle on address bits): both agree only on a 1024-byte boundary.
    The pass gave that alignment to default swizzled tiles only, so next to a TMA ring (whose
    mbarriers take shared bytes first) Q landed on a 128-byte boundary and every S was wrong
    after dispatch (found writing examples/cuda/tile/flash_attention_ring_sm90a.mlir)."""
    import numpy as np
    from tirx_testing.cuda_every_stage import check_every_stage

    from tirx_mlir.backends.cuda.dialects.cuda.shared import ALIGN_ATTR
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.pipelines import get_pipeline

    module = parse_module(SWIZZLED_Q_AND_A_RING, "k")
    get_pipeline("cuda", arch="sm_90a").passes[1].apply(None, module)  # cuda-default-layout
    aligns = [op.attributes[ALIGN_ATTR].value.data for op in module.walk()
              if op.name == "tirx.alloc" and ALIGN_ATTR in op.attributes]
    assert aligns == [1024, 1024]  # Q (explicit) and the ring (default)
    rng = np.random.default_rng(0)
    q, k = (rng.standard_normal((n, 64)).astype(np.float16) for n in (64, 128))
    check_every_stage(SWIZZLED_Q_AND_A_RING, lambda q, k: [
        q.astype(np.float32) @ k[64:].astype(np.float32).T], arch="sm_90a", rtol=1e-3,
        atol=1e-3, name="k", inputs=[q, k], compile=False)
