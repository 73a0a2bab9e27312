"""The CUDA driver API through ``cuda-bindings`` (``from cuda.bindings import driver``).

`driver_api()` imports the bindings and runs ``cuInit`` once; `unavailable_reason()` says why the
device cannot run here (no bindings, no driver library, no GPU) without raising. Without a driver
the bindings cannot even load ``libcuda``; the CUDA runtime reports that case as CUDA error 35
(``cudaErrorInsufficientDriver``), and so does the reason given here.

`check(result, what)` unpacks a binding's ``(CUresult, values...)`` tuple and raises the typed
runtime error for a failure: out of memory -> `OutOfMemory`'s numbers come from the pool (here a
bare `OutOfMemory`), an invalid handle -> `InvalidHandle`, a fault that poisons the context
(illegal address, launch failure, ECC...) -> `DeviceLost`, anything else `DeviceError`; each
names the call, the error's name and the driver's description.
"""

from __future__ import annotations

import functools
from typing import Any

from tirx_mlir.runtime.errors import DeviceError, DeviceLost, InvalidHandle, OutOfMemory

INSUFFICIENT_DRIVER = 35
"""cudaErrorInsufficientDriver: what the CUDA runtime reports on a machine without a driver."""

OUT_OF_MEMORY = 2
INVALID_HANDLE = 400
STICKY = frozenset({214, 700, 702, 710, 713, 714, 715, 716, 717, 718, 719, 720, 999})
"""ECC uncorrectable, illegal address, launch timeout, assert, hardware stack error, illegal
instruction, misaligned address, invalid address space, invalid pc, launch failed, cooperative
launch too large... and unknown: errors after which the context cannot be used."""


def bindings() -> Any:
    """The ``driver`` module of cuda-bindings; raises ImportError when it is not installed."""
    from cuda.bindings import driver

    return driver


@functools.lru_cache(maxsize=1)
def unavailable_reason() -> str | None:
    """None when the driver initialises and a GPU exists, else why not."""
    try:
        drv = bindings()
    except ImportError:
        return "cuda-bindings is not installed (pip install cuda-bindings)"
    try:
        (err,) = drv.cuInit(0)
    except Exception as exc:  # noqa: BLE001 - the bindings raise their loader's error types
        return (f"no CUDA driver on this machine (CUDA error {INSUFFICIENT_DRIVER}, "
                f"cudaErrorInsufficientDriver: {str(exc).splitlines()[0]})")
    if int(err) != 0:
        return f"cuInit failed: {error_text(drv, err)}"
    err, count = drv.cuDeviceGetCount()
    if int(err) != 0:
        return f"cuDeviceGetCount failed: {error_text(drv, err)}"
    if count == 0:
        return "the CUDA driver sees no GPU (CUDA error 100, CUDA_ERROR_NO_DEVICE)"
    return None


def driver_api() -> Any:
    """The initialised driver module; `DeviceError` when it cannot run here."""
    from tirx_mlir.runtime.errors import DeviceUnavailable

    reason = unavailable_reason()
    if reason is not None:
        raise DeviceUnavailable(f"the CUDA device is not available: {reason}")
    return bindings()


def error_text(drv: Any, err: Any) -> str:
    """``CUDA_ERROR_X (code): description``."""
    code = int(err)
    try:
        _, name = drv.cuGetErrorName(err)
        _, text = drv.cuGetErrorString(err)
        name = name.decode() if isinstance(name, bytes) else str(name)
        text = text.decode() if isinstance(text, bytes) else str(text)
    except Exception:  # noqa: BLE001 - an error code the driver does not know
        name, text = "CUDA error", "unknown"
    return f"{name} ({code}): {text}"


def check(result: Any, what: str, device: Any = None) -> Any:
    """The values of a binding's result tuple, or the typed error of its CUresult."""
    err, *values = result if isinstance(result, tuple) else (result,)
    code = int(err)
    if code == 0:
        return values[0] if len(values) == 1 else tuple(values) or None
    drv = bindings()
    message = f"{what} failed: {error_text(drv, err)}"
    if code == OUT_OF_MEMORY:
        raise OutOfMemory(getattr(device, "name", "cuda"), 0, allocated=0, reserved=0)
    if code == INVALID_HANDLE:
        raise InvalidHandle(message)
    if code in STICKY:
        if device is not None:
            device.mark_lost(message)
        raise DeviceLost(message)
    raise DeviceError(message)
