"""One 16x8x16 tensor-core tile, D = A * B, with A 16x16 f16 row-major and B given as B^T, an 8x16
f16 row-major array (the "col" operand mma.sync wants). One warp stages A and B in shared memory
with half2 copies, loads its fragments with ldmatrix (x4 for A, x2 for B: lane l points at row l
% 16 / l % 8 and column 8 * (l / 16) / 8 * ((l / 8) % 2)), runs one mma.sync.m16n8k16 with a
zero accumulator and stores D (16x8 f32): lane l holds rows l / 4 and l / 4 + 8, columns 2 * (l
% 4) and 2 * (l % 4) + 1. (Python twin of examples/cuda/mma_tile.mlir.)

    python examples/python/cuda/mma_tile.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target='cuda -arch=sm_80', grid=(1,), threads=(32,))
def mma_tile(A: Tx.Buffer[(256,), 'f16'], Bt: Tx.Buffer[(128,), 'f16'], D: Tx.Out[(128,), 'f32']):
    sA = Tx.cuda.shared_alloc(align=128, result_types=['!tirx.buffer<16x16xf16, shared>'])
    sB = Tx.cuda.shared_alloc(align=128, result_types=['!tirx.buffer<8x16xf16, shared>'])
    lane = Tx.cuda.thread_idx('x')
    l2 = lane * 2
    for k in range(0, 4, 1):
        off = k * 64
        i = off + l2
        a = Tx.cuda.load(A, i, result_types=['vector<2xf16>'])
        Tx.cuda.store(sA, i, a)
    for k_1 in range(0, 2, 1):
        off_1 = k_1 * 64
        i_1 = off_1 + l2
        b = Tx.cuda.load(Bt, i_1, result_types=['vector<2xf16>'])
        Tx.cuda.store(sB, i_1, b)
    Tx.cuda.sync_threads()
    arow = Tx.urem(lane, 16)
    ahalf = Tx.udiv(lane, 16)
    acol = ahalf * 8
    arow16 = arow * 16
    aidx = arow16 + acol
    pa = Tx.cuda.address(sA, aidx)
    fa = Tx.ptx.ldmatrix('x4.shared::cta', pa)
    brow = Tx.urem(lane, 8)
    bq = Tx.udiv(lane, 8)
    bhalf = Tx.urem(bq, 2)
    bcol = bhalf * 8
    brow16 = brow * 16
    bidx = brow16 + bcol
    pb = Tx.cuda.address(sB, bidx)
    fb = Tx.ptx.ldmatrix('x2.shared::cta', pb)
    d = Tx.ptx.mma_sync('m16n8k16.f32.f16.f16.f32', [fa[0], fa[1], fa[2], fa[3]], [fb[0], fb[1]], [0.0, 0.0, 0.0, 0.0])
    g = Tx.udiv(lane, 4)
    t = Tx.urem(lane, 4)
    t2 = t * 2
    r0 = g * 8
    i0 = r0 + t2
    i1 = i0 + 1
    i2 = i0 + 64
    i3 = i2 + 1
    Tx.cuda.store(D, i0, d[0])
    Tx.cuda.store(D, i1, d[1])
    Tx.cuda.store(D, i2, d[2])
    Tx.cuda.store(D, i3, d[3])
