"""C = A @ B for M = 128, N = 5120, K = 128 into SBUF: ten 512-column output tiles, each
accumulated in PSUM and evicted before the next one reuses the bank. (TIRx 0.1.0a4 rotates 8
PSUM banks without clearing them, so its tiles 9 and 10 accumulate onto stale results.) (Python
twin of examples/trn/matmul_wide_n.mlir.)

    python examples/python/trn/matmul_wide_n.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def matmul_wide_n(AT: Tx.Buffer[(128, 128), "f32"],
                  B: Tx.Buffer[(128, 5120), "f32"],
                  C: Tx.Out[(128, 5120), "f32"]):
    at = Tx.alloc((128, 128), "f32", scope="trn.sbuf")
    b = Tx.alloc((128, 5120), "f32", scope="trn.sbuf")
    c = Tx.alloc((128, 5120), "f32", scope="trn.sbuf")
    Tx.copy(at, AT)
    Tx.copy(b, B)
    Tx.gemm(c, at, b, transpose_a=True)
    Tx.copy(C, c)
