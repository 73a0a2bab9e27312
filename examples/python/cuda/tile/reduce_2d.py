"""A 2-D reduction at CTA scope on sm_80: the sum over both axes of a 128x256 f32 tile, to a scalar
[1, 1]. The tile is held in registers (512 threads, 64 registers each); each thread folds its 64
elements, a shfl.sync butterfly sums each warp, the 16 warp partials meet in a small shared
scratch after a barrier, and every thread ends with the total. (Python twin of
examples/cuda/tile/reduce_2d.mlir.)

    python examples/python/cuda/tile/reduce_2d.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_80", threads=(512,))
def reduce_2d(X: Tx.Buffer[(128, 256), "f32"], S: Tx.Out[(1, 1), "f32"]):
    x = Tx.alloc((128, 256), "f32", scope="local")
    s = Tx.alloc((1, 1), "f32", scope="local", layout="S[1] + R[512:1@tx]")
    Tx.cta.copy(x, X)
    Tx.cta.sum(s, x, axes=[0, 1])
    Tx.cta.copy(S, s)
