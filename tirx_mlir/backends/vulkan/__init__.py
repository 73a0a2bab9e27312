"""The Vulkan backend: the ``vulkan`` target kind and the ``vulkan`` device detector.
No code generation yet. As in TVM, no tags of its own (``adreno`` adds Qualcomm tags on it).

The detector checks for the Vulkan loader; querying a physical device's limits needs a Vulkan
instance, which this backend does not create yet, so with a loader present it asks for an
explicit target instead of guessing. Without a loader: DeviceNotFoundError.
"""

from __future__ import annotations

from typing import Any

BACKEND_NAME = "vulkan"

_FEATURES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "8bit_buffer",
             "16bit_buffer", "storage_buffer_storage_class", "push_descriptor",
             "dedicated_allocation", "integer_dot_product", "cooperative_matrix")


def _vulkan_kind():
    from tirx_mlir.target import AttrSpec, TargetKind

    supports = tuple(AttrSpec(f"supports_{f}", bool, f in ("float32", "int32"),
                              f"device supports {f.replace('_', ' ')}", category="arch")
                     for f in _FEATURES)
    return TargetKind(
        "vulkan",
        attrs=(
            AttrSpec("mattr", list, None, "SPIR-V capabilities/extensions", category="arch"),
            *supports,
            AttrSpec("max_num_threads", int, 256, "invocations per workgroup the scheduler uses"),
            AttrSpec("max_threads_per_block", int, 256, "invocations per workgroup"),
            AttrSpec("thread_warp_size", int, 1, "subgroup size the code may assume"),
            AttrSpec("max_block_size_x", int, 256, "workgroup size x"),
            AttrSpec("max_block_size_y", int, 256, "workgroup size y"),
            AttrSpec("max_block_size_z", int, 64, "workgroup size z"),
            AttrSpec("max_push_constants_size", int, 128, "push-constant bytes"),
            AttrSpec("max_uniform_buffer_range", int, 16384, "uniform buffer bytes"),
            AttrSpec("max_storage_buffer_range", int, 1 << 27, "storage buffer bytes"),
            AttrSpec("max_per_stage_descriptor_storage_buffer", int, 4,
                     "storage buffers per shader stage"),
            AttrSpec("max_shared_memory_per_block", int, 16384, "workgroup memory bytes"),
            AttrSpec("supported_subgroup_operations", int, 0, "VkSubgroupFeatureFlags bits"),
            AttrSpec("driver_version", int, None, "driver version", category="meta"),
            AttrSpec("vulkan_api_version", int, None, "Vulkan API version", category="meta"),
            AttrSpec("max_spirv_version", int, None, "SPIR-V version", category="meta"),
            AttrSpec("device_name", str, None, "physical device name", category="meta"),
            AttrSpec("device_type", str, None, "integrated, discrete, virtual or cpu",
                     category="meta"),
        ),
        keys=("vulkan", "gpu"),
        device_type="vulkan",
        doc="Vulkan compute (SPIR-V; no code generation yet)",
    )


def detect_vulkan_target(device: Any):
    import ctypes.util

    from tirx_mlir.target import DeviceNotFoundError, TargetError

    if ctypes.util.find_library("vulkan") is None:
        raise DeviceNotFoundError("no Vulkan device: the Vulkan loader (libvulkan) is not "
                                  "installed; give the target explicitly, e.g. Target('vulkan')")
    raise TargetError("a Vulkan loader is installed, but reading a device's limits needs a "
                      "Vulkan instance, which tirx_mlir does not create yet; give the target "
                      "explicitly, e.g. Target('vulkan -max_threads_per_block=1024 "
                      "-supports_float16=true')")


def register_backend() -> None:
    """Register the vulkan kind and the ``vulkan`` detector."""
    from tirx_mlir.target import register_device_target_detector, register_target_kind

    register_target_kind(_vulkan_kind())
    register_device_target_detector("vulkan", detect_vulkan_target)
