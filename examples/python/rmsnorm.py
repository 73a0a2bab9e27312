"""RMSNorm in bf16 with f32 statistics: Y = X / sqrt(mean(X^2) + 1e-6) * gamma, per row. Two CTAs
of 128 threads, one 128-row tile each. The bf16 tile is widened to f32 by the copy into shared
memory; binary_reduce squares and sums each row in one pass; sqrt applies the 1/N scale and the
epsilon bias; binary_chain multiplies by the row factor and by gamma; the last copy rounds back
to bf16. (Python twin of examples/rmsnorm.mlir.)

    python examples/python/rmsnorm.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(grid=(2,), threads=(128,))
def rmsnorm(X: Tx.Buffer[(256, 512), "bf16"],
            gamma: Tx.Buffer[(1, 512), "bf16"],
            Y: Tx.Out[(256, 512), "bf16"]):
    cta = Tx.cta_id("x")
    row = cta * 128
    xg = X[row:row + 128]
    yg = Y[row:row + 128]
    x = Tx.alloc((128, 512), "f32", scope="shared")
    sq = Tx.alloc((128, 512), "f32", scope="shared")
    ss = Tx.alloc((128, 1), "f32", scope="shared")
    g = Tx.alloc((1, 512), "f32", scope="shared")
    Tx.cta.copy(x, xg)
    Tx.cta.copy(g, gamma)
    Tx.cta.binary_reduce(sq, ss, x, x, binary="mul", reduce="sum")
    Tx.cta.sqrt(ss, ss, bias=1e-06, scale=0.001953125)
    Tx.cta.reciprocal(ss, ss)
    Tx.cta.binary_chain(x, x, ss, g, op0="mul", op1="mul")
    Tx.cta.copy(yg, x)
