// Two CTAs of a cluster add up their tiles through distributed shared memory (sm_90a).
// A is 4 x 4 x 32 x 64 f32: K = 4 steps of one 32x64 tile per CTA; the grid is 4 CTAs in 2
// clusters of 2. At every step each CTA loads its tile A[k, cta] into shared memory, copies
// it into its peer's receive buffer (copy_async remote_cta: a DSMEM bulk copy), and after the
// cluster_sync adds its own tile and the one it received to a register accumulator, so both
// CTAs of a cluster end with the sum over k of their two tiles: C[cta] = sum_k A[k, cta] +
// A[k, cta ^ 1].
//
// The tile-level meaning (docs/ir.md, "Clusters"): a remote copy lands in the peer at the next
// tirx.cluster_sync; the receive buffer is double-buffered (%recv[k % 2]) because the copy of
// step k + 1 may land while the peer still reads step k's tile (it lands before the sync of
// step k + 1, and the peer reads step k's after the sync of step k).
// The cuda lowering: thread 0 of each CTA maps its peer's inbox mbarrier and the receive
// tile (mapa), adds the 8192 bytes to the inbox (mbarrier.expect_tx at cluster scope) and
// issues one cp.async.bulk.shared::cluster.shared::cta of the whole tile; the cluster_sync is
// barrier.cluster, the inbox's arrive and wait, and barrier.cluster again
// (dispatch/copy_async_dsmem.py).
//
//   tirx-run examples/cuda/tile/cluster_exchange.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/cluster_exchange.mlir -t cuda
tirx.kernel @cluster_exchange(%A: !tirx.buffer<4x4x32x64xf32, global>)
    -> (%C: !tirx.buffer<4x32x64xf32, global>) grid [4] threads [128] cluster [2]
    target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %rank = tirx.cta_id_in_cluster x : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %peer = arith.xori %rank, %c1 : index
  %send = tirx.alloc : !tirx.buffer<32x64xf32, shared>
  %recv = tirx.alloc : !tirx.buffer<2x32x64xf32, shared>
  %acc = tirx.alloc : !tirx.buffer<32x64xf32, local>
  tirx.zero cta %acc : !tirx.buffer<32x64xf32, local>
  scf.for %k = %c0 to %c4 step %c1 {
    %slot = arith.remui %k, %c2 : index
    %a4 = tirx.slice %A[%k, %bx, 0, 0] [1, 1, 32, 64] : !tirx.buffer<4x4x32x64xf32, global> -> !tirx.buffer<1x1x32x64xf32, global>
    %a = tirx.reshape %a4 : !tirx.buffer<1x1x32x64xf32, global> -> !tirx.buffer<32x64xf32, global>
    tirx.copy cta %send, %a : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, global>
    %r3 = tirx.slice %recv[%slot, 0, 0] [1, 32, 64] : !tirx.buffer<2x32x64xf32, shared> -> !tirx.buffer<1x32x64xf32, shared>
    %r = tirx.reshape %r3 : !tirx.buffer<1x32x64xf32, shared> -> !tirx.buffer<32x64xf32, shared>
    tirx.copy_async cta %r, %send remote_cta %peer : !tirx.buffer<32x64xf32, shared>, !tirx.buffer<32x64xf32, shared>, index
    tirx.cluster_sync cluster
    tirx.add cta %acc, %acc, %send : !tirx.buffer<32x64xf32, local>, !tirx.buffer<32x64xf32, local>, !tirx.buffer<32x64xf32, shared>
    tirx.add cta %acc, %acc, %r : !tirx.buffer<32x64xf32, local>, !tirx.buffer<32x64xf32, local>, !tirx.buffer<32x64xf32, shared>
  }
  %c3 = tirx.slice %C[%bx, 0, 0] [1, 32, 64] : !tirx.buffer<4x32x64xf32, global> -> !tirx.buffer<1x32x64xf32, global>
  %c = tirx.reshape %c3 : !tirx.buffer<1x32x64xf32, global> -> !tirx.buffer<32x64xf32, global>
  tirx.copy cta %c, %acc : !tirx.buffer<32x64xf32, global>, !tirx.buffer<32x64xf32, local>
  tirx.return
}
