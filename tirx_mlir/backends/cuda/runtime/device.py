"""`CudaDevice`: one GPU through the driver API, with the runtime's pool, copies and streams.

    dev = get_device("cuda:0")       # DeviceUnavailable (with the reason) where there is no GPU
    buf = dev.alloc(shape=(65536,), dtype="f32"); dev.copy_h2d(buf, x)
    s = dev.create_stream(); dev.copy_d2h(buf, stream=s)

The device uses the GPU's primary context (as the CUDA runtime, torch and cupy do, so pointers
are shared with them) and makes it current on every call. Copies without a stream are
synchronous; on a stream they are queued (``cuMemcpy*Async``) and the host array is kept alive
until the stream is synchronized. A fault that poisons the context marks the device lost.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from tirx_mlir.backends.cuda.runtime.driver import check, driver_api, unavailable_reason
from tirx_mlir.runtime.device import Device, Stream

NON_BLOCKING = 1  # CU_STREAM_NON_BLOCKING


class CudaDevice(Device):
    kind: ClassVar[str] = "cuda"
    has_streams: ClassVar[bool] = True
    target_kinds: ClassVar[tuple[str, ...]] = ("cuda",)

    @classmethod
    def availability(cls) -> str | None:
        return unavailable_reason()

    def __init__(self, index: int = 0, *, caching: bool = True):
        super().__init__(index, caching=caching)
        self.drv = driver_api()
        count = check(self.drv.cuDeviceGetCount(), "cuDeviceGetCount")
        if index >= count:
            from tirx_mlir.runtime.errors import DeviceUnavailable

            raise DeviceUnavailable(f"no CUDA device {index}: this machine has {count}")
        self.handle = check(self.drv.cuDeviceGet(index), "cuDeviceGet")
        self.context = check(self.drv.cuDevicePrimaryCtxRetain(self.handle),
                             "cuDevicePrimaryCtxRetain")
        self.activate()
        self.default_stream = Stream(self, self.drv.CUstream(0))
        self._pending: dict[int, list[np.ndarray]] = {}
        major = self.attribute("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR")
        minor = self.attribute("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR")
        self.compute_capability = (major, minor)

    def activate(self) -> None:
        check(self.drv.cuCtxSetCurrent(self.context), "cuCtxSetCurrent", self)

    def attribute(self, name: str) -> int:
        attr = getattr(self.drv.CUdevice_attribute, name)
        return int(check(self.drv.cuDeviceGetAttribute(attr, self.handle),
                         f"cuDeviceGetAttribute({name})", self))

    @property
    def arch(self) -> str:
        from tirx_mlir.backends.cuda.detect import arch_of

        return arch_of(*self.compute_capability)

    # ---- raw memory ----
    def raw_alloc(self, nbytes: int) -> int:
        self.activate()
        return int(check(self.drv.cuMemAlloc(max(nbytes, 1)), f"cuMemAlloc({nbytes})", self))

    def raw_free(self, address: int) -> None:
        self.activate()
        check(self.drv.cuMemFree(self.drv.CUdeviceptr(address)), "cuMemFree", self)

    def _stream(self, stream: Stream | None) -> Any:
        return None if stream is None else stream.handle

    def _keep(self, stream: Stream, host: np.ndarray) -> None:
        self._pending.setdefault(id(stream), []).append(host)

    def raw_h2d(self, address: int, data: np.ndarray, stream: Stream | None) -> None:
        self.activate()
        dst = self.drv.CUdeviceptr(address)
        if stream is None:
            check(self.drv.cuMemcpyHtoD(dst, data.ctypes.data, data.nbytes), "cuMemcpyHtoD",
                  self)
            return
        self._keep(stream, data)
        check(self.drv.cuMemcpyHtoDAsync(dst, data.ctypes.data, data.nbytes, stream.handle),
              "cuMemcpyHtoDAsync", self)

    def raw_d2h(self, out: np.ndarray, address: int, stream: Stream | None) -> None:
        self.activate()
        src = self.drv.CUdeviceptr(address)
        if stream is None:
            check(self.drv.cuMemcpyDtoH(out.ctypes.data, src, out.nbytes), "cuMemcpyDtoH", self)
            return
        self._keep(stream, out)
        check(self.drv.cuMemcpyDtoHAsync(out.ctypes.data, src, out.nbytes, stream.handle),
              "cuMemcpyDtoHAsync", self)

    def raw_d2d(self, dst: int, src: int, nbytes: int, stream: Stream | None) -> None:
        self.activate()
        a, b = self.drv.CUdeviceptr(dst), self.drv.CUdeviceptr(src)
        if stream is None:
            check(self.drv.cuMemcpyDtoD(a, b, nbytes), "cuMemcpyDtoD", self)
        else:
            check(self.drv.cuMemcpyDtoDAsync(a, b, nbytes, stream.handle), "cuMemcpyDtoDAsync",
                  self)

    def memory_info(self) -> tuple[int, int]:
        self.activate()
        free, total = check(self.drv.cuMemGetInfo(), "cuMemGetInfo", self)
        return int(free), int(total)

    # ---- streams ----
    def create_stream(self) -> Stream:
        self.check_usable()
        self.activate()
        return Stream(self, check(self.drv.cuStreamCreate(NON_BLOCKING), "cuStreamCreate", self))

    def synchronize(self, stream: Stream | None = None) -> None:
        self.check_usable()
        self.activate()
        if stream is None:
            check(self.drv.cuCtxSynchronize(), "cuCtxSynchronize", self)
            self._pending.clear()
        else:
            check(self.drv.cuStreamSynchronize(stream.handle), "cuStreamSynchronize", self)
            self._pending.pop(id(stream), None)

    # ---- modules ----
    def load_module(self, artifact: Any):
        from tirx_mlir.backends.cuda.runtime.module import CudaModule

        self.check_usable()
        return CudaModule.from_artifact(self, artifact)
