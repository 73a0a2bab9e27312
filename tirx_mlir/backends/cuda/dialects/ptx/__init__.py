"""The ``ptx`` dialect: one op per PTX instruction form, generated from a data table.

Modules: ``schema`` (the row vocabulary), ``table`` (the rows: adding an instruction is adding a
row), ``rules`` (the checks and fragment sizes rows name), ``arch`` (targets, PTX ISA versions,
what a row needs), ``forms`` (legality, mnemonic and operand layout of a variant; variant
enumeration), ``ops`` (the generated ops: syntax and verifiers), ``render`` (the PTX text of an
op, for both printers), ``coverage`` (the generated docs/cuda_ptx_coverage.md).
"""

from xdsl.ir import Dialect

from tirx_mlir.backends.cuda.dialects.ptx.ops import OPS_BY_ROW, PTX_OPS, PtxOp

PTX = Dialect("ptx", list(PTX_OPS), [])

__all__ = ["PTX", "PTX_OPS", "OPS_BY_ROW", "PtxOp"]
