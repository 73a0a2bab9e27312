"""A 1024x1024 f32 transpose through shared memory, 32x32 tiles, 32x8 threads per block. The tile
is padded to 33 columns, so the column reads of the second phase hit 32 different banks (a
32-column tile would put a whole column in one bank: a 32-way conflict). (Python twin of
examples/cuda/transpose.mlir.)

    python examples/python/cuda/transpose.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target='cuda -arch=sm_80', grid=(32, 32), threads=(32, 8))
def transpose(In: Tx.Buffer[(1048576,), 'f32'], Out: Tx.Out[(1048576,), 'f32']):
    tile = Tx.cuda.shared_alloc(result_types=['!tirx.buffer<32x33xf32, shared>'])
    tx = Tx.cuda.thread_idx('x')
    ty = Tx.cuda.thread_idx('y')
    bx = Tx.cuda.block_idx('x')
    by = Tx.cuda.block_idx('y')
    col0 = bx * 32
    row0 = by * 32
    for j in range(0, 32, 8):
        r = ty + j
        grow = row0 + r
        gcol = col0 + tx
        gi0 = grow * 1024
        gi = gi0 + gcol
        v = Tx.cuda.load(In, gi)
        si0 = r * 33
        si = si0 + tx
        Tx.cuda.store(tile, si, v)
    Tx.cuda.sync_threads()
    for j_1 in range(0, 32, 8):
        r_1 = ty + j_1
        si0_1 = tx * 33
        si_1 = si0_1 + r_1
        v_1 = Tx.cuda.load(tile, si_1)
        orow = col0 + r_1
        ocol = row0 + tx
        oi0 = orow * 1024
        oi = oi0 + ocol
        Tx.cuda.store(Out, oi, v_1)
