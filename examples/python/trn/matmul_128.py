"""C = A @ B for 128x128x128 f32 on Trainium (twin of examples/trn/matmul_128.mlir). A is given
transposed (A^T = [K, M]) so that the contraction dim lands on partitions when loaded.

    python examples/python/trn/matmul_128.py
"""

import numpy as np

from tirx_mlir import script as Tx



@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def matmul_128(AT: Tx.Buffer[(128, 128), "f32"], B: Tx.Buffer[(128, 128), "f32"],
               C: Tx.Out[(128, 128), "f32"]):
    at = Tx.alloc((128, 128), scope="trn.sbuf")
    b = Tx.alloc((128, 128), scope="trn.sbuf")
    c = Tx.alloc((128, 128), scope="trn.sbuf")
    Tx.copy(at, AT)
    Tx.copy(b, B)
    Tx.gemm(c, at, b, transpose_a=True)
    Tx.copy(C, c)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((128, 128)).astype(np.float32),
            rng.standard_normal((128, 128)).astype(np.float32)]


def reference(at, b):
    return at.T @ b


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(matmul_128(*args) - reference(*args)).max())
