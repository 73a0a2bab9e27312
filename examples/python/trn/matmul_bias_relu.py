"""relu(A @ B + bias) on Trainium (twin of examples/trn/matmul_bias_relu.mlir): A^T [256, 256],
B [256, 512], a bias row [1, 512] added to every row; relu is a maximum with 0.

    python examples/python/trn/matmul_bias_relu.py
"""

import numpy as np

from tirx_mlir import script as Tx

M = K = 256
N = 512


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def matmul_bias_relu(AT: Tx.Buffer[(K, M), "f32"], B: Tx.Buffer[(K, N), "f32"],
                     Bias: Tx.Buffer[(1, N), "f32"], C: Tx.Out[(M, N), "f32"]):
    at = Tx.alloc((K, M), scope="trn.sbuf")
    b = Tx.alloc((K, N), scope="trn.sbuf")
    bias = Tx.alloc((1, N), scope="trn.sbuf")
    c = Tx.alloc((M, N), scope="trn.sbuf")
    Tx.copy(at, AT)
    Tx.copy(b, B)
    Tx.copy(bias, Bias)
    Tx.gemm(c, at, b, transpose_a=True)
    Tx.add(c, c, bias)
    Tx.maximum(c, c, 0.0)
    Tx.copy(C, c)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((K, M)).astype(np.float32),
            rng.standard_normal((K, N)).astype(np.float32),
            rng.standard_normal((1, N)).astype(np.float32)]


def reference(at, b, bias):
    return np.maximum(at.T @ b + bias, 0.0)


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(matmul_bias_relu(*args) - reference(*args)).max())
