"""The ``cuda`` dialect: CUDA as a kernel author writes it, one op per CUDA C++ built-in or
intrinsic, with verifiers for the rules of the types, the memory spaces, the launch and the
architecture.

Memory operands are the core's ``!tirx.buffer`` values in scope ``global``, ``shared`` (static
``__shared__``) or ``shared.dyn`` (the dynamic arena), the scopes registered by the cuda backend
(backends/cuda/memory.py), not ``memref``: the kernel parameters, the tile primitives and their
dispatch already speak ``!tirx.buffer``, so lowering tile programs to these ops needs no type
conversion and a buffer keeps its memory space in its type (``memref`` would need a second,
parallel vocabulary of memory spaces). Memory ops address a buffer with one ``index`` operand,
the flat row-major element offset, as a pointer plus offset does in CUDA C++. Packed pairs are
``vector<2xf16>`` (half2) and ``vector<2xbf16>`` (bfloat162); vector accesses use
``vector<N x T>``.

Rules about the launch (a cluster launch, whole warps or warpgroups per block) and the
architecture (sm_90 for clusters and elect.sync, sm_80 for bf16) apply inside a ``tirx.kernel``
whose launch and ``target`` state them; outside a kernel only the type and scope rules hold.

Modules, by op family: ``ids`` (thread/block/cluster indices and dims), ``sync`` (barriers,
elect), ``warp`` (shuffles, votes, warp and block reductions), ``atomics``, ``loads`` (vector
loads/stores with cache hints, fences), ``shared`` (static and dynamic shared memory),
``diagnostics`` (printf, clock64, nanosleep, trap), ``math`` (fast intrinsics, packing,
conversions), ``address`` (element addresses for the ptx ops); ``base`` (the shared syntax
and verifier skeleton), ``checks`` (the rules, stated once), ``printf_format`` (the accepted
printf conversions).
"""

from xdsl.ir import Dialect

from tirx_mlir.backends.cuda.dialects.cuda.address import ADDRESS_OPS, AddressOp
from tirx_mlir.backends.cuda.dialects.cuda.atomics import ATOMIC_OPS, AtomicCasOp, AtomicOp
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.backends.cuda.dialects.cuda.diagnostics import (DIAGNOSTIC_OPS, Clock64Op,
                                                               NanosleepOp, PrintfOp, TrapOp)
from tirx_mlir.backends.cuda.dialects.cuda.ids import (ID_OPS, BlockDimOp, BlockIdxOp,
                                                       ClusterBlockIdxOp, ClusterBlockRankOp,
                                                       ClusterDimOp, ClusterIdxOp, GridDimOp,
                                                       LaneIdOp, ThreadIdxOp, WarpIdOp)
from tirx_mlir.backends.cuda.dialects.cuda.loads import LOAD_STORE_OPS, FenceOp, LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.cuda.math import (MATH_OPS, CvtOp, FastMathOp, FdividefOp,
                                                        PackOp, UnpackOp)
from tirx_mlir.backends.cuda.dialects.cuda.shared import (SHARED_OPS, DynamicSharedOp,
                                                          SharedAllocOp)
from tirx_mlir.backends.cuda.dialects.cuda.sync import (SYNC_OPS, ElectSyncOp, SyncClusterOp,
                                                        SyncGridOp, SyncThreadsOp,
                                                        SyncThreadsVoteOp, SyncWarpgroupOp,
                                                        SyncWarpOp)
from tirx_mlir.backends.cuda.dialects.cuda.warp import (WARP_OPS, ActiveMaskOp, CtaReduceOp,
                                                        ShflSyncOp, VoteOp, WarpReduceOp)

CUDA_OPS = (*ID_OPS, *SYNC_OPS, *WARP_OPS, *ATOMIC_OPS, *LOAD_STORE_OPS, *SHARED_OPS,
            *DIAGNOSTIC_OPS, *MATH_OPS, *ADDRESS_OPS)

CUDA = Dialect("cuda", list(CUDA_OPS), [])

__all__ = ["CUDA", "CUDA_OPS", "ID_OPS", "CudaOp", "ThreadIdxOp", "BlockIdxOp", "BlockDimOp",
           "GridDimOp",
           "ClusterIdxOp", "ClusterDimOp", "ClusterBlockIdxOp", "ClusterBlockRankOp", "LaneIdOp",
           "WarpIdOp", "SyncThreadsOp", "SyncThreadsVoteOp", "SyncWarpOp", "SyncWarpgroupOp",
           "SyncClusterOp", "SyncGridOp", "ElectSyncOp", "ShflSyncOp", "VoteOp", "ActiveMaskOp",
           "WarpReduceOp", "CtaReduceOp", "AtomicOp", "AtomicCasOp", "LoadOp", "StoreOp",
           "FenceOp", "SharedAllocOp", "DynamicSharedOp", "PrintfOp", "Clock64Op", "NanosleepOp",
           "TrapOp", "FastMathOp", "FdividefOp", "PackOp", "UnpackOp", "CvtOp", "AddressOp"]
