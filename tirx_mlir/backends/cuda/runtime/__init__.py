"""The CUDA backend's runtime: the ``cuda`` device (driver API through ``cuda-bindings``) and the
``cuda`` toolchain of ``tirx_mlir.compile`` (CUDA C++ and PTX sources, a cubin from ptxas, its
``ptxas -v`` statistics).

* driver.py: importing the bindings, the availability probe, CUresult -> typed runtime errors;
* device.py: `CudaDevice` (context, memory, copies, streams);
* module.py: `CudaModule` (cuModuleLoadDataEx with the JIT logs), `CudaFunction` (cuLaunchKernel
  with dynamic shared memory, cuLaunchKernelEx with cluster dims);
* tensor_map.py: TMA descriptors encoded on the host (cuTensorMapEncodeTiled);
* toolchain.py: `CudaToolchain` (works without a GPU: ptxas and cuobjdump are enough).

`register_cuda_runtime()` registers the device and the toolchain as lazy factories (called from
the backend's ``register_backend()``; importing this package imports nothing else).
"""

from __future__ import annotations

_PKG = "tirx_mlir.backends.cuda.runtime"


def register_cuda_runtime() -> None:
    from tirx_mlir import registry
    from tirx_mlir.registry import Lazy

    registry.register_device("cuda", Lazy(f"{_PKG}.device", "CudaDevice"))
    registry.register_toolchain("cuda", Lazy(f"{_PKG}.toolchain", "CudaToolchain"))
