"""RMSNorm in f16 with f32 statistics on sm_80 (twin of examples/cuda/tile/rmsnorm.mlir):
Y = X / sqrt(mean(X^2) + 1e-6) * gamma; 32 CTAs of 128 threads, one 8-row tile each.

    python examples/python/cuda/tile/rmsnorm.py
"""

import numpy as np

from tirx_mlir import script as Tx

ROWS, N = 8, 512


@Tx.kernel(target="cuda -arch=sm_80", grid=(256 // ROWS,), threads=(128,))
def rmsnorm(X: Tx.Buffer[(256, N), "f16"], gamma: Tx.Buffer[(1, N), "f16"],
            Y: Tx.Out[(256, N), "f16"]):
    row = Tx.cta_id("x") * ROWS
    xg = X[row:row + ROWS, :]
    yg = Y[row:row + ROWS, :]
    x = Tx.alloc((ROWS, N), "f32", scope="shared")
    sq = Tx.alloc((ROWS, N), "f32", scope="shared")
    ss = Tx.alloc((ROWS, 1), "f32", scope="shared")
    g = Tx.alloc((1, N), "f32", scope="shared")
    Tx.cta.copy(x, xg)
    Tx.cta.copy(g, gamma)
    Tx.cta.binary_reduce(sq, ss, x, x, binary="mul", reduce="sum")
    Tx.cta.sqrt(ss, ss, bias=1e-6, scale=1.0 / N)
    Tx.cta.reciprocal(ss, ss)
    Tx.cta.binary_chain(x, x, ss, g, op0="mul", op1="mul")
    Tx.cta.copy(yg, x)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((256, N)).astype(np.float16),
            rng.standard_normal((1, N)).astype(np.float16)]


def reference(x, g):
    x, g = x.astype(np.float32), g.astype(np.float32)
    return (x / np.sqrt((x * x).mean(axis=1, keepdims=True) + 1e-6) * g).astype(np.float16)


if __name__ == "__main__":
    args = inputs()
    err = np.abs(rmsnorm.interpret(*args).astype(np.float32) - reference(*args)).max()
    print("max abs error vs numpy:", err)
