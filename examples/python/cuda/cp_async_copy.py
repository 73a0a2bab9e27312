"""A double-buffered global -> shared -> global copy with cp.async (LDGSTS on sm_80+). Each block
copies 16 tiles of 1024 floats; each of its 256 threads moves 16 bytes of a tile. While the
block drains stage k % 2, the copy of tile k + 1 into the other stage is in flight:
cp.async.wait_group 1 waits for all but the newest group. (Python twin of
examples/cuda/cp_async_copy.mlir.)

    python examples/python/cuda/cp_async_copy.py
"""

import numpy as np

from tirx_mlir import script as Tx

TILE = 1024  # floats per tile: 256 threads x 16 bytes
STEPS = 16   # tiles per block
N = 16 * STEPS * TILE


@Tx.kernel(target="cuda -arch=sm_80", grid=(N // (STEPS * TILE),), threads=(TILE // 4,))
def cp_async_copy(In: Tx.Buffer[(N,), "f32"], Out: Tx.Out[(N,), "f32"]):
    stages = Tx.cuda.shared_alloc(align=128, result_types=["!tirx.buffer<2x1024xf32, shared>"])
    t = Tx.cuda.thread_idx("x")
    first = Tx.cuda.block_idx("x") * (STEPS * TILE)
    mine = t * 4
    src = Tx.cuda.address(In, first + mine)
    Tx.ptx.cp_async("cg.shared", Tx.cuda.address(stages, mine), src, 16)  # tile 0 -> stage 0
    Tx.ptx.cp_async_commit_group()
    for k in range(STEPS):
        nxt = k + 1
        if nxt < STEPS:  # tile k + 1 into the other stage, in flight while k drains
            dst = Tx.urem(nxt, 2) * TILE + mine
            ahead = Tx.cuda.address(In, first + nxt * TILE + mine)
            Tx.ptx.cp_async("cg.shared", Tx.cuda.address(stages, dst), ahead, 16)
        Tx.ptx.cp_async_commit_group()
        Tx.ptx.cp_async_wait_group(1)  # all groups but the newest: tile k has landed
        Tx.cuda.sync_threads()
        v = Tx.ptx.ld("shared.v4.f32", Tx.cuda.address(stages, Tx.urem(k, 2) * TILE + mine))
        Tx.ptx.st("global.v4.f32", Tx.cuda.address(Out, first + k * TILE + mine), v)
        Tx.cuda.sync_threads()


def reference(x):
    return x


if __name__ == "__main__":
    x = np.random.default_rng(0).standard_normal(N).astype(np.float32)
    print("copied exactly:", (cp_async_copy.interpret(x) == x).all())
