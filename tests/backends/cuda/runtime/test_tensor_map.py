"""Tensor maps at a launch, without a GPU: ``tirx_mlir.compile`` of a TMA kernel, then ``run``
with numpy arrays, builds each map the kernel's ``cuda.host_tensor_maps`` asks for over the
device buffers and passes it by value. On the interpreter device the run is real (the SIMT
interpreter reads and writes through the encoded maps); on a cuda device the driver is faked
here, recording what ``cuTensorMapEncodeTiled`` is given (dims and strides innermost first,
the box, the swizzle) and what the launch receives."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import tirx_mlir
from tirx_testing.tma_kernels import SYNC, store_kernel
from tirx_mlir.backends.cuda.runtime.module import CudaFunction
from tirx_mlir.backends.cuda.runtime.tensor_map import TensorMap, encode_tiled
from tirx_mlir.runtime.artifact import run_function
from tirx_mlir.runtime.interpreter_device import InterpreterDevice
from tirx_mlir.runtime.module import Function, Module

drv_module = pytest.importorskip("cuda.bindings.driver")


class FakeDriver:
    """The bindings' enums and integer types; cuTensorMapEncodeTiled records its arguments and
    returns a map whose 128 bytes are a running number."""

    def __init__(self):
        self.calls = []

    def __getattr__(self, name):
        return getattr(drv_module, name)

    def cuTensorMapEncodeTiled(self, dtype, rank, address, dims, strides, box, estrides,
                               interleave, swizzle, l2, oob):
        self.calls.append(dict(dtype=dtype, rank=rank, address=address,
                               dims=[int(d) for d in dims], strides=[int(s) for s in strides],
                               box=[int(b) for b in box], estrides=[int(e) for e in estrides],
                               interleave=interleave, swizzle=swizzle))
        raw = (ctypes.c_uint8 * 128)(*[(len(self.calls) + i) % 256 for i in range(128)])
        self._keep = raw

        class Map:
            def getPtr(self):
                return ctypes.addressof(raw)
        return 0, Map()


class FakeGpu(InterpreterDevice):
    """Device memory as the interpreter device keeps it, a cuda device's kind and driver."""

    kind = "cuda"

    def __init__(self):
        super().__init__()
        self.drv = FakeDriver()


class Recording(Function):
    """Records the launch, and the kernelParams a CudaFunction would pack from it."""

    def run(self, grid, block, shared_bytes, args, cluster, stream) -> None:
        packer = CudaFunction(self.module, self.signature, handle=None)
        self.launched = dict(grid=grid, block=block, shared=shared_bytes, args=list(args),
                             addresses=[getattr(a, "address", None) for a in args],
                             packed=packer._params(args)[1])


def test_encode_tiled_reverses_dims_and_gives_byte_strides():
    dev = FakeGpu()
    buf = dev.alloc(shape=(64, 256), dtype=np.float16)
    tm = encode_tiled(buf, box=(64, 64), swizzle="128B")
    (call,) = dev.drv.calls
    assert call["dtype"] == drv_module.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16
    assert call["rank"] == 2 and call["address"] == buf.address
    assert call["dims"] == [256, 64] and call["strides"] == [512]
    assert call["box"] == [64, 64] and call["estrides"] == [1, 1]
    assert call["swizzle"] == drv_module.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B
    assert len(tm.data) == 128 and tm.shape == (64, 256)


def test_a_tma_store_kernel_runs_with_its_maps_built_on_a_gpu():
    """run_function: the caller passes A (and optionally O); the map of O is encoded over O's
    device buffer and launched by value, between them in the parameter order."""
    art = tirx_mlir.compile(store_kernel(64, 128), cache=False)
    sig = art.signature()
    assert sig.user_params == (0, 2) and sig.params[1].derived is not None
    dev = FakeGpu()
    fn = Recording(Module(dev), sig)
    a = np.random.default_rng(0).standard_normal((128, 128)).astype(np.float16)
    run_function(fn, [a])
    args = fn.launched["args"]
    assert isinstance(args[1], TensorMap) and fn.launched["shared"] == 16384
    (call,) = dev.drv.calls
    assert call["address"] == fn.launched["addresses"][2]  # the output's buffer
    assert call["dims"] == [256, 64] and call["strides"] == [512]
    assert call["box"] == [64, 64]
    assert call["swizzle"] == drv_module.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B
    packed = fn.launched["packed"]
    assert bytes(packed[1]) == args[1].data and packed[1].ctypes.data % 64 == 0
    assert [int(packed[k][0]) for k in (0, 2)] == [fn.launched["addresses"][k] for k in (0, 2)]


@pytest.mark.parametrize("rows, cols, swizzle", [(64, 128, "128B"), (32, 64, "128B"),
                                                 (16, 32, "64B"), (8, 16, "32B")])
def test_a_tma_load_kernel_encodes_its_source(rows, cols, swizzle):
    art = tirx_mlir.compile(SYNC.format(r=rows, c=cols), cache=False)
    dev = FakeGpu()
    fn = Recording(Module(dev), art.signature())
    a = np.zeros((256, 256), np.float16)
    run_function(fn, [a])
    (call,) = dev.drv.calls
    assert call["address"] == fn.launched["addresses"][0]
    assert call["dims"] == [256, 256] and call["strides"] == [512]
    width = {"128B": 64, "64B": 32, "32B": 16}[swizzle]
    assert call["box"] == [width, rows]
    assert call["swizzle"] == getattr(drv_module.CUtensorMapSwizzle,
                                      f"CU_TENSOR_MAP_SWIZZLE_{swizzle}")


def test_compile_then_run_on_the_interpreter_device():
    """The same path for real: the maps encoded over the interpreter device's memory, the SIMT
    interpreter loading A and storing O through them."""
    art = tirx_mlir.compile(store_kernel(64, 128), cache=False)
    a = np.random.default_rng(1).standard_normal((128, 128)).astype(np.float16)
    np.testing.assert_array_equal(art.run(a, device="interpreter"),
                                  np.hstack([a[:64], a[64:]]))
    load = tirx_mlir.compile(SYNC.format(r=64, c=128), cache=False)
    x = np.random.default_rng(2).standard_normal((256, 256)).astype(np.float16)
    np.testing.assert_array_equal(load.run(x, device="interpreter"), x[64:128, 64:192])


def test_a_by_value_parameter_without_a_builder_still_needs_launch():
    from tirx_mlir.runtime.errors import LaunchError
    from tirx_mlir.runtime.signature import KernelSignature, Param

    sig = KernelSignature("k", (Param("tm", (128,), np.dtype(np.int8), "i8", by_value=True),
                                Param("A", (16,), np.dtype(np.float32), "f32")), 1)
    with pytest.raises(LaunchError, match="passed by value"):
        run_function(Recording(Module(InterpreterDevice()), sig), [np.zeros(128, np.int8)])
