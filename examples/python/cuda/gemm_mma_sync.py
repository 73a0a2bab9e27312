"""A 256x256x256 f16 -> f32 GEMM on tensor cores, D = A * B, with ldmatrix + mma.sync.m16n8k16
(twin of examples/cuda/gemm_mma_sync.mlir). A is row-major (M x K), B is given as B^T (N x K
row-major, the "col" operand of mma.sync).

Blocks of 4 warps compute 64x64 tiles of D (grid 4x4); warp w computes the 32x32 sub-tile at
rows 32 * (w / 2), columns 32 * (w % 2): 2 x 4 mma tiles of 16x8, 32 f32 accumulators per
thread carried through the K loop. Per K step of 32 the block stages a 64x32 tile of A and of
B^T in shared memory, one 16-byte copy per thread and tile half, in the 64-byte swizzle (chunk c
of a 64-byte row r is stored at chunk c ^ ((r / 2) % 4): no bank conflicts on either side). For
each K half of 16 a warp loads its A fragments with two ldmatrix.x4 and its B fragments with two
ldmatrix.x4 covering two 8-column tiles each, then issues 8 mma.sync.

    python examples/python/cuda/gemm_mma_sync.py
"""

import numpy as np

from tirx_mlir import script as Tx

M = N = K = 256
BM = BN = 64
BK = 32
MMA = "m16n8k16.f32.f16.f16.f32"
TILES_M, TILES_N = 2, 4  # the 16x8 mma tiles of a warp's 32x32 sub-tile


def swizzled(row, chunk):
    """The element offset of 16-byte chunk ``chunk`` of 64-byte row ``row`` of a staged tile."""
    c = chunk ^ Tx.urem(Tx.udiv(row, 2), 4)
    return row * BK + c * 8


def stage(src, index, dst):
    """Copy 16 bytes (8 f16) from global ``src[index]`` to the shared address ``dst``."""
    v = Tx.ptx.ld("global.nc.v4.b32", Tx.cuda.address(src, index))
    Tx.ptx.st("shared.v4.b32", dst, v)


@Tx.kernel(target="cuda -arch=sm_80", grid=(N // BN, M // BM), threads=(128,))
def gemm_mma_sync(A: Tx.Buffer[(M * K,), "f16"], Bt: Tx.Buffer[(N * K,), "f16"],
                  D: Tx.Out[(M * N,), "f32"]):
    sA = Tx.cuda.shared_alloc(align=128, result_types=["!tirx.buffer<64x32xf16, shared>"])
    sB = Tx.cuda.shared_alloc(align=128, result_types=["!tirx.buffer<64x32xf16, shared>"])
    t = Tx.cuda.thread_idx("x")
    bx = Tx.cuda.block_idx("x")
    by = Tx.cuda.block_idx("y")
    warp = Tx.udiv(t, 32)
    lane = Tx.urem(t, 32)
    wm = Tx.udiv(warp, 2)
    wn = Tx.urem(warp, 2)
    m0 = by * BM
    n0 = bx * BN
    # staging: thread t copies chunk t % 4 of row t / 4 (and of row t / 4 + 32)
    crow = Tx.udiv(t, 4)
    cq = Tx.urem(t, 4)
    ccol = cq * 8
    s0 = swizzled(crow, cq)
    s1 = s0 + 32 * BK
    psA = [Tx.cuda.address(sA, s0), Tx.cuda.address(sA, s1)]
    psB = [Tx.cuda.address(sB, s0), Tx.cuda.address(sB, s1)]
    ga = (m0 + crow) * K + ccol
    gb = (n0 + crow) * K + ccol
    # ldmatrix rows: A lane l reads row l % 16, chunk l / 16; B^T lane l row 8 * (l / 16) + l % 8,
    # chunk (l / 8) % 2
    l16 = Tx.urem(lane, 16)
    lh = Tx.udiv(lane, 16)
    lh8 = lh * 8
    l8 = Tx.urem(lane, 8)
    lq2 = Tx.urem(Tx.udiv(lane, 8), 2)
    wrow = wm * 32
    wcol = wn * 32
    arow = wrow + l16
    brow = wcol + lh8 + l8
    pa, pb = [], []  # pa[i][h]: tile i's A fragment for K half h; pb[j][h]: B tiles 2j, 2j + 1
    for i in Tx.unroll(2):
        r = arow + 16 * i
        pa.append([Tx.cuda.address(sA, swizzled(r, lh + 2 * h)) for h in Tx.unroll(2)])
    for j in Tx.unroll(2):
        r = brow + 16 * j
        pb.append([Tx.cuda.address(sB, swizzled(r, lq2 + 2 * h)) for h in Tx.unroll(2)])
    acc = [[Tx.const(0.0, "f32")] * 4] * (TILES_M * TILES_N)
    for kt in range(K // BK):
        k0 = kt * BK
        gak = ga + k0
        gak1 = gak + 32 * K
        stage(A, gak, psA[0])
        stage(A, gak1, psA[1])
        gbk = gb + k0
        gbk1 = gbk + 32 * K
        stage(Bt, gbk, psB[0])
        stage(Bt, gbk1, psB[1])
        Tx.cuda.sync_threads()
        for h in Tx.unroll(2):
            fa = [Tx.ptx.ldmatrix("x4.shared::cta", pa[i][h]) for i in Tx.unroll(TILES_M)]
            fb = [Tx.ptx.ldmatrix("x4.shared::cta", pb[j][h]) for j in Tx.unroll(2)]
            acc = [Tx.ptx.mma_sync(MMA, fa[i], fb[j // 2][2 * (j % 2):2 * (j % 2) + 2],
                                   acc[i * TILES_N + j])
                   for i in Tx.unroll(TILES_M) for j in Tx.unroll(TILES_N)]
        Tx.cuda.sync_threads()
    g = Tx.udiv(lane, 4)
    tq = Tx.urem(lane, 4)
    t2 = tq * 2
    obase = (m0 + wrow + g) * N + (n0 + wcol + t2)
    for i in Tx.unroll(TILES_M):
        for j in Tx.unroll(TILES_N):
            for r in Tx.unroll(4):  # d[r]: row + 8 * (r / 2), column + r % 2
                offset = (i * 16 + (r // 2) * 8) * N + j * 8 + r % 2
                Tx.cuda.store(D, obase + offset, acc[i * TILES_N + j][r])


def inputs():
    rng = np.random.default_rng(0)
    return [rng.integers(-2, 3, M * K).astype(np.float16),
            rng.integers(-2, 3, N * K).astype(np.float16)]


def reference(a, bt):
    return (a.reshape(M, K).astype(np.float32) @ bt.reshape(N, K).astype(np.float32).T).ravel()


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(gemm_mma_sync.interpret(*args) - reference(*args)).max())
