"""Where a thread is: thread/block/cluster indices and dimensions (CUDA's ``threadIdx``,
``blockIdx``, ``blockDim``, ``gridDim``, the cluster registers of sm_90), the lane and the warp.

All results are ``index``. Ops with a dimension name it as their head word (``x``, ``y``, ``z``);
the cluster ops need a cluster launch (``cluster [..]`` on the kernel) and sm_90.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.irdl import AnyAttr, prop_def, result_def, traits_def
from xdsl.traits import Pure

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.dialects.def_check import irdl_op_definition

DIMS = ("x", "y", "z")


class _DimOp(CudaOp):
    """A per-dimension special register (index result)."""

    HEAD: ClassVar = ("dim", DIMS)
    RESULTS: ClassVar = ("index",)
    dim = prop_def(StringAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


class _ClusterDimOp(_DimOp):
    MIN_SM: ClassVar = 90
    FEATURE: ClassVar = "thread block clusters"

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.require_cluster(launch, self.FEATURE)


@irdl_op_definition
class ThreadIdxOp(_DimOp):
    """``threadIdx.<dim>``: the thread's index in its block.

    ``%tx = cuda.thread_idx x : index``
    """

    name = "cuda.thread_idx"


@irdl_op_definition
class BlockIdxOp(_DimOp):
    """``blockIdx.<dim>``: the block's index in the grid.

    ``%bx = cuda.block_idx x : index``
    """

    name = "cuda.block_idx"


@irdl_op_definition
class BlockDimOp(_DimOp):
    """``blockDim.<dim>``: threads per block in that dimension.

    ``%n = cuda.block_dim x : index``
    """

    name = "cuda.block_dim"


@irdl_op_definition
class GridDimOp(_DimOp):
    """``gridDim.<dim>``: blocks in the grid in that dimension.

    ``%g = cuda.grid_dim y : index``
    """

    name = "cuda.grid_dim"


@irdl_op_definition
class ClusterIdxOp(_ClusterDimOp):
    """``%clusterid.<dim>`` (cooperative_groups ``cluster_index``): the cluster's index in the
    grid. Needs a cluster launch and sm_90.

    ``%c = cuda.cluster_idx x : index``
    """

    name = "cuda.cluster_idx"


@irdl_op_definition
class ClusterDimOp(_ClusterDimOp):
    """``%cluster_nctaid.<dim>``: blocks per cluster in that dimension. Needs a cluster launch
    and sm_90.

    ``%n = cuda.cluster_dim x : index``
    """

    name = "cuda.cluster_dim"


@irdl_op_definition
class ClusterBlockIdxOp(_ClusterDimOp):
    """``%cluster_ctaid.<dim>``: the block's index inside its cluster. Needs a cluster launch
    and sm_90.

    ``%b = cuda.cluster_block_idx x : index``
    """

    name = "cuda.cluster_block_idx"


class _ScalarIdOp(CudaOp):
    RESULTS: ClassVar = ("index",)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


@irdl_op_definition
class ClusterBlockRankOp(_ScalarIdOp):
    """``%cluster_ctarank``: the block's linear rank inside its cluster. Needs a cluster launch
    and sm_90.

    ``%r = cuda.cluster_block_rank : index``
    """

    name = "cuda.cluster_block_rank"
    MIN_SM: ClassVar = 90
    FEATURE: ClassVar = "thread block clusters"

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.require_cluster(launch, self.FEATURE)


@irdl_op_definition
class LaneIdOp(_ScalarIdOp):
    """``%laneid``: the thread's lane in its warp (0..31).

    ``%l = cuda.lane_id : index``
    """

    name = "cuda.lane_id"


@irdl_op_definition
class WarpIdOp(_ScalarIdOp):
    """The warp's index in its block (linear thread index / 32). The block must hold whole
    warps when the launch is known.

    ``%w = cuda.warp_id : index``
    """

    name = "cuda.warp_id"

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.require_threads_multiple(launch, checks.WARP_SIZE, "warp ids")


ID_OPS = (ThreadIdxOp, BlockIdxOp, BlockDimOp, GridDimOp, ClusterIdxOp, ClusterDimOp,
          ClusterBlockIdxOp, ClusterBlockRankOp, LaneIdOp, WarpIdOp)
