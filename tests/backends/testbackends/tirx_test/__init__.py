"""A test-only backend (not shipped): the ``tirx_test`` target kind, two tags, a pipeline, a
memory scope, a layout axis, and tile-dispatch variants (deferred until the first dispatch).

Load it with tests/backends/testbackends on the backend search path (pytest: the fixture in
conftest.py; tirx-opt: ``TIRX_MLIR_BACKEND_PATH=... TIRX_MLIR_BACKENDS=tirx_test``).

Its variants lower a tile op to ``test.op`` markers carrying ``{variant = "..."}``, and are
steered by the op's ``config`` dictionary, so each dispatch rule is visible in the output.
"""

from __future__ import annotations

REGISTER_CALLS: list[str] = []
"""One entry per register_backend() call (tests check it runs once)."""


def _pipeline(target: str = "test/small"):
    """dispatch for the test backend, then dce"""
    from tirx_mlir.transforms.dce import FastDCEPass as DeadCodeElimination

    from tirx_mlir.transforms.tile_dispatch import TileDispatchPass

    return [TileDispatchPass(target=target), DeadCodeElimination()]


def register_backend() -> None:
    from tirx_mlir import registry
    from tirx_mlir.dispatch import register_dispatch_module
    from tirx_mlir.pipelines import register_pipeline
    from tirx_mlir.target import AttrSpec, TargetKind, register_tag, register_target_kind

    REGISTER_CALLS.append("tirx_test")
    register_target_kind(TargetKind(
        "tirx_test",
        attrs=(AttrSpec("lanes", int, 4, "vector lanes", category="arch"),
               AttrSpec("fast", bool, True, "the fast copy path exists", category="arch"),
               AttrSpec("scratch_bytes", int, 4096, "scratch memory bytes")),
        keys=("tirx_test", "test"), device_type="tirx_test", doc="a test-only target"))
    register_tag("test/small", {"kind": "tirx_test", "lanes": 4})
    register_tag("test/wide", {"kind": "tirx_test", "lanes": 16, "fast": False})
    register_pipeline("tirx_test", _pipeline)
    registry.register_memory_scope("tirx_test.scratch", "test scratch memory")
    registry.register_layout_axis("TLaneX", "memory")
    register_dispatch_module("tirx_test", "tirx_mlir.backends.tirx_test.variants")
