"""Y = silu(X + bias) on sm_80 (twin of examples/cuda/tile/bias_silu.mlir): X [256, 256] f32,
bias [1, 256] broadcast over the rows; 8 CTAs of 128 threads, a 32-row tile each.

    python examples/python/cuda/tile/bias_silu.py
"""

import numpy as np

from tirx_mlir import script as Tx

ROWS = 32


@Tx.kernel(target="cuda -arch=sm_80", grid=(256 // ROWS,), threads=(128,))
def bias_silu(X: Tx.Buffer[(256, 256), "f32"], B: Tx.Buffer[(1, 256), "f32"],
              Y: Tx.Out[(256, 256), "f32"]):
    row = Tx.cta_id("x") * ROWS
    x = X[row:row + ROWS, :]
    y = Y[row:row + ROWS, :]
    t = Tx.alloc((ROWS, 256), scope="shared")
    b = Tx.alloc((1, 256), scope="shared")
    Tx.cta.copy(t, x)
    Tx.cta.copy(b, B)
    Tx.cta.add(t, t, b)
    Tx.cta.silu(t, t)
    Tx.cta.copy(y, t)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((256, 256)).astype(np.float32),
            rng.standard_normal((1, 256)).astype(np.float32)]


def reference(x, b):
    z = x + b
    return z / (1.0 + np.exp(-z))


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(bias_silu.interpret(*args) - reference(*args)).max())
