"""The ``tirx`` dialect: tile primitives on buffers with a memory scope and a layout, execution
scopes, scope ids and kernels with a launch configuration.

Submodules: ``attributes`` (types/attributes), ``layout`` (the TileLayout algebra), ``kernel``
(kernels, scope ids), ``buffer_ops`` (alloc, slice, load, store), ``tile_base`` and ``tile_ops``
(the 31 tile primitives), ``rules`` (shape rules shared by verifier, interpreter and dispatch),
``memory_space`` (the physical shape of a backend's memory, for the allocator and memory model).
"""

from xdsl.ir import Dialect

from tirx_mlir.dialects.tirx.attributes import (BufferType, ExecScope, ExecScopeAttr, LayoutAttr,
                                                TargetAttr)
from tirx_mlir.dialects.tirx.access import (AccessPattern, IndexExpr, Region, resolve_access,
                                            resolve_region)
from tirx_mlir.dialects.tirx.buffer_ops import (AllocOp, LoadOp, ReshapeOp, SliceOp, StoreOp,
                                                TransposeOp)
from tirx_mlir.dialects.tirx.kernel import SCOPE_ID_OPS, KernelOp, ReturnOp, ScopeIdOp
from tirx_mlir.dialects.tirx.layout import Iter, Swizzle, TileLayout
from tirx_mlir.dialects.tirx.tile_base import DISPATCHED_ATTR, TileOp
from tirx_mlir.dialects.tirx.tile_ops import *  # noqa: F401,F403  (the 31 primitives)
from tirx_mlir.dialects.tirx.tile_ops import TILE_OPS
from tirx_mlir.dialects.tirx.sync_ops import SYNC_OPS, ClusterSyncOp

TIRX = Dialect(
    "tirx",
    [KernelOp, ReturnOp, *SCOPE_ID_OPS, AllocOp, SliceOp, TransposeOp, ReshapeOp, LoadOp,
     StoreOp, *TILE_OPS, *SYNC_OPS],
    [BufferType, LayoutAttr, ExecScopeAttr, TargetAttr],
)

__all__ = ["TIRX", "BufferType", "ExecScope", "ExecScopeAttr", "LayoutAttr", "TargetAttr",
           "AllocOp", "SliceOp", "TransposeOp", "ReshapeOp", "LoadOp", "StoreOp", "Region",
           "AccessPattern", "IndexExpr", "resolve_region", "resolve_access",
           "KernelOp", "ReturnOp", "ScopeIdOp", "SCOPE_ID_OPS", "TileLayout", "Iter", "Swizzle",
           "TileOp", "TILE_OPS", "SYNC_OPS", "ClusterSyncOp", "DISPATCHED_ATTR"]
