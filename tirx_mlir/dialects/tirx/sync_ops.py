"""``tirx.cluster_sync``: the one synchronisation the tile level writes, between the CTAs of a
cluster.

Inside a CTA, program order is the meaning of a tile program (every op completes before the
next); CTAs have no order among themselves. A cluster launch (``cluster [..]`` on the kernel)
runs its CTAs together, and ``tirx.cluster_sync cluster`` is where they meet: every CTA of the
cluster reaches it before any goes on, and the distributed-shared-memory copies issued before it
(``tirx.copy_async ... remote_cta %r``) have landed in their destination CTAs after it
(docs/ir.md, "Clusters").
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import irdl_op_definition

from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.tile_base import TileOp


@irdl_op_definition
class ClusterSyncOp(TileOp):
    """Every CTA of the cluster waits here; remote copies issued before it have landed after it.

    ``tirx.cluster_sync cluster``
    """

    name = "tirx.cluster_sync"
    DSTS: ClassVar = ()

    def verify_tile(self) -> None:
        if self.exec_scope != ExecScope.CLUSTER:
            raise rules.RuleError(f"tirx.cluster_sync synchronises a cluster: write "
                                  f"`tirx.cluster_sync cluster`, not {self.exec_scope.value} "
                                  f"scope")


SYNC_OPS = (ClusterSyncOp,)
