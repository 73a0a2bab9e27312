"""Remote memory access: ``nvshmem.put``, ``nvshmem.get`` and ``nvshmem.put_signal``.

Each moves ``nelems`` (index) elements. ``group`` says who calls it together: ``thread``
(default, ``nvshmem_<T>_put``), ``warp`` (``nvshmemx_<T>_put_warp``) or ``block``
(``nvshmemx_<T>_put_block``); ``nbi`` makes it non-blocking (``*_nbi``: complete after
``nvshmem.quiet``). The symmetric side must be global memory; both sides hold one element type.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr, UnitAttr
from xdsl.irdl import AnyAttr, operand_def, opt_prop_def, prop_def

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.backends.cuda.dialects.nvshmem import checks as shmem
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.rules import RuleError


class _RmaOp(CudaOp):
    """A transfer between ``dest`` and ``source`` (subclasses declare the operands: IRDL orders
    a subclass's fields before its base's)."""

    KEYWORDS: ClassVar = {"group": "name", "nbi": "flag"}
    REMOTE: ClassVar[str] = "dest"
    """The operand on the symmetric heap (on PE ``pe``)."""

    def verify_cuda(self, launch: checks.Launch) -> None:
        local_name = "source" if self.REMOTE == "dest" else "dest"
        remote = shmem.symmetric(self.REMOTE, getattr(self, self.REMOTE))
        near = shmem.local(local_name, getattr(self, local_name))
        dest, source = (remote, near) if self.REMOTE == "dest" else (near, remote)
        if dest.element_type != source.element_type:
            raise RuleError(f"dest holds {dest.element_type} but source holds "
                            f"{source.element_type}; both sides hold one element type")
        checks.check_index("nelems", self.nelems)
        shmem.check_pe(self.pe)
        shmem.check_group(self.name_prop("group", "thread") or "thread")


class _CopyOp(_RmaOp):
    """A put or a get: ``nelems`` elements between ``dest`` and ``source`` on PE ``pe``."""

    dest = operand_def(AnyAttr())
    source = operand_def(AnyAttr())
    nelems = operand_def(AnyAttr())
    pe = operand_def(AnyAttr())
    group = opt_prop_def(StringAttr)
    nbi = opt_prop_def(UnitAttr)


@irdl_op_definition
class PutOp(_CopyOp):
    """Copy ``nelems`` elements from local ``source`` to ``dest`` on PE ``pe``.

    ``nvshmem.put %remote, %local, %n, %peer group warp nbi : !tirx.buffer<1024xf32, global>,
    !tirx.buffer<1024xf32, global>, index, i32``
    """

    name = "nvshmem.put"


@irdl_op_definition
class GetOp(_CopyOp):
    """Copy ``nelems`` elements from ``source`` on PE ``pe`` into local ``dest``.

    ``nvshmem.get %local, %remote, %n, %peer : !tirx.buffer<256xbf16, shared>,
    !tirx.buffer<256xbf16, global>, index, i32``
    """

    name = "nvshmem.get"
    REMOTE: ClassVar = "source"


@irdl_op_definition
class PutSignalOp(_RmaOp):
    """Put, then update ``signal`` on PE ``pe`` with ``signal_value`` (i64) by the head's
    operation (``set`` or ``add``) once the data has arrived (``nvshmem_<T>_put_signal``).

    ``nvshmem.put_signal add %remote, %local, %n, %flag, %one, %peer nbi :
    !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index,
    !tirx.buffer<1xi64, global>, i64, i32``
    """

    name = "nvshmem.put_signal"
    HEAD: ClassVar = ("signal_op", shmem.SIGNAL_OPS)
    signal_op = prop_def(StringAttr)
    dest = operand_def(AnyAttr())
    source = operand_def(AnyAttr())
    nelems = operand_def(AnyAttr())
    signal = operand_def(AnyAttr())
    signal_value = operand_def(AnyAttr())
    pe = operand_def(AnyAttr())
    group = opt_prop_def(StringAttr)
    nbi = opt_prop_def(UnitAttr)

    def verify_cuda(self, launch: checks.Launch) -> None:
        super().verify_cuda(launch)
        shmem.signal("signal", self.signal)
        checks.check_type("signal_value", self.signal_value, ("i64",),
                          "a signal is a 64-bit word")


RMA_OPS = (PutOp, GetOp, PutSignalOp)
