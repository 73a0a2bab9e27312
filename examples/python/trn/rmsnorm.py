"""RMSNorm of a [128, 512] f32 tile on Trainium (twin of examples/trn/rmsnorm.mlir):
y = x / sqrt(mean(x^2) + eps) * g, with g broadcast to all partitions by a K = 1 matmul.

    python examples/python/trn/rmsnorm.py
"""

import numpy as np

from tirx_mlir import script as Tx

N = 512
EPS = 1e-6
SBUF = "trn.sbuf"


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def rmsnorm(X: Tx.Buffer[(128, N), "f32"], G: Tx.Buffer[(1, N), "f32"],
            Y: Tx.Out[(128, N), "f32"]):
    x = Tx.alloc((128, N), scope=SBUF)
    sq = Tx.alloc((128, N), scope=SBUF)
    ss = Tx.alloc((128, 1), scope=SBUF)
    g = Tx.alloc((1, N), scope=SBUF)
    ones = Tx.alloc((1, 128), scope=SBUF)
    gb = Tx.alloc((128, N), scope=SBUF)
    Tx.copy(x, X)
    Tx.copy(g, G)
    Tx.fill(ones, 1.0)
    Tx.gemm(gb, ones, g, transpose_a=True)
    Tx.binary_reduce(sq, ss, x, x, binary="mul", reduce="sum")
    Tx.sqrt(ss, ss, bias=EPS, scale=1.0 / N)
    Tx.reciprocal(ss, ss)
    Tx.binary_chain(x, x, ss, gb, op0="mul", op1="mul")
    Tx.copy(Y, x)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((128, N)).astype(np.float32),
            rng.standard_normal((1, N)).astype(np.float32)]


def reference(x, g):
    return x / np.sqrt((x * x).mean(axis=1, keepdims=True) + EPS) * g


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(rmsnorm(*args) - reference(*args)).max())
