"""The runtime: devices, their memory pools, modules that load and launch kernels, and
``compile`` with its disk cache (docs/runtime.md).

    from tirx_mlir.runtime import get_device
    dev = get_device("interpreter")                 # always present; "cuda:0" where a GPU is
    buf = dev.alloc(shape=(1024,), dtype="f32"); dev.copy_h2d(buf, x); dev.pool.stats()
    art = tirx_mlir.compile(ir, target=...); y = art.run(x, device=dev)

Modules (small, one subject each): `errors` (typed `TirxError`s), `buffer` (`DeviceBuffer`),
`pool` (the caching allocator), `device` (`Device`, `Stream`), `signature` (a kernel's
parameters and the launch check), `module` (`Module`, `Function`), `interpreter_device`,
`devices` (``get_device`` over `tirx_mlir.registry.devices`), `toolchain` (what compile makes
per target kind), `arrays` (numpy and DLPack), `artifact`, `cache`, `compiler`.
Names below are imported on first use, so ``import tirx_mlir.runtime`` is cheap.
"""

from __future__ import annotations

_LAZY = {
    "get_device": "devices", "available_devices": "devices", "default_device": "devices",
    "Device": "device", "Stream": "device", "DeviceBuffer": "buffer",
    "MemoryPool": "pool", "PoolStats": "pool", "size_class": "pool",
    "Module": "module", "Function": "module", "KernelSignature": "signature", "Param": "signature",
    "InterpreterDevice": "interpreter_device", "Toolchain": "toolchain", "Build": "toolchain",
    "Artifact": "artifact", "compile": "compiler", "CompileCache": "cache",
    "DeviceError": "errors", "DeviceUnavailable": "errors", "OutOfMemory": "errors",
    "InvalidHandle": "errors", "UseAfterFree": "errors", "DoubleFree": "errors",
    "DeviceLost": "errors", "LaunchError": "errors", "ModuleLoadError": "errors",
    "KernelNotFound": "errors",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'tirx_mlir.runtime' has no attribute '{name}'")
    import importlib

    value = getattr(importlib.import_module(f"tirx_mlir.runtime.{module}"), name)
    globals()[name] = value
    return value
