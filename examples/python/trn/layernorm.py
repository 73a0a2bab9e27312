"""LayerNorm of a [128, 512] f32 tile with affine weights on Trainium (twin of
examples/trn/layernorm.mlir): y = (x - mean) / sqrt(var + eps) * gamma + beta.

    python examples/python/trn/layernorm.py
"""

import numpy as np

from tirx_mlir import script as Tx

N = 512
EPS = 1e-5
SBUF = "trn.sbuf"


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def layernorm(X: Tx.Buffer[(128, N), "f32"], Gamma: Tx.Buffer[(1, N), "f32"],
              Beta: Tx.Buffer[(1, N), "f32"], Y: Tx.Out[(128, N), "f32"]):
    x = Tx.alloc((128, N), scope=SBUF)
    sq = Tx.alloc((128, N), scope=SBUF)
    mean = Tx.alloc((128, 1), scope=SBUF)
    ss = Tx.alloc((128, 1), scope=SBUF)
    w = Tx.alloc((1, 2 * N), scope=SBUF)       # gamma | beta, broadcast together
    ones = Tx.alloc((1, 128), scope=SBUF)
    wb = Tx.alloc((128, 2 * N), scope=SBUF)
    Tx.copy(x, X)
    wg = w[:, 0:N]
    wbeta = w[:, N:2 * N]
    Tx.copy(wg, Gamma)
    Tx.copy(wbeta, Beta)
    Tx.fill(ones, 1.0)
    Tx.gemm(wb, ones, w, transpose_a=True)
    Tx.sum(mean, x)
    Tx.mul(mean, mean, -1.0 / N)
    Tx.add(x, x, mean)
    Tx.binary_reduce(sq, ss, x, x, binary="mul", reduce="sum")
    Tx.sqrt(ss, ss, bias=EPS, scale=1.0 / N)
    Tx.reciprocal(ss, ss)
    gb = wb[:, 0:N]
    bb = wb[:, N:2 * N]
    Tx.binary_chain(x, x, ss, gb, op0="mul", op1="mul")
    Tx.add(x, x, bb)
    Tx.copy(Y, x)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((128, N)).astype(np.float32),
            rng.standard_normal((1, N)).astype(np.float32),
            rng.standard_normal((1, N)).astype(np.float32)]


def reference(x, gamma, beta):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + EPS) * gamma + beta


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(layernorm(*args) - reference(*args)).max())
