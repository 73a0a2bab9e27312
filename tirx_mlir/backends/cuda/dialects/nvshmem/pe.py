"""The calling PE's number and the number of PEs (``nvshmem_my_pe``, ``nvshmem_n_pes``)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.irdl import AnyAttr, result_def, traits_def
from xdsl.traits import Pure

from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.dialects.def_check import irdl_op_definition


@irdl_op_definition
class MyPeOp(CudaOp):
    """``nvshmem_my_pe()``: this PE's number, 0 .. n_pes - 1.

    ``%me = nvshmem.my_pe : i32``
    """

    name = "nvshmem.my_pe"
    RESULTS: ClassVar = ("i32",)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


@irdl_op_definition
class NPesOp(CudaOp):
    """``nvshmem_n_pes()``: the number of PEs in the job.

    ``%n = nvshmem.n_pes : i32``
    """

    name = "nvshmem.n_pes"
    RESULTS: ClassVar = ("i32",)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


PE_OPS = (MyPeOp, NPesOp)
