"""C = A @ B for 512x512x512 f32 with everything resident in SBUF. A^T [K, M] and B [K, N] get the
default layout for 512 rows, S[(4,128,512):(512@F,1@P,1@F)]: K is split into 4 partition tiles.
gemm tiles M by 128 (C's partition tile), N by 512 and K by 128: the K loop accumulates in one
PSUM bank (accumulate_if k > 0), then one tensor_copy per C tile. (Python twin of
examples/trn/matmul_512.mlir.)

    python examples/python/trn/matmul_512.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def matmul_512(AT: Tx.Buffer[(512, 512), "f32"],
               B: Tx.Buffer[(512, 512), "f32"],
               C: Tx.Out[(512, 512), "f32"]):
    at = Tx.alloc((512, 512), "f32", scope="trn.sbuf")
    b = Tx.alloc((512, 512), "f32", scope="trn.sbuf")
    c = Tx.alloc((512, 512), "f32", scope="trn.sbuf")
    Tx.copy(at, AT)
    Tx.copy(b, B)
    Tx.gemm(c, at, b, transpose_a=True)
    Tx.copy(C, c)
