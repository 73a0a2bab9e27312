"""One 16x8x16 tensor-core tile, D = A * B, with A 16x16 f16 row-major and B given as B^T, an 8x16
f16 row-major array (the "col" operand mma.sync wants). One warp stages A and B in shared memory
with half2 copies, loads its fragments with ldmatrix (x4 for A, x2 for B: lane l points at row l
% 16 / l % 8 and column 8 * (l / 16) / 8 * ((l / 8) % 2)), runs one mma.sync.m16n8k16 with a
zero accumulator and stores D (16x8 f32): lane l holds rows l / 4 and l / 4 + 8, columns 2 * (l
% 4) and 2 * (l % 4) + 1. (Python twin of examples/cuda/mma_tile.mlir.)

    python examples/python/cuda/mma_tile.py
"""

import numpy as np

from tirx_mlir import script as Tx

MMA = "m16n8k16.f32.f16.f16.f32"


@Tx.kernel(target="cuda -arch=sm_80", threads=(32,))
def mma_tile(A: Tx.Buffer[(16 * 16,), "f16"], Bt: Tx.Buffer[(8 * 16,), "f16"],
             D: Tx.Out[(16 * 8,), "f32"]):
    sA = Tx.cuda.shared_alloc(align=128, result_types=["!tirx.buffer<16x16xf16, shared>"])
    sB = Tx.cuda.shared_alloc(align=128, result_types=["!tirx.buffer<8x16xf16, shared>"])
    lane = Tx.cuda.thread_idx("x")
    l2 = lane * 2
    for k in range(4):  # A: two halves per lane and step
        i = k * 64 + l2
        Tx.cuda.store(sA, i, Tx.cuda.load(A, i, result_types=["vector<2xf16>"]))
    for k in range(2):  # B^T
        i = k * 64 + l2
        Tx.cuda.store(sB, i, Tx.cuda.load(Bt, i, result_types=["vector<2xf16>"]))
    Tx.cuda.sync_threads()
    arow = Tx.urem(lane, 16)
    acol = Tx.udiv(lane, 16) * 8
    fa = Tx.ptx.ldmatrix("x4.shared::cta", Tx.cuda.address(sA, arow * 16 + acol))
    brow = Tx.urem(lane, 8)
    bcol = Tx.urem(Tx.udiv(lane, 8), 2) * 8
    fb = Tx.ptx.ldmatrix("x2.shared::cta", Tx.cuda.address(sB, brow * 16 + bcol))
    d = Tx.ptx.mma_sync(MMA, fa, fb, [0.0] * 4)
    g = Tx.udiv(lane, 4)
    t2 = Tx.urem(lane, 4) * 2
    i0 = g * 8 + t2  # d[0], d[1]: row g, columns t2, t2 + 1; d[2], d[3]: row g + 8
    i1 = i0 + 1
    i2 = i0 + 8 * 8
    i3 = i2 + 1
    for r in Tx.unroll(4):
        Tx.cuda.store(D, (i0, i1, i2, i3)[r], d[r])


def inputs():
    rng = np.random.default_rng(0)
    return [rng.integers(-3, 4, 16 * 16).astype(np.float16),
            rng.integers(-3, 4, 8 * 16).astype(np.float16)]


def reference(a, bt):
    return (a.reshape(16, 16).astype(np.float32) @ bt.reshape(8, 16).astype(np.float32).T).ravel()


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(mma_tile.interpret(*args) - reference(*args)).max())
