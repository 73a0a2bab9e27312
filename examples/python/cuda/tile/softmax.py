"""Row softmax of a 512x256 f32 matrix on sm_80 (twin of examples/cuda/tile/softmax.mlir): 16
CTAs of 128 threads, one 32-row tile each in shared memory, cta-scope ops.

    python examples/python/cuda/tile/softmax.py
"""

import numpy as np

from tirx_mlir import script as Tx

ROWS = 32


@Tx.kernel(target="cuda -arch=sm_80", grid=(512 // ROWS,), threads=(128,))
def softmax(X: Tx.Buffer[(512, 256), "f32"], Y: Tx.Out[(512, 256), "f32"]):
    row = Tx.cta_id("x") * ROWS
    x = X[row:row + ROWS, :]
    y = Y[row:row + ROWS, :]
    t = Tx.alloc((ROWS, 256), scope="shared")
    negmax = Tx.alloc((ROWS, 1), scope="shared")
    sum = Tx.alloc((ROWS, 1), scope="shared")
    Tx.cta.copy(t, x)
    Tx.cta.reduce_negate(negmax, t, reduce="max")
    Tx.cta.unary_reduce(t, sum, t, bias=negmax, unary="exp", reduce="sum")
    Tx.cta.reciprocal(sum, sum)
    Tx.cta.mul(t, t, sum)
    Tx.cta.copy(y, t)


def inputs():
    return [np.random.default_rng(0).standard_normal((512, 256)).astype(np.float32)]


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    (x,) = inputs()
    print("max abs error vs numpy:", np.abs(softmax.interpret(x) - reference(x)).max())
