"""C = A @ B^T on sm_90a with TMA, mbarriers and wgmma, split into one producer warpgroup and two
consumer warpgroups (the warp-specialized "cooperative" shape of Hopper GEMMs). A is 256x256 f16
(M x K), B is 256x256 f16 (N x K: gemm_async's K-major B), C is 256x256 f32. A 2x2 grid of CTAs
of 384 threads (3 warpgroups) computes one 128x128 tile of C each, walking K in 4 steps of 64
through a ring of 3 stage tiles per operand.  How the split is written: it is not. The tile-
level program is sequential and CTA-collective (the tile interpreter runs it once per CTA, every
copy_async and gemm_async complete in program order), and names no thread, role or barrier. The
cuda lowering derives the split from it: * default layouts: the ring tiles %sa/%sb get the
128-byte swizzle their TMA and wgmma uses need (64 f16 columns = one 128-byte row:
layout/swizzle.py), %acc the wgmma accumulator layout of the consumer warpgroups (warpgroup c
holds rows 64c..64c+63 in 64 registers per thread; layout/fragments_wgmma.py); * copy_async
(forced to tma_auto) is issued by thread 256, the first of the last warpgroup (the producer): it
waits until the stage is empty, arms the stage's "full" mbarrier with the tile's 16384 bytes
(expect_tx) and issues the TMA box; the tensor map is a kernel parameter the host builds
(cuda.host_tensor_maps; -t cuda prints it __grid_constant__); * gemm_async (wgmma) runs on
warpgroups 0 and 1 (the consumers): each waits until the stage is full, issues 4 wgmma
m64n128k16 (its m64 tile x 4 K steps of 16) between wgmma.fence and commit/wait 0, and arrives
on the stage's "empty" mbarrier; * the epilogue stores C from the registers
(tests/examples/test_cuda_tile_gemm_sm90a.py also runs it staged through a swizzled shared tile
and stored with the TMA, which costs the consumers registers for the shared addresses); so the
producer runs up to 3 stages ahead. The barriers, their phases (one bit per stage and role in a
register) and the roles are dispatch/tma_ring.py's. Any program order of TMA copies into stage
views ring[s] and gemm_async reads of them lowers this way. (Python twin of
examples/cuda/tile/gemm_sm90a.mlir.)

    python examples/python/cuda/tile/gemm_sm90a.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_90a", grid=(2, 2), threads=(384,))
def gemm_sm90a(A: Tx.Buffer[(256, 256), "f16"],
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
        Tx.cta.copy_async(sas, a, dispatch="tma_auto")
        Tx.cta.copy_async(sbs, b, dispatch="tma_auto")
        Tx.cta.gemm_async(acc, sas, sbs, accum=True)
    c = C[m0:m0 + 128, n0:n0 + 128]
    Tx.cta.copy(c, acc)
