"""A warp-shuffle sum with the ``Tx.cuda`` namespace (twin of examples/cuda/warp_reduce.mlir):
each block of 256 threads reduces its inputs with a xor butterfly of ``__shfl_xor_sync`` (five
steps, unrolled at parse time; every lane ends with its warp's sum) and lane 0 of each warp
adds the warp's sum to the output with one ``atomicAdd``.

    python examples/python/cuda/warp_reduce.py
"""

import numpy as np

from tirx_mlir import script as Tx

THREADS = 256


@Tx.kernel(target="cuda -arch=sm_80", grid=(65536 // THREADS,), threads=(THREADS,))
def warp_reduce(X: Tx.Buffer[(65536,), "f32"], Sum: Tx.Out[(1,), "f32"]):
    t = Tx.cuda.thread_idx("x")
    b = Tx.cuda.block_idx("x")
    i = b * THREADS + t
    x = Tx.cuda.load(X, i, nc=True)
    for step in Tx.unroll(5):
        x = x + Tx.cuda.shfl_sync("xor", -1, x, 16 >> step)
    if Tx.cuda.lane_id() == 0:
        Tx.cuda.atomic("add", Sum, 0, x)


def inputs():
    """X (small integers: every order of the float additions gives the exact sum) and the
    initial value of Sum, which the atomics add to."""
    x = np.random.default_rng(0).integers(-8, 8, 65536).astype(np.float32)
    return [x, np.zeros(1, np.float32)]


def reference(x, initial):
    return initial + x.sum(dtype=np.float32)


if __name__ == "__main__":
    args = inputs()
    print("sum:", warp_reduce.interpret(*args), "numpy:", reference(*args))
