"""Signals, point-to-point waits, and ordering: ``nvshmem.signal_op``,
``nvshmem.signal_wait_until``, ``nvshmem.wait_until``, ``nvshmem.barrier_all``,
``nvshmem.sync_all``, ``nvshmem.quiet`` and ``nvshmem.fence``.

Comparisons are a closed set (eq, ne, gt, ge, lt, le: ``NVSHMEM_CMP_*``); a wait variable or a
signal is the first element of its buffer (slice a view for another one).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.irdl import AnyAttr, operand_def, opt_prop_def, prop_def, result_def

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.backends.cuda.dialects.nvshmem import checks as shmem
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.rules import RuleError


@irdl_op_definition
class SignalOpOp(CudaOp):
    """Update ``signal`` on PE ``pe``: ``set`` stores ``value``, ``add`` adds it, atomically
    (``nvshmemx_signal_op``).

    ``nvshmem.signal_op add %flag, %one, %peer : !tirx.buffer<1xi64, global>, i64, i32``
    """

    name = "nvshmem.signal_op"
    HEAD: ClassVar = ("signal_op", shmem.SIGNAL_OPS)
    signal_op = prop_def(StringAttr)
    signal = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    pe = operand_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        shmem.signal("signal", self.signal)
        checks.check_type("value", self.value, ("i64",), "a signal is a 64-bit word")
        shmem.check_pe(self.pe)


@irdl_op_definition
class SignalWaitUntilOp(CudaOp):
    """Wait until ``signal <cmp> value`` holds for the local ``signal``; returns the signal's
    value then (``nvshmem_signal_wait_until``).

    ``%seen = nvshmem.signal_wait_until ge %flag, %expected : !tirx.buffer<1xi64, global>, i64
    -> i64``
    """

    name = "nvshmem.signal_wait_until"
    HEAD: ClassVar = ("cmp", shmem.COMPARISONS)
    RESULTS: ClassVar = ("i64",)
    cmp = prop_def(StringAttr)
    signal = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        shmem.signal("signal", self.signal)
        checks.check_type("value", self.value, ("i64",), "a signal is a 64-bit word")


@irdl_op_definition
class WaitUntilOp(CudaOp):
    """Wait until ``ivar <cmp> value`` holds for the local symmetric variable ``ivar``
    (``nvshmem_<T>_wait_until``; T is i32, ui32 or i64, the same for both).

    ``nvshmem.wait_until eq %ready, %one : !tirx.buffer<1xi32, global>, i32``
    """

    name = "nvshmem.wait_until"
    HEAD: ClassVar = ("cmp", shmem.COMPARISONS)
    cmp = prop_def(StringAttr)
    ivar = operand_def(AnyAttr())
    value = operand_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        ivar = shmem.symmetric("ivar", self.ivar)
        if checks.type_name(ivar.element_type) not in shmem.WAIT_TYPES:
            raise RuleError(f"operand 'ivar' holds {ivar.element_type}; a wait variable is "
                            f"{checks.one_of(shmem.WAIT_TYPES)}")
        checks.check_same_type("operand 'value'", ivar.element_type, self.value.type,
                               "it is compared with the buffer's element")


class _GroupOp(CudaOp):
    KEYWORDS: ClassVar = {"group": "name"}

    def verify_cuda(self, launch: checks.Launch) -> None:
        shmem.check_group(self.name_prop("group", "thread") or "thread")


@irdl_op_definition
class BarrierAllOp(_GroupOp):
    """All PEs wait here, after completing their outstanding puts (``nvshmem_barrier_all``;
    ``group warp``/``block``: ``nvshmemx_barrier_all_warp``/``_block``).

    ``nvshmem.barrier_all group block``
    """

    name = "nvshmem.barrier_all"
    group = opt_prop_def(StringAttr)


@irdl_op_definition
class SyncAllOp(_GroupOp):
    """All PEs wait here, without completing outstanding puts (``nvshmem_sync_all``; ``group
    warp``/``block`` as barrier_all).

    ``nvshmem.sync_all``
    """

    name = "nvshmem.sync_all"
    group = opt_prop_def(StringAttr)


@irdl_op_definition
class QuietOp(CudaOp):
    """Complete every outstanding put, get and signal of this thread (``nvshmem_quiet``).

    ``nvshmem.quiet``
    """

    name = "nvshmem.quiet"


@irdl_op_definition
class FenceOp(CudaOp):
    """Order this thread's puts to each PE: those before the fence arrive before those after
    it (``nvshmem_fence``).

    ``nvshmem.fence``
    """

    name = "nvshmem.fence"


SYNC_OPS = (SignalOpOp, SignalWaitUntilOp, WaitUntilOp, BarrierAllOp, SyncAllOp, QuietOp,
            FenceOp)
