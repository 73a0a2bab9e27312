"""`CudaModule` and `CudaFunction`: kernels loaded with ``cuModuleLoadDataEx`` and launched with
``cuLaunchKernel`` (``cuLaunchKernelEx`` for a cluster launch).

Images tried in order: the artifact's cubin when it was built for this GPU's architecture, then
its PTX (JIT-compiled by the driver for this GPU). A refused image is a `ModuleLoadError` with
the driver's error and its JIT error log for each image tried. Each kernel's signature comes from
the lowered IR through the cuda toolchain (tensor-map parameters by value, the dynamic shared
memory the kernel needs), so a launch is checked before the driver sees it.

Arguments: a buffer is passed as its 64-bit device address; a by-value parameter (a TMA tensor
map) as its bytes, copied to a 64-byte-aligned host array. A launch above 48 KiB of dynamic
shared memory first raises the kernel's ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tirx_mlir.backends.cuda.runtime.driver import check, error_text
from tirx_mlir.runtime.errors import ModuleLoadError
from tirx_mlir.runtime.module import Function, Module
from tirx_mlir.runtime.signature import KernelSignature, blob_bytes

LOG_BYTES = 16384
DEFAULT_DYNAMIC_SHARED = 48 * 1024


def jit_options(drv: Any) -> tuple[list[Any], list[Any], bytearray, bytearray]:
    """The options that collect the JIT's error and info logs, and the two log buffers."""
    error_log, info_log = bytearray(LOG_BYTES), bytearray(LOG_BYTES)
    opt = drv.CUjit_option
    keys = [opt.CU_JIT_ERROR_LOG_BUFFER, opt.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            opt.CU_JIT_INFO_LOG_BUFFER, opt.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES]
    return keys, [error_log, LOG_BYTES, info_log, LOG_BYTES], error_log, info_log


def _log_text(log: bytearray) -> str:
    return bytes(log).split(b"\0", 1)[0].decode(errors="replace").strip()


def load_image(device: Any, image: bytes) -> tuple[Any, str]:
    """Load one image (cubin bytes, or PTX text NUL-terminated) on ``device``; returns the
    CUmodule and the JIT info log. Raises `ModuleLoadError` with the error log."""
    drv = device.drv
    device.activate()
    keys, values, error_log, info_log = jit_options(drv)
    err, module = drv.cuModuleLoadDataEx(image, len(keys), keys, values)
    if int(err) != 0:
        log = _log_text(error_log) or "(the JIT wrote no log)"
        raise ModuleLoadError(f"cuModuleLoadDataEx failed: {error_text(drv, err)}\n{log}")
    return module, _log_text(info_log)


class CudaModule(Module):
    def __init__(self, device: Any, handle: Any, kernels: list[tuple[Any, KernelSignature]],
                 jit_log: str = ""):
        super().__init__(device)
        self.handle = handle
        self.jit_log = jit_log
        for kernel, sig in kernels:
            fn = check(device.drv.cuModuleGetFunction(handle, sig.name.encode()),
                       f"cuModuleGetFunction({sig.name})", device)
            self.functions[sig.name] = CudaFunction(self, sig, fn)

    @classmethod
    def from_artifact(cls, device: Any, artifact: Any) -> "CudaModule":
        from tirx_mlir.dialects.tirx.kernel import kernels

        images = images_for(device, artifact)
        if not images:
            raise ModuleLoadError(f"the artifact has no cubin for {device.arch} and no PTX "
                                  f"(notes: {'; '.join(artifact.notes) or 'none'})",
                                  hint="compile for a cuda target whose IR -t ptx prints")
        failures = []
        for what, image in images:
            try:
                handle, log = load_image(device, image)
            except ModuleLoadError as err:
                failures.append(f"{what}: {err.message}")
                continue
            sigs = [(k, artifact.toolchain.signature(k)) for k in kernels(artifact.lowered)]
            return cls(device, handle, sigs, log)
        raise ModuleLoadError("no image of the artifact loads on " + device.name + ":\n"
                              + "\n".join(failures))


def images_for(device: Any, artifact: Any) -> list[tuple[str, bytes]]:
    """(what, bytes) of each image worth trying on ``device``, best first."""
    out = []
    built_for = artifact.stats.get("arch")
    if artifact.binary is not None and built_for == device.arch:
        out.append((f"cubin ({built_for})", artifact.binary))
    ptx = artifact.sources.get("ptx")
    if ptx is not None:
        out.append(("PTX", ptx.encode() + b"\0"))
    return out


class CudaFunction(Function):
    def __init__(self, module: CudaModule, signature: KernelSignature, handle: Any):
        super().__init__(module, signature)
        self.handle = handle
        self._shared_set = DEFAULT_DYNAMIC_SHARED

    def _allow_shared(self, nbytes: int) -> None:
        if nbytes <= self._shared_set:
            return
        drv = self.device.drv
        attr = drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        check(drv.cuFuncSetAttribute(self.handle, attr, nbytes),
              f"cuFuncSetAttribute(max dynamic shared = {nbytes})", self.device)
        self._shared_set = nbytes

    def _params(self, args: list[Any]) -> tuple[np.ndarray, list[np.ndarray]]:
        """The kernelParams array (pointers to each argument's value) and what it points to."""
        holders = []
        for param, arg in zip(self.signature.params, args):
            if param.by_value:
                data = blob_bytes(arg, param.name)
                raw = np.zeros(len(data) + 64, dtype=np.uint8)
                start = (-raw.ctypes.data) % 64
                aligned = raw[start:start + len(data)]
                aligned[:] = np.frombuffer(data, dtype=np.uint8)
                holders.append(aligned)
            else:
                holders.append(np.array([arg.address], dtype=np.uint64))
        pointers = np.array([h.ctypes.data for h in holders], dtype=np.uint64)
        return pointers, holders

    def run(self, grid, block, shared_bytes, args, cluster, stream) -> None:
        dev = self.device
        drv = dev.drv
        dev.activate()
        self._allow_shared(shared_bytes)
        pointers, holders = self._params(args)
        hstream = stream.handle if stream is not None else dev.default_stream.handle
        if cluster is None:
            check(drv.cuLaunchKernel(self.handle, *grid, *block, shared_bytes, hstream,
                                     pointers.ctypes.data, 0), f"cuLaunchKernel(@{self.name})",
                  dev)
        else:
            config = launch_config(drv, grid, block, shared_bytes, hstream, cluster)
            check(drv.cuLaunchKernelEx(config, self.handle, pointers.ctypes.data, 0),
                  f"cuLaunchKernelEx(@{self.name}, cluster {list(cluster)})", dev)
        del holders  # the driver copied the parameter values at the launch


def launch_config(drv: Any, grid, block, shared_bytes: int, hstream: Any, cluster) -> Any:
    """A CUlaunchConfig with the cluster-dimension attribute."""
    attr = drv.CUlaunchAttribute()
    attr.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
    attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = cluster
    config = drv.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = grid
    config.blockDimX, config.blockDimY, config.blockDimZ = block
    config.sharedMemBytes = shared_bytes
    config.hStream = hstream
    config.attrs = [attr]
    config.numAttrs = 1
    return config
