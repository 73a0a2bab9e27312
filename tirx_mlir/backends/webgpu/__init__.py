"""The WebGPU backend: the ``webgpu`` target kind. No code generation yet, no tags and no device
detector (a WebGPU device lives in a browser or a native WebGPU runtime, neither of which the
compiler process can probe), as in TVM.
"""

from __future__ import annotations

BACKEND_NAME = "webgpu"


def _webgpu_kind():
    from tirx_mlir.target import AttrSpec, TargetKind

    return TargetKind(
        "webgpu",
        attrs=(
            AttrSpec("max_num_threads", int, 256, "invocations per workgroup"),
            AttrSpec("max_shared_memory_per_block", int, 16384,
                     "workgroup storage bytes (WebGPU's guaranteed minimum limit)"),
            AttrSpec("supports_subgroups", bool, False, "the subgroups feature", category="arch"),
            AttrSpec("supports_float16", bool, False, "the shader-f16 feature", category="arch"),
        ),
        keys=("webgpu", "gpu"),
        device_type="webgpu",
        doc="WebGPU compute (WGSL; no code generation yet)",
    )


def register_backend() -> None:
    """Register the webgpu kind."""
    from tirx_mlir.target import register_target_kind

    register_target_kind(_webgpu_kind())
