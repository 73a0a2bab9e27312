"""A test-only backend whose register_backend() registers a pipeline, a tag, a target kind, a
dispatch variant, a layout axis, a memory scope and a device detector, overrides the core
"cleanup" pipeline, and then raises: loading it must leave no trace.

``BROKEN_SHOULD_FAIL`` lets a test "fix" it and load it again.
"""

from __future__ import annotations

SHOULD_FAIL = [True]
CALLS: list[int] = []


def _passes():
    return []


def register_backend() -> None:
    from tirx_mlir import registry
    from tirx_mlir.dispatch import register_dispatch
    from tirx_mlir.pipelines import register_pipeline
    from tirx_mlir.target import (AttrSpec, Target, TargetKind, register_device_target_detector,
                                  register_tag, register_target_kind)

    CALLS.append(1)
    register_target_kind(TargetKind("broken_kind", attrs=(AttrSpec("x", int, 1),)))
    register_tag("broken/tag", {"kind": "broken_kind", "x": 2})
    register_tag("broken/cuda-tag", {"kind": "cuda", "arch": "sm_80"})
    register_pipeline("broken_pipeline", _passes)
    register_pipeline("cleanup", _passes, override=True)
    register_device_target_detector("broken_dev", lambda d: Target("broken_kind"))
    registry.register_memory_scope("broken.mem", "broken memory")
    registry.register_layout_axis("BrokenAxis", "memory")

    @register_dispatch("copy", "cuda", variant="broken_variant", priority=99)
    def _impl(op, ctx):
        pass

    from tirx_mlir.backends.tirx_broken import helper  # noqa: F401 - a submodule, then a failure

    if SHOULD_FAIL[0]:
        raise RuntimeError("tirx_broken: hardware not supported")
