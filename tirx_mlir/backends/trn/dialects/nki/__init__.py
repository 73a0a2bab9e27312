"""The ``nki`` dialect: one op per NKI ISA instruction, on tiles (``!tirx.buffer`` values in
trn.sbuf, trn.psum or global; partition dim first on chip), with verifiers that enforce the
Trainium limits of the kernel's target (backends/trn/target_tags.py, defaults otherwise).

Modules: ``tables`` (ALU operators, activation functions), ``checks`` (the hardware rules),
``base`` (shared syntax and verifier skeleton), ``movement`` (DMA, copies, fills),
``tensor_engine`` (matmul, transpose), ``compute`` (Vector/Scalar/GpSimd instructions).
"""

from xdsl.ir import Dialect

from tirx_mlir.backends.trn.dialects.nki.base import NkiOp
from tirx_mlir.backends.trn.memory import ADDR_ATTR
from tirx_mlir.backends.trn.dialects.nki.compute import (COMPUTE_OPS, ActivationOp,
                                                         ActivationReduceOp, AffineSelectOp,
                                                         ReciprocalOp, ScalarTensorTensorOp,
                                                         SelectOp, TensorReduceOp,
                                                         TensorScalarOp, TensorScalarReduceOp,
                                                         TensorTensorOp)
from tirx_mlir.backends.trn.dialects.nki.movement import (MOVEMENT_OPS, DmaCopyOp, IdentityOp,
                                                          IotaOp, LoadOp, MemsetOp, StoreOp,
                                                          TensorCopyOp)
from tirx_mlir.backends.trn.dialects.nki.tensor_engine import (TENSOR_ENGINE_OPS, MatmulOp,
                                                               TransposeOp)
from tirx_mlir.dialects.fast_accessors import install_fast_accessors
from tirx_mlir.lazy_op_definitions import when_defined

NKI_OPS = (*MOVEMENT_OPS, *TENSOR_ENGINE_OPS, *COMPUTE_OPS)

for _op in NKI_OPS:  # named constructs read by position, segment sizes decoded once
    when_defined(_op, install_fast_accessors)

NKI = Dialect("nki", list(NKI_OPS), [])

__all__ = ["NKI", "NKI_OPS", "NkiOp", "ADDR_ATTR", "LoadOp", "StoreOp", "DmaCopyOp",
           "TensorCopyOp", "MemsetOp", "IotaOp", "IdentityOp", "MatmulOp", "TransposeOp",
           "ActivationOp", "ActivationReduceOp", "ReciprocalOp", "TensorReduceOp",
           "TensorTensorOp", "TensorScalarOp", "TensorScalarReduceOp", "ScalarTensorTensorOp",
           "SelectOp", "AffineSelectOp"]
