"""LayerNorm of a 256x512 f32 matrix with affine weights on sm_80 (twin of
examples/cuda/tile/layernorm.mlir): y = (x - mean) / sqrt(var + eps) * gamma + beta; 32 CTAs
of 128 threads, one 8-row tile each in shared memory, cta-scope ops.

    python examples/python/cuda/tile/layernorm.py
"""

import numpy as np

from tirx_mlir import script as Tx

ROWS, N = 8, 512
EPS = 1e-5


@Tx.kernel(target="cuda -arch=sm_80", grid=(256 // ROWS,), threads=(128,))
def layernorm(X: Tx.Buffer[(256, N), "f32"], gamma: Tx.Buffer[(1, N), "f32"],
              beta: Tx.Buffer[(1, N), "f32"], Y: Tx.Out[(256, N), "f32"]):
    row = Tx.cta_id("x") * ROWS
    xg = X[row:row + ROWS, :]
    yg = Y[row:row + ROWS, :]
    x = Tx.alloc((ROWS, N), scope="shared")
    sq = Tx.alloc((ROWS, N), scope="shared")
    mean = Tx.alloc((ROWS, 1), scope="shared")
    ss = Tx.alloc((ROWS, 1), scope="shared")
    g = Tx.alloc((1, N), scope="shared")
    b = Tx.alloc((1, N), scope="shared")
    Tx.cta.copy(x, xg)
    Tx.cta.copy(g, gamma)
    Tx.cta.copy(b, beta)
    Tx.cta.sum(mean, x, axes=[-1])
    Tx.cta.mul(mean, mean, -1.0 / N)
    Tx.cta.add(x, x, mean)
    Tx.cta.binary_reduce(sq, ss, x, x, binary="mul", reduce="sum")
    Tx.cta.sqrt(ss, ss, bias=EPS, scale=1.0 / N)
    Tx.cta.reciprocal(ss, ss)
    Tx.cta.binary_chain(x, x, ss, g, op0="mul", op1="mul")
    Tx.cta.add(x, x, b)
    Tx.cta.copy(yg, x)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((256, N)).astype(np.float32),
            rng.standard_normal((1, N)).astype(np.float32),
            rng.standard_normal((1, N)).astype(np.float32)]


def reference(x, g, b):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * g + b


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(layernorm.interpret(*args) - reference(*args)).max())
