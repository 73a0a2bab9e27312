"""tirx.copy's cache configs (dispatch/copy_hints.py): cache = "nc", l1_evict, l2_evict and
prefetch_size put the read-only path, the L1 eviction priority, the L2 policy (createpolicy +
.L2::cache_hint) and the L2 prefetch on every global load the copy variant builds (vector and
scalar), keep the answer (numpy == tile interpreter == SIMT after every pass), and the printed
CUDA and PTX carry them through nvcc and ptxas."""

from __future__ import annotations

import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.diagnostics import TirxError


def kernel(cols: int, config: str) -> str:
    """A [64, cols] f32 tile staged global -> shared -> global, its load carrying ``config``."""
    t = f"!tirx.buffer<64x{cols}xf32"
    return f"""tirx.kernel @k(%X: {t}, global>) -> (%Y: {t}, global>) grid [1] threads [128]
    target "cuda -arch=sm_80" {{
  %s = tirx.alloc : {t}, shared>
  tirx.copy cta %s, %X config {{{config}}} : {t}, shared>, {t}, global>
  tirx.copy cta %Y, %s : {t}, global>, {t}, shared>
  tirx.return
}}
"""


ALL = 'cache = "nc", l1_evict = "evict_first", l2_evict = "evict_last", prefetch_size = 128'


@pytest.mark.parametrize("cols,vector", [(128, True), (3, False)])
def test_every_hint_reaches_every_global_load(cols, vector):
    final = check_every_stage(kernel(cols, ALL), lambda x: [x], arch="sm_80", name="k")
    ptx = emit_ptx(final)
    loads = [line for line in ptx.splitlines() if line.strip().startswith("ld.global")]
    assert loads and all(line.strip().startswith(
        "ld.global.nc.L1::evict_first.L2::cache_hint.L2::128B") for line in loads), loads
    assert ptx.count("createpolicy.fractional.L2::evict_last.b64") == 1
    assert all((".v4" in line) == vector for line in loads), loads
    stores = [line for line in ptx.splitlines() if line.strip().startswith("st.")]
    assert stores and not any(".nc" in line or "evict" in line for line in stores)


def test_without_the_config_no_hint():
    ptx = emit_ptx(lower(kernel(128, 'l1_evict = "evict_last"')))
    loads = [line for line in ptx.splitlines() if line.strip().startswith("ld.global")]
    assert loads and all(".L1::evict_last" in line and ".nc" not in line for line in loads)


def test_the_cuda_source_carries_the_hints():
    cuda = emit_cuda(lower(kernel(128, 'cache = "nc"')))
    assert "ld.global.nc" in cuda or "__ldg" in cuda


@pytest.mark.parametrize("config,reason", [
    ('cache = "cg"', 'config cache must be one of "nc", got "cg"'),
    ('l2_evict = "no_allocate"', 'config l2_evict must be one of "evict_first", "evict_last", '
                                 '"evict_normal", "evict_unchanged", got "no_allocate"'),
    ("thread_reduce = true", r"config thread_reduce is not a config of this variant \(it "
                             r"takes: cache, l1_evict, l2_evict, prefetch_size, vec_len\)"),
])
def test_other_values_and_keys_decline_naming_what_is_taken(config, reason):
    with pytest.raises(TirxError, match=reason) as err:
        lower(kernel(128, config))
    assert "vec_auto (prio=10)" in str(err.value)
