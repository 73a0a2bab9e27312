"""The Metal backend (Apple GPUs): the ``metal`` target kind, Apple tags and the ``metal`` device
detector. No code generation yet: a kernel for ``metal`` can be described, verified and
interpreted, not compiled.

The detector is a real probe on macOS (``sysctl machdep.cpu.brand_string`` names the Apple chip);
elsewhere it raises DeviceNotFoundError.
"""

from __future__ import annotations

import sys
from typing import Any

BACKEND_NAME = "metal"

_HOST = {"kind": "llvm", "mtriple": "arm64-apple-macos"}


def _metal_kind():
    from tirx_mlir.target import AttrSpec, TargetKind

    return TargetKind(
        "metal",
        attrs=(
            AttrSpec("max_num_threads", int, 256, "threads per threadgroup the scheduler uses"),
            AttrSpec("max_threads_per_block", int, 256, "threads per threadgroup"),
            AttrSpec("max_shared_memory_per_block", int, 32768, "threadgroup memory bytes"),
            AttrSpec("thread_warp_size", int, 16, "SIMD-group width"),
            AttrSpec("max_function_args", int, 31, "buffer arguments of a kernel"),
        ),
        keys=("metal", "gpu"),
        device_type="metal",
        doc="Apple GPUs (Metal Shading Language; no code generation yet)",
    )


def _apple_gpu(mcpu: str, threads: int) -> dict[str, Any]:
    return {"kind": "metal", "max_num_threads": threads, "max_threads_per_block": threads,
            "max_shared_memory_per_block": 32768, "thread_warp_size": 32,
            "host": {**_HOST, "mcpu": mcpu}}


METAL_TAGS = {
    "apple/m1-gpu": _apple_gpu("apple-m1", 1024),
    "apple/m1-gpu-restricted": _apple_gpu("apple-m1", 256),
    "apple/m2-gpu": _apple_gpu("apple-m2", 1024),
}


def detect_metal_target(device: Any):
    from tirx_mlir.target import DeviceNotFoundError, Target

    import subprocess

    if sys.platform != "darwin":
        raise DeviceNotFoundError(f"no Metal device: Metal exists only on macOS (this is "
                                  f"{sys.platform}); give the target explicitly, e.g. "
                                  f"Target('apple/m2-gpu')")
    try:
        brand = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                               text=True, timeout=2, check=False).stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        raise DeviceNotFoundError(f"no Metal device: cannot query the chip ({err})") from None
    if not brand.startswith("Apple M"):
        raise DeviceNotFoundError(f"no Apple-silicon GPU found (chip: {brand or 'unknown'})")
    generation = brand.split()[1].lower()  # "m1", "m2", "m3"...
    return Target({**_apple_gpu(f"apple-{generation}", 1024), "model": brand})


def register_backend() -> None:
    """Register the metal kind, the Apple tags and the ``metal`` detector."""
    from tirx_mlir.target import register_device_target_detector, register_tag, register_target_kind

    register_target_kind(_metal_kind())
    for name, config in METAL_TAGS.items():
        register_tag(name, config)
    register_device_target_detector("metal", detect_metal_target)
