"""A 1024x1024 f32 transpose through shared memory, 32x32 tiles, 32x8 threads per block. The tile
is padded to 33 columns, so the column reads of the second phase hit 32 different banks (a
32-column tile would put a whole column in one bank: a 32-way conflict). (Python twin of
examples/cuda/transpose.mlir.)

    python examples/python/cuda/transpose.py
"""

import numpy as np

from tirx_mlir import script as Tx

N = 1024
TILE, ROWS = 32, 8  # a 32x32 tile per block of 32x8 threads: each thread moves 4 elements
PAD = TILE + 1      # the padded row of the shared tile


@Tx.kernel(target="cuda -arch=sm_80", grid=(N // TILE, N // TILE), threads=(TILE, ROWS))
def transpose(In: Tx.Buffer[(N * N,), "f32"], Out: Tx.Out[(N * N,), "f32"]):
    tile = Tx.cuda.shared_alloc(result_types=["!tirx.buffer<32x33xf32, shared>"])
    tx = Tx.cuda.thread_idx("x")
    ty = Tx.cuda.thread_idx("y")
    bx = Tx.cuda.block_idx("x")
    by = Tx.cuda.block_idx("y")
    col0 = bx * TILE
    row0 = by * TILE
    for j in range(0, TILE, ROWS):  # rows of the input tile, coalesced along tx
        r = ty + j
        grow = row0 + r
        gcol = col0 + tx
        v = Tx.cuda.load(In, grow * N + gcol)
        Tx.cuda.store(tile, r * PAD + tx, v)
    Tx.cuda.sync_threads()
    for j in range(0, TILE, ROWS):  # columns of the shared tile: rows of the output
        r = ty + j
        v = Tx.cuda.load(tile, tx * PAD + r)
        orow = col0 + r
        ocol = row0 + tx
        Tx.cuda.store(Out, orow * N + ocol, v)


def reference(x):
    return x.reshape(N, N).T.ravel()


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal(N * N).astype(np.float32)
    print("transposed exactly:", (transpose.interpret(x) == reference(x)).all())
