"""TMA load + one wgmma m64n128k16 on sm_90a, one warpgroup (twin of examples/cuda/tma_wgmma.mlir).

Thread 0 loads a 64x16 f16 tile of A and a 128x16 f16 tile of B (both K-major, 32-byte swizzle)
with cp.async.bulk.tensor into shared memory, completing on an mbarrier (expect_tx 6144 bytes);
every thread waits on the barrier, builds the two shared-memory matrix descriptors and the
warpgroup issues one wgmma.mma_async with scale-d = 0 (D = A * B^T), commits and waits, then
stores its 64 accumulators of D (64x128 f32). The tensor maps are CUtensorMap objects the host
builds (cuTensorMapEncodeTiled: box {16, 64} and {16, 128}, 32B swizzle) and passes by value:
the kernel's ``cuda.tensor_maps`` attribute names parameters 0 and 1 (docs/cuda.md).

    python examples/python/cuda/tma_wgmma.py
"""

import numpy as np

from tirx_mlir import script as Tx

M, N, K = 64, 128, 16
TILE_BYTES = (M + N) * K * 2
DESC_HI = (3 << 62 | (256 >> 4) << 32 | 1 << 16) - (1 << 64)
"""Descriptor bits above the start address: 32B swizzle (mode 3, bits 62-63), stride offset
256 B >> 4 (bits 32-45), leading offset 1 (bits 16-29); as a signed i64."""


def descriptor(address):
    """The wgmma matrix descriptor of a K-major tile at shared-memory ``address`` (an i32)."""
    start = Tx.truncdiv(Tx.zext(address, "i64") & 0x3FFF0, 16)  # bits 4-17, >> 4
    return start | DESC_HI


@Tx.kernel(target="cuda -arch=sm_90a", grid=(1,), threads=(128,),
           attributes={"cuda.tensor_maps": "array<i64: 0, 1>"})
def tma_wgmma(TmA: Tx.Buffer[(128,), "i8"], TmB: Tx.Buffer[(128,), "i8"],
              D: Tx.Out[(M * N,), "f32"]):
    sA = Tx.cuda.shared_alloc(align=1024, result_types=["!tirx.buffer<64x16xf16, shared>"])
    sB = Tx.cuda.shared_alloc(align=1024, result_types=["!tirx.buffer<128x16xf16, shared>"])
    bar = Tx.cuda.shared_alloc(align=8, result_types=["!tirx.buffer<1xi64, shared>"])
    pbar = Tx.cuda.address(bar, 0)
    pA = Tx.cuda.address(sA, 0)
    pB = Tx.cuda.address(sB, 0)
    mapA = Tx.cuda.address(TmA, 0)
    mapB = Tx.cuda.address(TmB, 0)
    t = Tx.cuda.thread_idx("x")
    leader = t == 0
    if leader:
        Tx.ptx.mbarrier_init("shared", pbar, 1)
        Tx.ptx.fence_proxy_async("shared::cta")
    Tx.cuda.sync_threads()
    if leader:
        Tx.ptx.mbarrier_arrive_expect_tx("shared", pbar, TILE_BYTES)
        origin = [Tx.const(0, "i32"), Tx.const(0, "i32")]
        Tx.ptx.cp_async_bulk_tensor_g2s("2d.shared::cluster", pA, [mapA, origin], pbar)
        Tx.ptx.cp_async_bulk_tensor_g2s("2d.shared::cluster", pB, [mapB, origin], pbar)
    while not Tx.ptx.mbarrier_try_wait_parity("shared", pbar, 0):
        pass
    descA = descriptor(pA)
    descB = descriptor(pB)
    Tx.ptx.wgmma_fence()
    zero = [0.0] * (M * N // 128)
    d = Tx.ptx.wgmma_mma_async_ss("m64n128k16.f32.f16.f16", zero, descA, descB,
                                  Tx.const(0, "i1"), 1, 1, 0, 0)
    Tx.ptx.wgmma_commit_group()
    Tx.ptx.wgmma_wait_group(0)
    warp = Tx.udiv(t, 32)
    lane = Tx.urem(t, 32)
    quad = Tx.udiv(lane, 4)
    pair = Tx.urem(lane, 4)
    row = warp * 16 + quad
    base = row * N + pair * 2
    for i in Tx.unroll(M * N // 128):  # accumulator i: n-tile i // 4, rows +8 for bit 1
        Tx.cuda.store(D, base + ((i // 4) * 8 + i % 2 + (i // 2) % 2 * 8 * N), d[i])


def inputs():
    """The two tensor maps over A (64x16) and B^T (128x16), integers so the sum is exact."""
    from tirx_mlir.backends.cuda.interpreter.tensor_map import encode_tensor_map

    rng = np.random.default_rng(0)
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    bt = rng.integers(-3, 4, (N, K)).astype(np.float16)
    return [encode_tensor_map(a, box=(K, M), swizzle="32B"),
            encode_tensor_map(bt, box=(K, N), swizzle="32B")]


if __name__ == "__main__":
    from tirx_mlir.backends.cuda.interpreter import simulate

    print(simulate(tma_wgmma.ir, None, *inputs()).outputs[0].reshape(M, N)[:2, :8])
