"""TIRx's codegen test nki_add_1 (tests/python/tirx/codegen/test_codegen_nki.py) at tile level: B =
A + 1.0 for a [128, 512] f32 matrix; load, one tensor_scalar, store. (Python twin of
examples/trn/nki_add_1.mlir.)

    python examples/python/trn/nki_add_1.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def nki_add_1(A: Tx.Buffer[(128, 512), "f32"], B: Tx.Out[(128, 512), "f32"]):
    a = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    b = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    Tx.copy(a, A)
    Tx.add(b, a, 1.0)
    Tx.copy(B, b)
