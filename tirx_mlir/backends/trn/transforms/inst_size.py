"""``trn-max-inst-size``: set a default instruction free size on every tile primitive.

``trn-max-inst-size{max_inst_size=1024}`` adds ``config {max_inst_size = 1024}`` to each tile op
that does not set it itself, so the ``trn`` pipeline's ``max_inst_size`` option reaches every
dispatch variant through the op's config (TIRx's per-op ``max_inst_size`` key).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, ModuleOp, i64
from xdsl.passes import ModulePass

from tirx_mlir.changes import current_changes
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.tile_base import TileOp

KEY = "max_inst_size"


@dataclass(frozen=True)
class TrnMaxInstSizePass(ModulePass):
    """Default ``config {max_inst_size = N}`` for tile primitives that do not set it."""

    name = "trn-max-inst-size"
    REPORTS_CHANGES = True  # each tile op given a config

    max_inst_size: int = 512

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_inst_size <= 0:
            raise PassError(f"max_inst_size must be positive, got {self.max_inst_size}", op)
        changes = current_changes()
        for tile in op.walk():
            if not isinstance(tile, TileOp):
                continue
            config = tile.config_dict()
            if KEY not in config:
                config[KEY] = IntegerAttr(self.max_inst_size, i64)
                tile.properties["config"] = DictionaryAttr(config)
                changes.changed(tile)
