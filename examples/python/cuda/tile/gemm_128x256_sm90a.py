"""C = A @ B^T on sm_90a, the 128x256x64 tile of cuBLAS-class Hopper GEMMs: one producer
warpgroup and two consumer warpgroups (CUTLASS's "cooperative" kernel). A is 256x256 f16
(M x K), B is 512x256 f16 (N x K: gemm_async's K-major B), C is 256x512 f32. A 2x2 grid of CTAs
of 384 threads computes one 128x256 tile of C each, walking K in 4 steps of 64 through a ring
of 3 stage tiles per operand (48 KiB of A and 96 KiB of B). The lowering is gemm_sm90a's (that
twin says how the split is derived from this sequential, CTA-collective program): the TMA
copies go to the producer, each consumer warpgroup issues 4 wgmma m64n256k16 per K step (its 64
rows of the tile: 128 accumulator registers per thread) keeping one group in flight, and the
loop is split by role. (Python twin of examples/cuda/tile/gemm_128x256_sm90a.mlir.)

    python examples/python/cuda/tile/gemm_128x256_sm90a.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_90a", grid=(2, 2), threads=(384,))
def gemm_128x256_sm90a(A: Tx.Buffer[(256, 256), "f16"],
                       B: Tx.Buffer[(512, 256), "f16"],
                       C: Tx.Out[(256, 512), "f32"]):
    bx = Tx.cta_id("x")
    by = Tx.cta_id("y")
    m0 = by * 128
    n0 = bx * 256
    sa = Tx.alloc((3, 128, 64), "f16", scope="shared")
    sb = Tx.alloc((3, 256, 64), "f16", scope="shared")
    acc = Tx.alloc((128, 256), "f32", scope="local")
    Tx.cta.zero(acc)
    for k in range(4):
        s = Tx.urem(k, 3)
        k0 = k * 64
        a = A[m0:m0 + 128, k0:k0 + 64]
        b = B[n0:n0 + 256, k0:k0 + 64]
        sa3 = sa[s]
        sb3 = sb[s]
        sas = sa3.reshape(128, 64)
        sbs = sb3.reshape(256, 64)
        Tx.cta.copy_async(sas, a, dispatch="tma_auto")
        Tx.cta.copy_async(sbs, b, dispatch="tma_auto")
        Tx.cta.gemm_async(acc, sas, sbs, accum=True)
    c = C[m0:m0 + 128, n0:n0 + 256]
    Tx.cta.copy(c, acc)
