"""C = A @ B^T on sm_90a where the two CTAs of a cluster share the B tile: B's TMA copies are
multicast to the cluster (config {cta_mask = 3}) instead of each CTA loading the same box. A is
256x256 f16 (M x K), B 128x256 f16 (N x K), C 256x128 f32; the grid is 2 CTAs in one cluster,
CTA r computes rows 128r..128r+127 of C, walking K in 4 steps of 64 through rings of 3 stage
tiles, as examples/cuda/tile/gemm_sm90a.mlir does.  The tile level is the same program as
without multicast (every CTA's copy fills its own tile); the config asks tma_auto to issue each
box of B once for the cluster, which is right because B's slice is the same in both CTAs (its
offsets are the loop's k0 and 0, uniform over the cluster: dispatch/tma_multicast.py checks it).
Both rings keep the producer/consumer split of gemm_sm90a.mlir: for B, each CTA's producer
thread arms its own full mbarrier with the tile's 16384 bytes and issues its 64-row slice of the
one 128x64 box with
cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster
and mask 0b11 (each slice lands in both CTAs and completes on both full barriers); every
consumer thread releases a stage of B on the empty barriers of both CTAs. (Python twin of
examples/cuda/tile/gemm_multicast_sm90a.mlir.)

    python examples/python/cuda/tile/gemm_multicast_sm90a.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_90a", grid=(2,), threads=(256,), cluster=(2,))
def gemm_multicast_sm90a(A: Tx.Buffer[(256, 256), "f16"],
                         B: Tx.Buffer[(128, 256), "f16"],
                         C: Tx.Out[(256, 128), "f32"]):
    bx = Tx.cta_id("x")
    m0 = bx * 128
    sa = Tx.alloc((3, 128, 64), "f16", scope="shared")
    sb = Tx.alloc((3, 128, 64), "f16", scope="shared")
    acc = Tx.alloc((128, 128), "f32", scope="local")
    Tx.cta.zero(acc)
    for k in range(4):
        s = Tx.urem(k, 3)
        k0 = k * 64
        a = A[m0:m0 + 128, k0:k0 + 64]
        b = B[:, k0:k0 + 64]
        sa3 = sa[s]
        sb3 = sb[s]
        sas = sa3.reshape(128, 64)
        sbs = sb3.reshape(128, 64)
        Tx.cta.copy_async(sas, a, dispatch="tma_auto")
        Tx.cta.copy_async(sbs, b, dispatch="tma_auto", config={"cta_mask": 3})
        Tx.cta.gemm_async(acc, sas, sbs, accum=True)
    c = C[m0:m0 + 128]
    Tx.cta.copy(c, acc)
