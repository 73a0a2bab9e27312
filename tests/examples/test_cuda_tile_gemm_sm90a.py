"""examples/cuda/tile/gemm_sm90a.mlir: TMA + mbarrier + wgmma with a producer and two consumer
warpgroups. numpy == tile interpreter == SIMT interpreter after every pass of the cuda pipeline;
-t cuda compiles and -t ptx assembles for sm_90a without spills or C75xx advisories; the lowered
kernel has the warp-specialized shape the example's header describes; the same GEMM with its
epilogue stored through the TMA (UTMASTG in the SASS); the ring's empty barriers short of one
consumer warp still order every warpgroup's wgmma before the refill, short of four they
deadlock."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import f32

from tirx_testing import cuda_compile
from tirx_testing.cuda_every_stage import check_every_stage, lower, run
from tirx_testing.mbarrier_counts import init_count_constants, set_init_count
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.backends.cuda.dialects import ptx
from tirx_mlir.backends.cuda.host_tensor_maps import host_tensor_maps
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.interpreter.runtime import InterpretError

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "cuda" / "tile" / "gemm_sm90a.mlir"


def _names(ops) -> list[str]:
    return [op.name for op in ops]


TMA_STORE_EPILOGUE = """  %sc = tirx.alloc : !tirx.buffer<128x128xf32, shared>
  tirx.copy cta %sc, %acc : !tirx.buffer<128x128xf32, shared>, !tirx.buffer<128x128xf32, local>
  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy_async cta %c, %sc dispatch "tma_auto" : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, shared>
"""
DIRECT_EPILOGUE = """  %c = tirx.slice %C[%m0, %n0] [128, 128] : !tirx.buffer<256x256xf32, global> -> !tirx.buffer<128x128xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
"""


def _check(text: str):
    final = check_every_stage(
        text, lambda a, b: [a.astype(np.float32) @ b.astype(np.float32).T],
        arch="sm_90a", rtol=1e-4, atol=1e-3, name="gemm_sm90a")
    return final, next(op for op in final.walk() if isinstance(op, KernelOp))


def test_gemm_sm90a_every_stage():
    final, kernel = _check(EXAMPLE.read_text())
    assert [(m.source, m.box, m.swizzle.tensor_map_name) for m in host_tensor_maps(kernel)] == \
        [(0, (128, 64), "128B"), (1, (128, 64), "128B")]
    names = _names(kernel.walk())
    # per K step: 2 TMA boxes (one per operand); each consumer warpgroup runs the same 4 wgmma
    # m64n128k16 on its own m64 tile and holds its 64x128 accumulator in 64 registers a thread
    assert names.count("ptx.cp_async_bulk_tensor_g2s") == 2
    assert names.count("ptx.wgmma_mma_async_ss") == 4
    f32_registers = [op.results[0].type.get_shape() for op in kernel.walk()
                     if isinstance(op, AllocOp) and op.results[0].type.element_type == f32]
    assert f32_registers == [(64,)]
    assert names.count("ptx.mbarrier_arrive_expect_tx") == 2
    # one wgmma group in flight across K steps (dispatch/wgmma_in_flight.py): the consumers'
    # loop (split from the producer's, transforms/split_roles.py) waits for all but the newest
    # group and releases the previous step's stage; the last group is waited for after it
    waits = [(op.properties["n"].value.data, _inside_loop(op)) for op in kernel.walk()
             if isinstance(op, ptx.PtxOp) and op.name == "ptx.wgmma_wait_group"]
    assert waits == [(1, True), (0, False)]
    loops = [op for op in kernel.walk() if isinstance(op, scf.ForOp) and
             any(o.name.startswith(("ptx.wgmma", "ptx.cp_async_bulk")) for o in op.walk())]
    kinds = ("ptx.wgmma_mma", "ptx.cp_async_bulk")
    assert [sorted({o.name for o in loop.walk() if o.name.startswith(kinds)})
            for loop in loops] == [["ptx.wgmma_mma_async_ss"], ["ptx.cp_async_bulk_tensor_g2s"]]


def _inside_loop(op) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, (scf.ForOp, KernelOp)):
        parent = parent.parent_op()
    return isinstance(parent, scf.ForOp)


def test_gemm_sm90a_with_a_tma_store_epilogue():
    """The example's epilogue staged through a swizzled shared tile and stored by the TMA."""
    text = EXAMPLE.read_text()
    assert DIRECT_EPILOGUE in text
    final, kernel = _check(text.replace(DIRECT_EPILOGUE, TMA_STORE_EPILOGUE))
    assert [(m.source, m.box, m.swizzle.tensor_map_name) for m in host_tensor_maps(kernel)] == \
        [(0, (128, 64), "128B"), (1, (128, 64), "128B"), (5, (128, 32), "128B")]
    names = _names(kernel.walk())
    # C's 128x128 f32 tile stored by the TMA, one box per 32-column block
    assert names.count("ptx.cp_async_bulk_tensor_s2g") == 4
    assert names.count("ptx.fence_proxy_async") == 1
    opcodes = cuda_compile.ptx_sass_opcodes(emit_ptx(final), "sm_90a")
    assert any(op.startswith("UTMASTG") for op in opcodes)


def _inputs():
    rng = np.random.default_rng(2)
    return [rng.standard_normal((256, 256)).astype(np.float16) for _ in range(2)]


def test_an_empty_barrier_short_of_a_warp_still_orders_each_warpgroup_s_wgmma():
    """A's empty barriers count the 8 consumer warps, more than the ordering needs: a wgmma is
    its warpgroup's operation, and one thread's ``wgmma.wait_group`` retires it for the whole
    warpgroup (CUTLASS's sm90 pipelines arrive once per consumer warpgroup). Any 7 of the 8
    arrivals include warps of both consumer warpgroups, each arriving after its wait, so the
    producer's refill is ordered after every wgmma that read the stage: numpy's answer (the
    interpreter's wgmma check, tensor_core/wgmma_reads.py, follows that knowledge through the
    phase). With 4, each round completes two phases, which puts the ring's parity waits out
    of step: a located deadlock."""
    a, b = _inputs()
    module = lower(EXAMPLE.read_text(), "gemm_sm90a")
    assert len(init_count_constants(module, 8)) == 2      # A's and B's empty barriers
    set_init_count(module, 8, 7, which=0)
    (c,) = run(module, [a, b])
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-4,
                               atol=1e-3)
    module = lower(EXAMPLE.read_text(), "gemm_sm90a")
    set_init_count(module, 8, 4, which=0)
    with pytest.raises(InterpretError, match=r"gemm_sm90a:\d+:\d+: error: \[deadlock\] "
                       r"ptx.mbarrier_try_wait_parity"):
        run(module, [a, b])


def test_a_short_count_on_b_alone_is_ordered_through_a_s_empty_barrier():
    """B's empty barriers short by one, A's right: each consumer warp arrives on A's empty
    barrier after its reads of both stages, and the producer waits on A's before refilling B,
    so B's refill is ordered after every read (transitively): no hazard, numpy's answer."""
    module = lower(EXAMPLE.read_text(), "gemm_sm90a")
    set_init_count(module, 8, 7, which=1)
    a, b = _inputs()
    (c,) = run(module, [a, b])
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-4,
                               atol=1e-3)
