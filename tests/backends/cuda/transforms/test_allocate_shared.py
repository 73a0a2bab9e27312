"""``cuda-allocate-shared`` on its own and after the cuda pipeline: the kernel computes the same
before and after (SIMT interpreter, race check on), arrays used on the two sides of a barrier
share bytes (and sharing them without the barrier is a race the race check reports), addresses
are followed to the ops that use them, the arena size reaches the launch, the limit is the
target's."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context

from tirx_mlir.backends.cuda.dialects.cuda.shared import DynamicSharedOp, dynamic_shared_bytes
from tirx_mlir.backends.cuda.runtime.toolchain import CudaToolchain
from tirx_mlir.backends.cuda.transforms.allocate_shared import (ARENA_ATTR,
                                                                CudaAllocateSharedPass)
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.interpreter.runtime import InterpretError
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_testing.cuda_every_stage import check_compiles
from tirx_testing.simt import run_simt

F32 = "!tirx.buffer<128xf32, shared>"
G = "!tirx.buffer<128xf32, global>"
CHAIN = f"""tirx.kernel @chain(%X: {G}) -> (%Y: {G})
    grid [2] threads [128] target "cuda -arch=sm_80" {{
  %t = cuda.thread_idx x : index
  %c127 = arith.constant 127 : index
  %r = arith.subi %c127, %t : index
  %a = tirx.alloc : {F32}
  %c = tirx.alloc : {F32}
  %x = cuda.load %X, %t : !tirx.buffer<128xf32, global>, index -> f32
  cuda.store %a, %t, %x : {F32}, index, f32
  cuda.sync_threads
  %y = cuda.load %a, %r : {F32}, index -> f32
  %y2 = arith.addf %y, %y : f32
  BARRIER
  cuda.store %c, %t, %y2 : {F32}, index, f32
  cuda.sync_threads
  %w = cuda.load %c, %r : {F32}, index -> f32
  cuda.store %Y, %t, %w : !tirx.buffer<128xf32, global>, index, f32
  tirx.return
}}
"""


def allocate(text: str, **options):
    module = parse_module(text, "k.mlir")
    CudaAllocateSharedPass(**options).apply(Context(), module)
    module.verify()
    return module


def views(module) -> dict[str, DynamicSharedOp]:
    return {op.result.name_hint: op for op in module.walk() if isinstance(op, DynamicSharedOp)}


def kernel_of(module) -> KernelOp:
    return next(op for op in module.walk() if isinstance(op, KernelOp))


def test_arrays_on_the_two_sides_of_a_barrier_share_bytes_and_compute_the_same():
    text = CHAIN.replace("BARRIER", "cuda.sync_threads")
    x = np.random.default_rng(0).random(128, dtype=np.float32)
    (before,), _ = run_simt(text, x)
    module = allocate(text)
    placed = views(module)
    assert placed["a"].int_prop("offset") == placed["c"].int_prop("offset") == 0
    assert kernel_of(module).attributes[ARENA_ATTR].value.data == 512
    (after,), run = run_simt(str(module), x)
    np.testing.assert_array_equal(before, 2 * x)
    np.testing.assert_array_equal(after, before)


def test_without_the_barrier_the_arrays_stay_apart_and_sharing_them_would_race():
    text = CHAIN.replace("BARRIER", "")
    x = np.arange(128, dtype=np.float32)
    module = allocate(text)
    placed = views(module)
    assert placed["a"].int_prop("offset") != placed["c"].int_prop("offset")
    (after,), _ = run_simt(str(module), x)
    np.testing.assert_array_equal(after, 2 * x)
    # the placement the barrier rule forbids: %c on %a's bytes while threads still read %a
    placed["c"].properties["offset"] = placed["a"].properties["offset"]
    with pytest.raises(InterpretError, match="race"):
        run_simt(str(module), x)


def test_an_address_yielded_by_a_loop_pins_the_array_for_the_whole_kernel():
    body = f"""tirx.kernel @k(%X: {G}) grid [1] threads [128] target "cuda -arch=sm_80" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = cuda.thread_idx x : index
  %a = tirx.alloc : {F32}
  %c = tirx.alloc : {F32}
  %p0 = cuda.address %a, %t : {F32}, index -> i32
  %p = scf.for %i = %c0 to %c1 step %c1 iter_args(%q = %p0) -> (i32) {{
    scf.yield %q : i32
  }}
  cuda.sync_threads
  %x = cuda.load %X, %t : !tirx.buffer<128xf32, global>, index -> f32
  cuda.store %c, %t, %x : {F32}, index, f32
  tirx.return
}}
"""
    placed = views(allocate(body))
    assert placed["a"].int_prop("offset") != placed["c"].int_prop("offset")


def test_the_cuda_pipeline_then_the_pass_reuses_the_first_tile_and_compiles(tmp_path):
    """Two 32 KiB shared tiles used one after the other by dispatched copies and
    elementwise ops: after the pass they share one 32 KiB arena, and the kernel computes the
    same on the SIMT interpreter; the printed code compiles with nvcc and ptxas (strict)."""
    t, g = "!tirx.buffer<128x64xf32, shared>", "!tirx.buffer<128x64xf32, global>"
    text = f"""tirx.kernel @two(%X: {g}) -> (%Y: {g}, %Z: {g}) grid [1] threads [128]
    target "cuda -arch=sm_80" {{
  %s = tirx.alloc : {t}
  %u = tirx.alloc : {t}
  tirx.copy cta %s, %X : {t}, {g}
  tirx.exp cta %s, %s : {t}, {t}
  tirx.copy cta %Y, %s : {g}, {t}
  tirx.copy cta %u, %X : {t}, {g}
  tirx.exp2 cta %u, %u : {t}, {t}
  tirx.copy cta %Z, %u : {g}, {t}
  tirx.return
}}
"""
    module = parse_module(text, "two.mlir")
    get_pipeline("cuda").apply(module)
    x = np.random.default_rng(1).random((128, 64), dtype=np.float32)
    before = KernelRunner(module)(x)
    CudaAllocateSharedPass().apply(Context(), module)
    module.verify()
    kernel = kernel_of(module)
    assert kernel.attributes[ARENA_ATTR].value.data == 32768 == dynamic_shared_bytes(kernel)
    after = KernelRunner(module)(x)
    np.testing.assert_allclose(after[0], np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(after[1], np.exp2(x), rtol=1e-6)
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b)
    check_compiles(module, "sm_80", "two")


def test_the_launch_gives_the_planned_arena():
    module = allocate(CHAIN.replace("BARRIER", "cuda.sync_threads"))
    signature = CudaToolchain().signature(kernel_of(module))
    assert signature.min_shared_bytes == 512


@pytest.mark.parametrize("target,fits", [("cuda -arch=sm_80", False), ("nvidia/nvidia-a100", False),
                                         ("cuda -arch=sm_90a", True), ("nvidia/nvidia-h100", True),
                                         ("cuda -arch=sm_90a -max_shared_memory_per_block=65536",
                                          False)])
def test_the_limit_is_the_targets_opt_in_shared_memory(target, fits):
    """170 000 bytes live together: more than sm_80's 166 912, less than sm_90's 232 448."""
    text = f"""tirx.kernel @k(%X: {G}) grid [1] threads [128] target "{target}" {{
  %t = cuda.thread_idx x : index
  %a = tirx.alloc : !tirx.buffer<20000xf32, shared>
  %b = tirx.alloc : !tirx.buffer<22500xf32, shared>
  %x = cuda.load %X, %t : !tirx.buffer<128xf32, global>, index -> f32
  cuda.store %a, %t, %x : !tirx.buffer<20000xf32, shared>, index, f32
  cuda.store %b, %t, %x : !tirx.buffer<22500xf32, shared>, index, f32
  tirx.return
}}
"""
    if fits:
        # %b at 0, %a at the next 128-byte boundary after its 90000 bytes
        assert kernel_of(allocate(text)).attributes[ARENA_ATTR].value.data == 90112 + 80000
        return
    with pytest.raises(PassError, match=r"needs 170000 bytes at its peak .* but \d+ are "
                                        r"available") as err:
        allocate(text)
    assert "fewer pipeline stages or smaller tiles" in err.value.hint
    assert "%a !tirx.buffer<20000xf32, shared> (80000 B)" in err.value.message
    assert "170000 bytes in all" in err.value.message
