"""C = A @ B on sm_80 tensor cores (twin of examples/cuda/tile/gemm_sm80.mlir): A 256x512 f16,
B 512x256 f16, C 256x256 f32; a 2x2 grid of CTAs, one 128x128 tile of C each, a K loop of
step 32 staging XOR-swizzled shared tiles and accumulating into a register tile.

    python examples/python/cuda/tile/gemm_sm80.py
"""

import numpy as np

from tirx_mlir import script as Tx

BM = BN = 128
BK = 32


@Tx.kernel(target="cuda -arch=sm_80", grid=(2, 2), threads=(128,))
def gemm_sm80(A: Tx.Buffer[(256, 512), "f16"], B: Tx.Buffer[(512, 256), "f16"],
              C: Tx.Out[(256, 256), "f32"]):
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
    c = C[m0:m0 + BM, n0:n0 + BN]
    Tx.cta.copy(c, acc)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((256, 512)).astype(np.float16),
            rng.standard_normal((512, 256)).astype(np.float16)]


def reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32)


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(gemm_sm80.interpret(*args) - reference(*args)).max())
