"""Addresses of buffer elements, the register operands of the ``ptx`` ops' ``[addr]`` slots.

``cuda.address %buf, %i : !tirx.buffer<..., S>, index -> T`` is the address of element ``i``
(flat row-major offset) of ``buf``:

* ``T = i64``: the generic address (CUDA C++ ``&buf[i]``; PTX instructions on ``.global``
  take it as is, since the global window is the identity of the generic one on every sm);
* ``T = i32``: the 32-bit shared-window address (``__cvta_generic_to_shared(&buf[i])``, PTX
  ``cvta.to.shared``), what ``.shared`` instructions (``ldmatrix``, ``cp.async``,
  ``mbarrier``, TMA destinations) take; only for ``shared`` / ``shared.dyn`` buffers.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerType
from xdsl.irdl import AnyAttr, operand_def, result_def

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.rules import RuleError


@irdl_op_definition
class AddressOp(CudaOp):
    """The address of ``memory[index]``: i64 generic, or i32 in the shared window.

    ``%a = cuda.address %tile, %c0 : !tirx.buffer<64x64xf16, shared>, index -> i32``
    """

    name = "cuda.address"
    memory = operand_def(AnyAttr())
    index = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    @property
    def shared_window(self) -> bool:
        return self.result.type == IntegerType(32)

    def verify_cuda(self, launch: checks.Launch) -> None:
        mem = checks.buffer("memory", self.memory)
        checks.check_index("index", self.index)
        checks.check_in_bounds(self.index, 1, mem)
        t = self.result.type
        if t not in (IntegerType(32), IntegerType(64)):
            raise RuleError(f"the result must be i64 (a generic address) or i32 (a shared-window "
                            f"address), got {t}")
        if self.shared_window and mem.scope_name not in SHARED_SCOPES:
            raise RuleError(f"an i32 address is a shared-window address, but operand 'memory' is "
                            f"in {mem.scope_name}: use i64")


ADDRESS_OPS = (AddressOp,)
