"""Loading and launching on the cuda device, the parts that need no GPU: which images are tried,
how arguments are packed, and the launch checks before the driver."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.runtime.module import CudaFunction, images_for
from tirx_mlir.runtime.errors import LaunchError
from tirx_mlir.runtime.interpreter_device import InterpreterDevice
from tirx_mlir.runtime.module import Module
from tirx_mlir.runtime.signature import KernelSignature, Param


class FakeArtifact:
    def __init__(self, binary, arch, ptx):
        self.binary, self.stats = binary, {"arch": arch}
        self.sources = {} if ptx is None else {"ptx": ptx}


class FakeGpu:
    arch = "sm_90a"


@pytest.mark.parametrize("binary, arch, ptx, want", [
    (b"cubin", "sm_90a", ".entry k", ["cubin (sm_90a)", "PTX"]),
    (b"cubin", "sm_80", ".entry k", ["PTX"]),  # a cubin of another arch is not tried
    (None, None, ".entry k", ["PTX"]),
    (b"cubin", "sm_80", None, []),
])
def test_images_are_tried_best_first(binary, arch, ptx, want):
    images = images_for(FakeGpu(), FakeArtifact(binary, arch, ptx))
    assert [what for what, _ in images] == want
    if "PTX" in want:
        assert images[-1][1].endswith(b"\0")  # the driver reads PTX as a C string


def _function(device, min_shared=0):
    f32 = np.dtype(np.float32)
    sig = KernelSignature("k", (Param("tm", (128,), np.dtype(np.int8), "i8", by_value=True),
                                Param("A", (16,), f32, "f32")), 1, block=(32, 1, 1),
                          min_shared_bytes=min_shared)
    return CudaFunction(Module(device), sig, handle=None)


def test_arguments_are_packed_as_addresses_and_aligned_blobs():
    dev = InterpreterDevice()
    fn = _function(dev)
    buf = dev.alloc(shape=(16,), dtype="f32")
    pointers, holders = fn._params([bytes(range(128)), buf])
    assert holders[0].ctypes.data % 64 == 0 and bytes(holders[0]) == bytes(range(128))
    assert int(holders[1][0]) == buf.address
    assert [int(p) for p in pointers] == [h.ctypes.data for h in holders]


def test_launch_checks_run_before_the_driver():
    dev = InterpreterDevice()
    fn = _function(dev, min_shared=4096)
    buf = dev.alloc(shape=(16,), dtype="f32")
    with pytest.raises(LaunchError, match="uses 4,096 bytes of dynamic shared memory; the launch "
                                          "gives shared_bytes=0"):
        fn.launch(1, 32, 0, [bytes(128), buf])
    with pytest.raises(LaunchError, match="passed by value as 128 bytes, got 64"):
        fn.launch(1, 32, 4096, [bytes(64), buf])
    with pytest.raises(LaunchError, match=r"launched with block \[64, 1, 1\], but its IR declares "
                                          r"block \[32, 1, 1\]"):
        fn.launch(1, 64, 4096, [bytes(128), buf])  # the lowering relies on the declared launch
