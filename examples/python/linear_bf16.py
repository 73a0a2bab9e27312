"""A bf16 linear layer, Y = X @ W^T + b, with W stored [N, K] as nn.Linear keeps it (K-major, the
layout tensor-core MMAs read B in): X is 128x256, W is 256x256, b is 1x256, Y is 128x256 bf16.
Two CTAs of 128 threads each own 128 output columns. The K loop issues gemm_async with `accum`
into an f32 register tile (the interpreter completes it synchronously); the epilogue adds the
bias row and rounds to bf16 on the copy out. (Python twin of examples/linear_bf16.mlir.)

    python examples/python/linear_bf16.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(grid=(2,), threads=(128,))
def linear(X: Tx.Buffer[(128, 256), "bf16"],
           W: Tx.Buffer[(256, 256), "bf16"],
           b: Tx.Buffer[(1, 256), "bf16"],
           Y: Tx.Out[(128, 256), "bf16"]):
    cta = Tx.cta_id("x")
    n0 = cta * 128
    acc = Tx.alloc((128, 128), "f32", scope="local")
    sx = Tx.alloc((128, 64), "bf16", scope="shared")
    sw = Tx.alloc((128, 64), "bf16", scope="shared")
    Tx.cta.zero(acc)
    for k in range(0, 256, 64):
        x = X[:, k:k + 64]
        w = W[n0:n0 + 128, k:k + 64]
        Tx.cta.copy_async(sx, x)
        Tx.cta.copy_async(sw, w)
        Tx.cta.gemm_async(acc, sx, sw, accum=True)
    bias = b[:, n0:n0 + 128]
    Tx.cta.add(acc, acc, bias)
    y = Y[:, n0:n0 + 128]
    Tx.cta.copy(y, acc)
