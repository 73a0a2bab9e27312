"""The runtime's errors: each a `TirxError` with a stable code and a hint to fix it.

* `DeviceError`: the base; `DeviceUnavailable`: a device kind that cannot run here (no driver,
  no GPU), with the reason;
* `OutOfMemory`: an allocation the device cannot satisfy, with the numbers (requested, the pool's
  allocated and reserved bytes, the device's free and total);
* `InvalidHandle`: something that is not a live buffer of this device where one is needed;
  `UseAfterFree` (and `DoubleFree`): a freed buffer used (freed) again, naming where it was freed;
* `DeviceLost`: the device failed in a way that poisons it (a kernel fault); every later call
  raises it again;
* `LaunchError`: a launch that does not match the kernel (argument count, shape, dtype, grid);
  `ModuleLoadError`: an image the device refused (with the JIT log); `KernelNotFound`.
"""

from __future__ import annotations

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.interpreter.runtime import format_bytes


class DeviceError(TirxError):
    """An error of a device, its memory or a launch."""

    CODE = "runtime"
    HINT: str | None = None

    def __init__(self, message: str, op=None, *, hint: str | None = None, code: str | None = None):
        super().__init__(message, op, hint=hint or self.HINT, code=code or self.CODE)


class DeviceUnavailable(DeviceError):
    """A device kind that cannot run on this machine (the reason says why)."""

    CODE = "device-unavailable"
    HINT = "use the interpreter device (device='interpreter'), which is always present"


class OutOfMemory(DeviceError):
    """The device cannot hold an allocation, even after the pool returned its cached blocks."""

    CODE = "out-of-memory"

    def __init__(self, device: str, requested: int, *, allocated: int, reserved: int,
                 free: int | None = None, total: int | None = None):
        self.requested, self.allocated, self.reserved = requested, allocated, reserved
        self.free, self.total = free, total
        parts = [f"{format_bytes(allocated)} allocated", f"{format_bytes(reserved)} reserved "
                 f"by the pool"]
        if free is not None and total is not None:
            parts.append(f"{format_bytes(free)} free of {format_bytes(total)}")
        super().__init__(f"{device}: out of memory allocating {format_bytes(requested)} "
                         f"({', '.join(parts)})",
                         hint="free buffers you no longer need, call device.pool.empty_cache(), "
                              "or run a smaller problem")


class InvalidHandle(DeviceError):
    """Not a buffer of this device (another device's, or not a buffer at all)."""

    CODE = "invalid-handle"


class UseAfterFree(InvalidHandle):
    """A buffer used after it was freed."""

    CODE = "use-after-free"
    HINT = "keep the buffer alive until its last use, or allocate a new one"


class DoubleFree(UseAfterFree):
    """A buffer freed twice."""

    CODE = "double-free"
    HINT = "free each buffer once (a buffer freed by the pool's owner is gone)"


class DeviceLost(DeviceError):
    """The device failed (a kernel fault, a reset) and can no longer be used."""

    CODE = "device-lost"
    HINT = "the process must create a new device (restart it); check the kernel for out-of-" \
           "bounds accesses first (the interpreter device reports them with the op)"


class LaunchError(DeviceError):
    """A launch that does not match its kernel."""

    CODE = "launch"


class ModuleLoadError(DeviceError):
    """A module image the device refused to load."""

    CODE = "module-load"


class KernelNotFound(DeviceError):
    """``get_function`` of a name the module does not define."""

    CODE = "kernel-not-found"
