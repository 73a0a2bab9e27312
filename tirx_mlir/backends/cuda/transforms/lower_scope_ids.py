"""``cuda-lower-scope-ids``: the core's scope ids become CUDA's special registers.

=========================  ==========================================================
``tirx.cta_id d``          ``blockIdx.d``
``tirx.thread_id d``       ``threadIdx.d``
``tirx.lane_id``           ``threadIdx.x % 32`` (1-D blocks: the lane in the warp)
``tirx.warp_id``           ``threadIdx.x / 32``
``tirx.warpgroup_id``      ``threadIdx.x / 128``
``tirx.warp_id_in_wg``     ``threadIdx.x / 32 % 4``
``tirx.thread_id_in_wg``   ``threadIdx.x % 128``
``tirx.cluster_id d``      ``clusterIdx.d``
``tirx.cta_id_in_cluster`` ``%cluster_ctaid.d``
=========================  ==========================================================

Lane, warp and warpgroup ids are derived from ``threadIdx.x``, which numbers the threads of a
1-D block (TIRx's ``LowerTIRxCleanup`` binds them the same way); a kernel with a 2-D or 3-D block
using them fails at the op. ``tirx.cta_id_in_pair`` (sm_100 CTA pairs) has no sm_80/sm_90
meaning and fails at the op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dialects.cuda import ids as cuda_ids
from tirx_mlir.changes import current_changes
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx import kernel as K
from tirx_mlir.dialects.tirx.access import const_index
from tirx_mlir.ir_walk import walk_ops
from tirx_mlir.ir_uses import replace_uses

_DIMS = "xyz"
_FROM_TX = {K.LaneIdOp: (None, 32), K.WarpIdOp: (32, None), K.WarpgroupIdOp: (128, None),
            K.WarpIdInWgOp: (32, 4), K.ThreadIdInWgOp: (None, 128)}
"""scope id -> (divisor, modulus) of threadIdx.x."""
_DIRECT = {K.CtaIdOp: cuda_ids.BlockIdxOp, K.ThreadIdOp: cuda_ids.ThreadIdxOp,
           K.ClusterIdOp: cuda_ids.ClusterIdxOp, K.CtaIdInClusterOp: cuda_ids.ClusterBlockIdxOp}


@dataclass(frozen=True)
class CudaLowerScopeIdsPass(ModulePass):
    """Scope ids -> threadIdx / blockIdx / cluster special registers."""

    name = "cuda-lower-scope-ids"
    REPORTS_CHANGES = True  # each replaced id (its block and users; the new ops sit there)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        changes = current_changes()
        for kernel in K.kernels(op):
            for sid in [o for o in walk_ops(kernel) if isinstance(o, K.ScopeIdOp)]:
                changes.removed(sid)
                b = Builder(InsertPoint.before(sid))
                direct = _DIRECT.get(type(sid))
                if direct is not None:
                    value = b.insert(direct(dim=_DIMS[sid.dim_index])).result
                elif type(sid) in _FROM_TX:
                    if len(kernel.thread_dims()) > 1:
                        raise PassError(f"{sid.name} needs a 1-D block (threadIdx.x numbers its "
                                        f"threads); the kernel has threads "
                                        f"{list(kernel.thread_dims())}", sid,
                                        code="CUDA-SCOPE-ID")
                    div, mod = _FROM_TX[type(sid)]
                    value = b.insert(cuda_ids.ThreadIdxOp(dim="x")).result
                    if div:
                        value = b.insert(arith.DivUIOp(value, const_index(b, div))).result
                    if mod:
                        value = b.insert(arith.RemUIOp(value, const_index(b, mod))).result
                else:
                    raise PassError(f"{sid.name} has no meaning on sm_80/sm_90 GPUs", sid,
                                    code="CUDA-SCOPE-ID")
                replace_uses(sid.result, value)
                sid.detach()
                sid.erase()
