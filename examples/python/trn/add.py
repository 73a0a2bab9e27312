"""Elementwise adds on one [128, 512] f32 SBUF tile: C = A + B (two tiles, tensor_tensor), then C =
C + 2.0 (a constant, tensor_scalar) and C = C * s (a per-row [128, 1] scale broadcast along the
free dim, tensor_scalar with a vector operand). (Python twin of examples/trn/add.mlir.)

    python examples/python/trn/add.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def add(A: Tx.Buffer[(128, 512), "f32"],
        B: Tx.Buffer[(128, 512), "f32"],
        S: Tx.Buffer[(128, 1), "f32"],
        C: Tx.Out[(128, 512), "f32"]):
    a = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    b = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    s = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    Tx.copy(a, A)
    Tx.copy(b, B)
    Tx.copy(s, S)
    Tx.add(a, a, b)
    Tx.add(a, a, 2.0)
    Tx.mul(a, s, a)
    Tx.copy(C, a)
