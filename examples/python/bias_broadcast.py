"""A linear layer's epilogue: Y = relu(X * scale + bias), with a per-row scale [256, 1] (a column
vector) and a per-column bias [1, 128] (a row vector), both broadcast NumPy-style over X. Two
CTAs of 128 threads, one 128-row tile each; the bias is shared by both CTAs. (Python twin of
examples/bias_broadcast.mlir.)

    python examples/python/bias_broadcast.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(grid=(2,), threads=(128,))
def bias_relu(X: Tx.Buffer[(256, 128), "f32"],
              scale: Tx.Buffer[(256, 1), "f32"],
              bias: Tx.Buffer[(1, 128), "f32"],
              Y: Tx.Out[(256, 128), "f32"]):
    cta = Tx.cta_id("x")
    row = cta * 128
    x = X[row:row + 128]
    s = scale[row:row + 128]
    y = Y[row:row + 128]
    t = Tx.alloc((128, 128), "f32", scope="shared")
    ss = Tx.alloc((128, 1), "f32", scope="shared")
    sb = Tx.alloc((1, 128), "f32", scope="shared")
    Tx.cta.copy(t, x)
    Tx.cta.copy(ss, s)
    Tx.cta.copy(sb, bias)
    Tx.cta.fma(t, t, ss, sb)
    Tx.cta.maximum(t, t, 0.0)
    Tx.cta.copy(y, t)
