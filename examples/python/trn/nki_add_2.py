"""TIRx's codegen test nki_add_2 at tile level: B = A + 1.0 for [128, 2048] f32, processed in four
512-column chunks by a loop over [128, 512] SBUF tiles. (Python twin of
examples/trn/nki_add_2.mlir.)

    python examples/python/trn/nki_add_2.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def nki_add_2(A: Tx.Buffer[(128, 2048), "f32"], B: Tx.Out[(128, 2048), "f32"]):
    a = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    b = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    for k in range(4):
        col = k * 512
        src = A[:, col:col + 512]
        dst = B[:, col:col + 512]
        Tx.copy(a, src)
        Tx.add(b, a, 1.0)
        Tx.copy(dst, b)
