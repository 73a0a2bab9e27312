"""The cuda device: here without a GPU it reports why and its GPU tests skip with that reason;
on a machine with one they run a kernel, the pool and streams for real."""

from __future__ import annotations

import numpy as np
import pytest

import tirx_mlir
from tirx_mlir.backends.cuda.runtime.driver import unavailable_reason
from tirx_mlir.runtime import get_device
from tirx_mlir.runtime.devices import available_devices, default_device
from tirx_mlir.runtime.errors import DeviceUnavailable

REASON = unavailable_reason()
needs_gpu = pytest.mark.skipif(REASON is not None, reason=f"no CUDA device: {REASON}")


def test_the_cuda_device_is_registered_by_the_backend():
    from tirx_mlir import registry

    assert registry.devices.owner_of("cuda") == "cuda"
    assert available_devices()["cuda"] == REASON


@pytest.mark.skipif(REASON is None, reason="a CUDA device exists here")
def test_without_a_gpu_getting_it_is_a_clean_error_and_runs_fall_back():
    with pytest.raises(DeviceUnavailable, match="device 'cuda:0' is not available here") as info:
        get_device("cuda")
    assert info.value.code == "device-unavailable"
    assert default_device("cuda").kind == "interpreter"


@needs_gpu
def test_vector_add_on_the_gpu():
    art = tirx_mlir.compile("examples/cuda/vector_add.mlir")
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(65536).astype(np.float32) for _ in range(2))
    dev = get_device("cuda")
    np.testing.assert_array_equal(art.run(a, b, device=dev), a + b)
    np.testing.assert_array_equal(art.run(a, b, device=dev), a + b)
    stats = dev.pool.stats()
    assert stats.hits >= 3 and stats.live_buffers == 0


@needs_gpu
def test_copies_and_streams_on_the_gpu():
    dev = get_device("cuda")
    x = np.arange(1 << 20, dtype=np.float32)
    a = dev.to_device(x)
    b = dev.alloc(shape=x.shape, dtype=x.dtype)
    s = dev.create_stream()
    dev.copy_d2d(b, a, stream=s)
    np.testing.assert_array_equal(dev.copy_d2h(b, stream=s), x)
    a.free()
    b.free()


@needs_gpu
def test_tensor_maps_are_128_bytes():
    from tirx_mlir.backends.cuda.runtime.tensor_map import encode_tiled

    dev = get_device("cuda")
    buf = dev.alloc(shape=(64, 16), dtype=np.float16)
    tm = encode_tiled(buf, box=(64, 16), swizzle="32B")
    assert len(tm.data) == 128 and tm.box == (64, 16)


@pytest.mark.skipif(REASON is None, reason="a CUDA device exists here")
def test_the_gpu_check_says_why_it_cannot_run_here():
    import subprocess
    import sys

    proc = subprocess.run(["bash", "bench/gpu/run.sh"], capture_output=True, text=True,
                          timeout=300, env={**__import__("os").environ, "PYTHON": sys.executable})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("bench/gpu: no GPU to check: ")


RUNNABLE = ["cp_async_copy", "mbarrier_pipeline", "mma_tile", "transpose", "vector_add",
            "warp_reduce"]
"""The CUDA examples that take only arrays (not NVSHMEM, not tensor maps)."""


@pytest.mark.parametrize("name", RUNNABLE)
def test_cuda_examples_run_on_the_interpreter_device(name):
    from tirx_mlir.interpreter import KernelRunner
    from tirx_testing.trn_lowering import random_inputs

    art = tirx_mlir.compile(f"examples/cuda/{name}.mlir")
    inputs = random_inputs(art.ir)
    got = art.run(*inputs, device="interpreter")
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, KernelRunner(art.lowered)(*inputs)):
        np.testing.assert_array_equal(g, w)
    if name == "vector_add":
        np.testing.assert_array_equal(got[0], inputs[0] + inputs[1])
