"""``dce`` as xDSL's pass runs it (`region_dce` of the module's body), with canonicalize's
liveness: the live set xDSL's fixpoint reaches, found in one walk (`canonicalize._live_ops`), its
class's traits looked up once. The live set and the deletions are xDSL's, so the IR out is the
IR xDSL's pass gives.

Registered as ``dce`` in place of xDSL's (`tirx_mlir.transforms`), as ``canonicalize`` is. It
reports the ops it erases through a rewriter listener (`tirx_mlir.changes`); a block erased whole
is found by the verifier, which checks in full after IR with a region of several blocks.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from tirx_mlir.changes import change_listener
from tirx_mlir.transforms.canonicalize import FactsByClass, region_dce


class FastDCEPass(DeadCodeElimination):
    """``dce``: the same IR as xDSL's pass, each op's deadness asked once."""

    REPORTS_CHANGES = True
    DETERMINISTIC = True  # what it erases depends on the IR alone (`pipelines._Unchanged`)
    ONLY_ERASES_DEAD_OPS = True  # nothing to do on IR without dead ops (`pipelines._Unchanged`)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        region_dce(op.body, change_listener(), FactsByClass.shared())
