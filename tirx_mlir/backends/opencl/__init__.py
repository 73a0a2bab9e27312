"""The OpenCL backend: the ``opencl`` target kind and the ``opencl`` device detector.
No code generation yet. As in TVM, no tags of its own (``adreno`` adds Qualcomm tags on it).

The detector is a real probe through the OpenCL ICD loader (``libOpenCL``, ctypes): it lists
the devices of every platform and reads the work-group size, local memory and compute units of
the one asked for. Without a loader or a device: DeviceNotFoundError.
"""

from __future__ import annotations

from typing import Any

BACKEND_NAME = "opencl"

CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002
CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004
CL_DEVICE_LOCAL_MEM_SIZE = 0x1023
CL_DEVICE_NAME = 0x102B


def _opencl_kind():
    from tirx_mlir.target import AttrSpec, TargetKind

    return TargetKind(
        "opencl",
        attrs=(
            AttrSpec("max_threads_per_block", int, 256, "work-items per work-group"),
            AttrSpec("max_num_threads", int, 256, "work-items per work-group the scheduler uses"),
            AttrSpec("max_shared_memory_per_block", int, 16384, "local memory bytes"),
            AttrSpec("thread_warp_size", int, 1, "sub-group width the code may assume"),
            AttrSpec("num_compute_units", int, None, "compute units"),
            AttrSpec("texture_spatial_limit", int, 16384, "maximum image width/height"),
            AttrSpec("texture_depth_limit", int, 2048, "maximum image array depth"),
            AttrSpec("max_function_args", int, 128, "kernel arguments"),
            AttrSpec("image_base_address_alignment", int, 64, "image base alignment (bytes)"),
        ),
        keys=("opencl", "gpu"),
        device_type="opencl",
        doc="OpenCL devices (no code generation yet)",
    )


def _library():
    import ctypes
    import ctypes.util

    from tirx_mlir.target import DeviceNotFoundError

    name = ctypes.util.find_library("OpenCL")
    for candidate in (name, "libOpenCL.so.1"):
        if not candidate:
            continue
        try:
            return ctypes.CDLL(candidate)
        except OSError:
            continue
    raise DeviceNotFoundError("no OpenCL device: the OpenCL ICD loader (libOpenCL) is not "
                              "installed; give the target explicitly, e.g. Target('opencl')")


def list_devices() -> list[tuple[Any, Any]]:
    """``[(library, cl_device_id)]`` of every device of every platform."""
    import ctypes

    from tirx_mlir.target import DeviceNotFoundError

    lib = _library()
    count = ctypes.c_uint32()
    if lib.clGetPlatformIDs(0, None, ctypes.byref(count)) != 0 or count.value == 0:
        raise DeviceNotFoundError("no OpenCL device: no OpenCL platform is installed")
    platforms = (ctypes.c_void_p * count.value)()
    lib.clGetPlatformIDs(count.value, platforms, None)
    devices = []
    for platform in platforms:
        n = ctypes.c_uint32()
        if lib.clGetDeviceIDs(ctypes.c_void_p(platform), ctypes.c_uint64(CL_DEVICE_TYPE_ALL), 0,
                              None, ctypes.byref(n)) != 0:
            continue
        ids = (ctypes.c_void_p * n.value)()
        lib.clGetDeviceIDs(ctypes.c_void_p(platform), ctypes.c_uint64(CL_DEVICE_TYPE_ALL),
                           n.value, ids, None)
        devices += [(lib, ctypes.c_void_p(d)) for d in ids]
    return devices


def _info(lib: Any, device: Any, param: int, ctype: Any) -> Any:
    import ctypes

    value = ctype()
    lib.clGetDeviceInfo(device, ctypes.c_uint32(param), ctypes.sizeof(value), ctypes.byref(value),
                        None)
    return value.value


def detect_opencl_target(device: Any):
    import ctypes

    from tirx_mlir.target import DeviceNotFoundError, Target, parse_device

    _, index = parse_device(device)
    devices = list_devices()
    if index >= len(devices):
        raise DeviceNotFoundError(f"no OpenCL device {index}: this machine has {len(devices)}")
    lib, dev = devices[index]
    name = ctypes.create_string_buffer(256)
    lib.clGetDeviceInfo(dev, ctypes.c_uint32(CL_DEVICE_NAME), 256, name, None)
    group = _info(lib, dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, ctypes.c_size_t)
    return Target({"kind": "opencl", "model": name.value.decode(errors="replace"),
                   "max_threads_per_block": group, "max_num_threads": group,
                   "max_shared_memory_per_block": _info(lib, dev, CL_DEVICE_LOCAL_MEM_SIZE,
                                                        ctypes.c_uint64),
                   "num_compute_units": _info(lib, dev, CL_DEVICE_MAX_COMPUTE_UNITS,
                                              ctypes.c_uint32)})


def register_backend() -> None:
    """Register the opencl kind and the ``opencl`` detector."""
    from tirx_mlir.target import register_device_target_detector, register_target_kind

    register_target_kind(_opencl_kind())
    register_device_target_detector("opencl", detect_opencl_target)
