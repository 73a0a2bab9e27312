"""Two CTAs of a cluster add up their tiles through distributed shared memory (sm_90a). A is 4 x 4
x 32 x 64 f32: K = 4 steps of one 32x64 tile per CTA; the grid is 4 CTAs in 2 clusters of 2. At
every step each CTA loads its tile A[k, cta] into shared memory, copies it into its peer's
receive buffer (copy_async remote_cta: a DSMEM bulk copy), and after the cluster_sync adds its
own tile and the one it received to a register accumulator, so both CTAs of a cluster end with
the sum over k of their two tiles: C[cta] = sum_k A[k, cta] + A[k, cta ^ 1].  The tile-level
meaning (docs/ir.md, "Clusters"): a remote copy lands in the peer at the next tirx.cluster_sync;
the receive buffer is double-buffered (%recv[k % 2]) because the copy of step k + 1 may land
while the peer still reads step k's tile (it lands before the sync of step k + 1, and the peer
reads step k's after the sync of step k). The cuda lowering: thread 0 of each CTA maps its
peer's inbox mbarrier and the receive tile (mapa), adds the 8192 bytes to the inbox
(mbarrier.expect_tx at cluster scope) and issues one cp.async.bulk.shared::cluster.shared::cta
of the whole tile; the cluster_sync is barrier.cluster, the inbox's arrive and wait, and
barrier.cluster again (dispatch/copy_async_dsmem.py). (Python twin of
examples/cuda/tile/cluster_exchange.mlir.)

    python examples/python/cuda/tile/cluster_exchange.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_90a", grid=(4,), threads=(128,), cluster=(2,))
def cluster_exchange(A: Tx.Buffer[(4, 4, 32, 64), "f32"], C: Tx.Out[(4, 32, 64), "f32"]):
    bx = Tx.cta_id("x")
    rank = Tx.cta_id_in_cluster("x")
    peer = rank ^ 1
    send = Tx.alloc((32, 64), "f32", scope="shared")
    recv = Tx.alloc((2, 32, 64), "f32", scope="shared")
    acc = Tx.alloc((32, 64), "f32", scope="local")
    Tx.cta.zero(acc)
    for k in range(4):
        slot = Tx.urem(k, 2)
        a4 = A[k, bx]
        a = a4.reshape(32, 64)
        Tx.cta.copy(send, a)
        r3 = recv[slot]
        r = r3.reshape(32, 64)
        Tx.cta.copy_async(r, send, remote_cta=peer)
        Tx.cluster.cluster_sync()
        Tx.cta.add(acc, acc, send)
        Tx.cta.add(acc, acc, r)
    c3 = C[bx]
    c = c3.reshape(32, 64)
    Tx.cta.copy(c, acc)
