"""Target-neutral passes of tirx_mlir, registered by name in `tirx_mlir.registry.passes`.

Each entry is a zero-argument factory returning the pass class, so a pass module is imported
only when a pipeline uses it (``tirx-opt -p tirx-dispatch{target=...}``). Backends register
their own passes the same way from their ``register_backend()``. ``canonicalize`` here takes the
place of xDSL's pass of that name (the same IR, `canonicalize.py`), so ``-p canonicalize`` and
the pipelines run the same pass.

`allocate` is the liveness-based allocator of on-chip memories that backends' allocation passes
build on (`allocate.AllocatePass`); it needs a backend's memories, so it is not registered here.
"""

from __future__ import annotations

from tirx_mlir import registry


def _tile_dispatch() -> type:
    from tirx_mlir.transforms.tile_dispatch import TileDispatchPass

    return TileDispatchPass


def _check_bounds() -> type:
    from tirx_mlir.transforms.check_bounds import CheckBoundsPass

    return CheckBoundsPass


def _canonicalize() -> type:
    from tirx_mlir.transforms.canonicalize import FastCanonicalizePass

    return FastCanonicalizePass


def _cse() -> type:
    from tirx_mlir.transforms.cleanup import ReportingCSE

    return ReportingCSE


def _dce() -> type:
    from tirx_mlir.transforms.cleanup import ReportingDCE

    return ReportingDCE


CORE_PASSES = {
    "tirx-dispatch": _tile_dispatch,
    "tirx-check-bounds": _check_bounds,
    "canonicalize": _canonicalize,  # xDSL's pass, same IR, cheaper (canonicalize.py)
    "cse": _cse,  # xDSL's passes, reporting their changes (cleanup.py)
    "dce": _dce,
}


def register_core_passes() -> None:
    for name, factory in CORE_PASSES.items():
        registry.passes.register(name, factory, owner="core")


register_core_passes()
