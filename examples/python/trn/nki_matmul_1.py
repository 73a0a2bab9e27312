"""TIRx's codegen test nki_matmul_1 at tile level: result[4096, 2048] (f16) = lhsT^T @ rhs with
lhsT [K=1024, M=4096] and rhs [1024, 2048] in f16, blocked as in the test: N in 4 blocks of 512,
M in 2 blocks of 2048 (16 tiles of 128), K in one block of 1024 (8 tiles of 128). An SBUF f32
accumulator holds a [4096, 512] column block; each gemm adds its product to it (beta = 1), and
the block is converted to f16 on its way out. (Python twin of examples/trn/nki_matmul_1.mlir.)

    python examples/python/trn/nki_matmul_1.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def nki_matmul_1(lhsT: Tx.Buffer[(1024, 4096), "f16"],
                 rhs: Tx.Buffer[(1024, 2048), "f16"],
                 result: Tx.Out[(4096, 2048), "f16"]):
    acc = Tx.alloc((4096, 512), "f32", scope="trn.sbuf")
    rhs_tiles = Tx.alloc((1024, 512), "f16", scope="trn.sbuf")
    lhsT_tiles = Tx.alloc((1024, 2048), "f16", scope="trn.sbuf")
    for n in range(4):
        n0 = n * 512
        Tx.zero(acc)
        rhs_blk = rhs[:, n0:n0 + 512]
        Tx.copy(rhs_tiles, rhs_blk)
        for m in range(2):
            m0 = m * 2048
            lhs_blk = lhsT[:, m0:m0 + 2048]
            Tx.copy(lhsT_tiles, lhs_blk)
            acc_blk = acc[m0:m0 + 2048]
            Tx.gemm(acc_blk, lhsT_tiles, rhs_tiles, transpose_a=True, beta=1.0)
        out = result[:, n0:n0 + 512]
        Tx.copy(out, acc)
