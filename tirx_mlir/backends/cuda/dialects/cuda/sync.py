"""Synchronisation: block, warp, warpgroup, cluster and grid barriers, and electing a leader.

``cuda.sync_threads`` is ``__syncthreads()``; ``cuda.sync_threads_vote`` its predicate forms
(``__syncthreads_and/or/count``); ``cuda.sync_warp`` is ``__syncwarp(mask)``;
``cuda.sync_warpgroup`` a named barrier over the 128 threads of a warpgroup (``bar.sync id,
128``, with ``per_warpgroup`` one id per warpgroup); ``cuda.sync_cluster`` ``barrier.cluster.arrive`` + ``wait`` (sm_90, cluster launch);
``cuda.sync_grid`` cooperative groups' ``grid.sync()`` (the kernel must be launched
cooperatively); ``cuda.elect_sync`` PTX ``elect.sync`` (sm_90).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, StringAttr, UnitAttr
from xdsl.irdl import AnyAttr, operand_def, opt_prop_def, prop_def, result_def

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.rules import RuleError

NAMED_BARRIERS = 16
"""Hardware barriers per block (PTX ISA, ``bar``/``barrier``: ids 0..15)."""


@irdl_op_definition
class SyncThreadsOp(CudaOp):
    """``__syncthreads()``: every thread of the block waits here; shared-memory writes before it
    are visible after it.

    ``cuda.sync_threads``
    """

    name = "cuda.sync_threads"


@irdl_op_definition
class SyncThreadsVoteOp(CudaOp):
    """``__syncthreads_and/or/count(pred)``: a block barrier that also reduces a predicate over
    the block (``and``/``or`` give 0 or 1, ``count`` the number of threads with it set).

    ``%n = cuda.sync_threads_vote count %p : i1 -> i32``
    """

    name = "cuda.sync_threads_vote"
    HEAD: ClassVar = ("mode", ("and", "or", "count"))
    RESULTS: ClassVar = ("i32",)
    mode = prop_def(StringAttr)
    pred = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_type("pred", self.pred, ("i1",), "it is the thread's predicate")


@irdl_op_definition
class SyncWarpOp(CudaOp):
    """``__syncwarp(mask)``: the lanes set in ``mask`` (i32) wait for each other.

    ``cuda.sync_warp %mask : i32``
    """

    name = "cuda.sync_warp"
    mask = operand_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_i32("mask", self.mask, "a lane mask")


@irdl_op_definition
class SyncWarpgroupOp(CudaOp):
    """A barrier over one warpgroup (4 consecutive warps, 128 threads): ``bar.sync <id>, 128``.
    ``barrier`` picks one of the block's 16 named barriers (default 0, which ``__syncthreads``
    also uses). With ``per_warpgroup`` each warpgroup ``w`` (``threadIdx.x / 128``) uses its own
    barrier ``barrier + w``, so several warpgroups synchronising at once never share one (a
    shared id would let warps of two warpgroups complete each other's barrier): every id must
    exist, ``barrier + warpgroups - 1 <= 15``. The block must hold whole warpgroups.

    ``cuda.sync_warpgroup barrier 1 per_warpgroup``
    """

    name = "cuda.sync_warpgroup"
    KEYWORDS: ClassVar = {"barrier": "int", "per_warpgroup": "flag"}
    barrier = opt_prop_def(IntegerAttr)
    per_warpgroup = opt_prop_def(UnitAttr)

    def barrier_ids(self, threads: int) -> range:
        """The named barriers a block of ``threads`` uses here."""
        bar = self.int_prop("barrier")
        groups = max(1, threads // checks.WARPGROUP_SIZE) if self.per_warpgroup else 1
        return range(bar, bar + groups)

    def verify_cuda(self, launch: checks.Launch) -> None:
        bar = self.int_prop("barrier")
        if not 0 <= bar < NAMED_BARRIERS:
            raise RuleError(f"barrier {bar} does not exist; a block has named barriers 0.."
                            f"{NAMED_BARRIERS - 1}")
        checks.require_threads_multiple(launch, checks.WARPGROUP_SIZE, "warpgroup barriers")
        if self.per_warpgroup and launch.kernel is not None:
            if len(launch.kernel.thread_dims()) != 1:
                raise RuleError("per_warpgroup barriers number warpgroups by threadIdx.x: the "
                                "block must be 1-D")
            ids = self.barrier_ids(launch.threads)
            if ids[-1] >= NAMED_BARRIERS:
                raise RuleError(f"{len(ids)} warpgroups from barrier {bar} need barriers "
                                f"{bar}..{ids[-1]}; a block has named barriers 0.."
                                f"{NAMED_BARRIERS - 1}")


@irdl_op_definition
class SyncClusterOp(CudaOp):
    """All threads of all blocks of the cluster wait here (``barrier.cluster.arrive`` then
    ``barrier.cluster.wait``; cooperative groups ``cluster.sync()``). Needs sm_90 and a cluster
    launch.

    ``cuda.sync_cluster``
    """

    name = "cuda.sync_cluster"
    MIN_SM: ClassVar = 90
    FEATURE: ClassVar = "cluster barriers"

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.require_cluster(launch, self.FEATURE)


@irdl_op_definition
class SyncGridOp(CudaOp):
    """Every thread of the grid waits here (cooperative groups ``this_grid().sync()``). The
    kernel must be launched cooperatively (``cudaLaunchCooperativeKernel``), with all blocks
    resident at once: the runtime checks that, not the verifier.

    ``cuda.sync_grid``
    """

    name = "cuda.sync_grid"


@irdl_op_definition
class ElectSyncOp(CudaOp):
    """PTX ``elect.sync``: of the lanes in ``mask`` (i32), exactly one gets true. sm_90.

    ``%leader = cuda.elect_sync %mask : i32 -> i1``
    """

    name = "cuda.elect_sync"
    MIN_SM: ClassVar = 90
    FEATURE: ClassVar = "elect.sync"
    RESULTS: ClassVar = ("i1",)
    mask = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_i32("mask", self.mask, "the lanes that take part")


SYNC_OPS = (SyncThreadsOp, SyncThreadsVoteOp, SyncWarpOp, SyncWarpgroupOp, SyncClusterOp,
            SyncGridOp, ElectSyncOp)
