"""The ``nvshmem`` dialect: NVSHMEM's device API (PEs, one-sided puts and gets, signals,
point-to-point waits, barriers and ordering), with verifiers for its rules (symmetric memory,
element types, the closed sets of signal operations and comparisons).

Memory operands are ``!tirx.buffer`` values, as in the ``cuda`` dialect (see its docstring for
why not ``memref``); the symmetric heap is ``global`` memory. The ops share the ``cuda``
dialect's syntax and verifier skeleton (`tirx_mlir.backends.cuda.dialects.cuda.base.CudaOp`).

Modules: ``pe`` (my_pe, n_pes), ``rma`` (put, get, put_signal), ``sync`` (signal_op,
signal_wait_until, wait_until, barrier_all, sync_all, quiet, fence), ``checks`` (the rules).
"""

from xdsl.ir import Dialect

from tirx_mlir.backends.cuda.dialects.nvshmem.pe import PE_OPS, MyPeOp, NPesOp
from tirx_mlir.backends.cuda.dialects.nvshmem.rma import RMA_OPS, GetOp, PutOp, PutSignalOp
from tirx_mlir.backends.cuda.dialects.nvshmem.sync import (SYNC_OPS, BarrierAllOp, FenceOp,
                                                           QuietOp, SignalOpOp,
                                                           SignalWaitUntilOp, SyncAllOp,
                                                           WaitUntilOp)

NVSHMEM_OPS = (*PE_OPS, *RMA_OPS, *SYNC_OPS)

NVSHMEM = Dialect("nvshmem", list(NVSHMEM_OPS), [])

__all__ = ["NVSHMEM", "NVSHMEM_OPS", "MyPeOp", "NPesOp", "PutOp", "GetOp", "PutSignalOp",
           "SignalOpOp", "SignalWaitUntilOp", "WaitUntilOp", "BarrierAllOp", "SyncAllOp",
           "QuietOp", "FenceOp"]
