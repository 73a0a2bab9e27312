"""C = A @ B^T on sm_90a with a 2x2 cluster sharing both operands (twin of
examples/cuda/tile/gemm_multicast_2x2_sm90a.mlir): the CTAs of a cluster row share their A tile
(multicast to the row: cta_mask = [3, 3, 12, 12], one mask per rank x + 2y), those of a column
their B tile ([5, 10, 5, 10]); each CTA of a pair issues a 64-row slice of the 128x64 box, and
a stage is released to the CTAs that wrote it. A, B 256x256 f16, C 256x256 f32; CTA (x, y)
computes C[128y.., 128x..] over 4 K steps of 64 through rings of 3 stages.

    python examples/python/cuda/tile/gemm_multicast_2x2_sm90a.py
"""

import numpy as np

from tirx_mlir import script as Tx



@Tx.kernel(target="cuda -arch=sm_90a", grid=(2, 2), threads=(256,), cluster=(2, 2))
def gemm_multicast_2x2_sm90a(A: Tx.Buffer[(256, 256), "f16"],
                             B: Tx.Buffer[(256, 256), "f16"],
                             C: Tx.Out[(256, 256), "f32"]):
    bx = Tx.cta_id("x")
    by = Tx.cta_id("y")
    m0 = by * 128
    n0 = bx * 128
    sa = Tx.alloc((3, 128, 64), "f16", scope="shared")
    sb = Tx.alloc((3, 128, 64), "f16", scope="shared")
    acc = Tx.alloc((128, 128), "f32", scope="local")
    Tx.cta.zero(acc)
    for k in range(4):
        s = Tx.urem(k, 3)
        k0 = k * 64
        a = A[m0:m0 + 128, k0:k0 + 64]
        b = B[n0:n0 + 128, k0:k0 + 64]
        sa3 = sa[s]
        sb3 = sb[s]
        sas = sa3.reshape(128, 64)
        sbs = sb3.reshape(128, 64)
        Tx.cta.copy_async(sas, a, dispatch="tma_auto", config={"cta_mask": [3, 3, 12, 12]})
        Tx.cta.copy_async(sbs, b, dispatch="tma_auto", config={"cta_mask": [5, 10, 5, 10]})
        Tx.cta.gemm_async(acc, sas, sbs, accum=True)
    c = C[m0:m0 + 128, n0:n0 + 128]
    Tx.cta.copy(c, acc)


def inputs():
    """Small integers: every product and sum is exact in f16 and f32."""
    rng = np.random.default_rng(0)
    return [rng.integers(-2, 3, (256, 256)).astype(np.float16),
            rng.integers(-2, 3, (256, 256)).astype(np.float16)]


def reference(a, b):
    return a.astype(np.float32) @ b.astype(np.float32).T


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:",
          np.abs(gemm_multicast_2x2_sm90a.interpret(*args) - reference(*args)).max())
