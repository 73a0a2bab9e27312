"""The CUDA backend: the ``cuda`` target kind, the NVIDIA tags and the ``cuda`` device detector.

`register_backend()` is the one place that registers what the backend provides. Today that is
the target description (target_tags.py), the tensor-memory scope and axes (memory.py) and a real
device probe through the CUDA driver API (detect.py); the CUDA dialects, tile-dispatch variants, pipeline and printers land in this
folder and are registered here too. Nothing heavy is imported at registration.
"""

from __future__ import annotations

BACKEND_NAME = "cuda"


def detect_cuda_target(device):
    """The ``cuda`` device detector (imports the driver-API probe only when used)."""
    from tirx_mlir.backends.cuda.detect import detect_cuda_target as probe

    return probe(device)


def register_backend() -> None:
    """Register the cuda kind, its tags, the tensor-memory scope and its layout axes, and the
    ``cuda`` device detector."""
    from tirx_mlir.backends.cuda.memory import register_cuda_memory
    from tirx_mlir.backends.cuda.target_tags import register_cuda_target
    from tirx_mlir.target import register_device_target_detector

    register_cuda_target()
    register_cuda_memory()
    register_device_target_detector("cuda", detect_cuda_target)
