"""C = relu(A @ B + bias) on sm_80 tensor cores (twin of
examples/cuda/tile/matmul_bias_relu.mlir): the main loop of examples/python/cuda/tile/gemm_sm80.py, then
an epilogue on the register tile: the CTA's bias values staged in shared memory, added to every
row, relu as a maximum with 0.

    python examples/python/cuda/tile/matmul_bias_relu.py
"""

import numpy as np

from tirx_mlir import script as Tx

BM = BN = 128
BK = 32


@Tx.kernel(target="cuda -arch=sm_80", grid=(2, 2), threads=(128,))
def matmul_bias_relu(A: Tx.Buffer[(256, 512), "f16"], B: Tx.Buffer[(512, 256), "f16"],
                     Bias: Tx.Buffer[(1, 256), "f32"], C: Tx.Out[(256, 256), "f32"]):
    bx = Tx.cta_id("x")
    by = Tx.cta_id("y")
    m0 = by * BM
    n0 = bx * BN
    acc = Tx.alloc((BM, BN), "f32", scope="local")
    sa = Tx.alloc((BM, BK), "f16", scope="shared", layout="swizzle(3,2,3) S[128,32]")
    sb = Tx.alloc((BK, BN), "f16", scope="shared", layout="swizzle(3,3,4) S[32,128]")
    Tx.cta.zero(acc)
    for k in range(0, 512, BK):
        a = A[m0:m0 + BM, k:k + BK]
        b = B[k:k + BK, n0:n0 + BN]
        Tx.cta.copy(sa, a)
        Tx.cta.copy(sb, b)
        Tx.cta.gemm(acc, sa, sb, beta=1.0)
    bg = Bias[0:1, n0:n0 + BN]
    bias = Tx.alloc((1, BN), scope="shared")
    Tx.cta.copy(bias, bg)
    Tx.cta.add(acc, acc, bias)
    Tx.cta.maximum(acc, acc, 0.0)
    c = C[m0:m0 + BM, n0:n0 + BN]
    Tx.cta.copy(c, acc)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((256, 512)).astype(np.float16),
            rng.standard_normal((512, 256)).astype(np.float16),
            rng.standard_normal((1, 256)).astype(np.float32)]


def reference(a, b, bias):
    return np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias, 0)


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(matmul_bias_relu.interpret(*args) - reference(*args)).max())
