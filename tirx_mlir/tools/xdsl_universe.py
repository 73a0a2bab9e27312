"""The ``xdsl.universe`` entry point: lets plain ``xdsl-opt`` read, verify and print tirx IR.

Declared in pyproject.toml as ``tirx_mlir = "tirx_mlir.tools.xdsl_universe:TIRX_UNIVERSE"``.
It exposes the core ``tirx`` dialect and the core passes (lazily, as factories). ``tirx-opt``
does not need it: it registers everything from `tirx_mlir.registry` itself, and skips names the
multiverse already provides, so the two never register a dialect twice.
"""

from __future__ import annotations

from xdsl.universe import Universe


def _tirx_dialect():
    from tirx_mlir.dialects.tirx import TIRX

    return TIRX


def _tile_dispatch_pass():
    from tirx_mlir.transforms.tile_dispatch import TileDispatchPass

    return TileDispatchPass


TIRX_UNIVERSE = Universe(
    all_dialects={"tirx": _tirx_dialect},
    all_passes={"tirx-dispatch": _tile_dispatch_pass},
)
