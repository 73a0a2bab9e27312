"""C[M, N] = A @ B with M = 1024, N = 2048, K = 4096: bf16 inputs, f32 accumulation and output. A
arrives transposed (A^T: [K, M]) so K lands on partitions. The kernel walks C in 128 x 512
blocks; per block it loads the K x 128 panel of A^T and the K x 512 panel of B (K split into 32
partition tiles by the default layout), and one gemm accumulates the 32 K steps in PSUM. (Python
twin of examples/trn/matmul_bf16_1024x2048x4096.mlir.)

    python examples/python/trn/matmul_bf16_1024x2048x4096.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def matmul_bf16(AT: Tx.Buffer[(4096, 1024), "bf16"],
                B: Tx.Buffer[(4096, 2048), "bf16"],
                C: Tx.Out[(1024, 2048), "f32"]):
    for mb in range(8):
        m0 = mb * 128
        at = Tx.alloc((4096, 128), "bf16", scope="trn.sbuf")
        at_hbm = AT[:, m0:m0 + 128]
        Tx.copy(at, at_hbm)
        for nb in range(4):
            n0 = nb * 512
            b = Tx.alloc((4096, 512), "bf16", scope="trn.sbuf")
            c = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
            b_hbm = B[:, n0:n0 + 512]
            Tx.copy(b, b_hbm)
            Tx.gemm(c, at, b, transpose_a=True)
            c_hbm = C[m0:m0 + 128, n0:n0 + 512]
            Tx.copy(c_hbm, c)
