"""The ``cuda`` device detector: a real probe through the CUDA driver API (``libcuda``, ctypes).

``detect_target_from_device("cuda:0")`` reads the compute capability, SM count, opt-in shared
memory per block, registers, warp size and L2 size of the device and returns a ``cuda`` Target.
Without a driver or device it raises `DeviceNotFoundError`; it never initialises more than the
driver (no context is created).
"""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from tirx_mlir.target import DeviceNotFoundError, Target, parse_device

# CUdevice_attribute values (cuda.h)
ATTR = {
    "max_threads_per_block": 1,
    "warp_size": 10,
    "registers_per_block": 12,
    "multiprocessor_count": 16,
    "l2_cache_size": 38,
    "cc_major": 75,
    "cc_minor": 76,
    "max_shared_memory_per_block_optin": 97,
}

_LIBRARY_NAMES = ("nvcuda.dll",) if sys.platform == "win32" else ("libcuda.so.1", "libcuda.so")


def _driver() -> ctypes.CDLL:
    for name in _LIBRARY_NAMES:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise DeviceNotFoundError("no CUDA device: the CUDA driver library (libcuda) is not "
                              "installed on this machine; give the target explicitly, e.g. "
                              "Target('nvidia/nvidia-h100')")


def _check(lib: ctypes.CDLL, code: int, what: str) -> None:
    if code == 0:
        return
    text = ctypes.c_char_p()
    lib.cuGetErrorString(code, ctypes.byref(text))
    detail = text.value.decode() if text.value else f"error {code}"
    raise DeviceNotFoundError(f"no usable CUDA device: {what} failed ({detail})")


def query_device(index: int = 0) -> dict[str, Any]:
    """The raw attributes of CUDA device ``index`` (``name``, ``cc``, ``ATTR`` keys)."""
    lib = _driver()
    _check(lib, lib.cuInit(0), "cuInit")
    count = ctypes.c_int()
    _check(lib, lib.cuDeviceGetCount(ctypes.byref(count)), "cuDeviceGetCount")
    if index >= count.value:
        raise DeviceNotFoundError(f"no CUDA device {index}: this machine has {count.value}")
    device = ctypes.c_int()
    _check(lib, lib.cuDeviceGet(ctypes.byref(device), index), "cuDeviceGet")
    out: dict[str, Any] = {}
    for key, attr in ATTR.items():
        value = ctypes.c_int()
        _check(lib, lib.cuDeviceGetAttribute(ctypes.byref(value), attr, device),
               f"cuDeviceGetAttribute({key})")
        out[key] = value.value
    name = ctypes.create_string_buffer(256)
    _check(lib, lib.cuDeviceGetName(name, 256, device), "cuDeviceGetName")
    out["name"] = name.value.decode(errors="replace")
    return out


def arch_of(major: int, minor: int) -> str:
    """``sm_<major><minor>``, with the ``a`` suffix on 9.x and later: the probed device is exactly
    that architecture, so its architecture-specific instructions (wgmma, tcgen05) are usable."""
    return f"sm_{major}{minor}{'a' if major >= 9 else ''}"


def detect_cuda_target(device: Any) -> Target:
    _, index = parse_device(device)
    info = query_device(index)
    return Target({
        "kind": "cuda",
        "arch": arch_of(info["cc_major"], info["cc_minor"]),
        "model": info["name"],
        "max_shared_memory_per_block": info["max_shared_memory_per_block_optin"],
        "max_threads_per_block": info["max_threads_per_block"],
        "thread_warp_size": info["warp_size"],
        "registers_per_block": info["registers_per_block"],
        "num_sms": info["multiprocessor_count"],
        "l2_cache_size_bytes": info["l2_cache_size"],
        **({"max_cluster_size": 8} if info["cc_major"] >= 9 else {}),
    })
