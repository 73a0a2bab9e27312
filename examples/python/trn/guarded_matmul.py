"""Y = X @ W for X [1000, 256], W [256, 512], as the loop a user writes: 8 row tiles of 128, the
last of 1000 - 7 * 128 = 104 rows, each guarded by rows = min(128, 1000 - i * 128). Dispatch
transposes each X tile on TensorE (an identity matmul over its guarded rows) to put K on
partitions, accumulates the two K tiles of 128 in a PSUM tile guarded like Y's rows and evicts
it: per row tile 2 transposes + 2 matmuls, each one guarded instruction. (Python twin of
examples/trn/guarded_matmul.mlir.)

    python examples/python/trn/guarded_matmul.py
"""

from tirx_mlir import script as Tx

M, K, N, TILE = 1000, 256, 512, 128


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def guarded_matmul(X: Tx.Buffer[(M, K), "f32"], W: Tx.Buffer[(K, N), "f32"],
                   Y: Tx.Out[(M, N), "f32"]):
    w = Tx.alloc((K, N), "f32", scope="trn.sbuf")
    x = Tx.alloc((TILE, K), "f32", scope="trn.sbuf")
    y = Tx.alloc((TILE, N), "f32", scope="trn.sbuf")
    Tx.copy(w, W)
    for i in range(8):
        row = i * TILE
        left = M - row
        rows = min(TILE, left)
        src = X[Tx.ds(row, rows, max=TILE)]
        dst = Y[Tx.ds(row, rows, max=TILE)]
        x_tile = x[Tx.ds(0, rows, max=TILE)]
        y_tile = y[Tx.ds(0, rows, max=TILE)]
        Tx.copy(x_tile, src)
        Tx.gemm(y_tile, x_tile, w)
        Tx.copy(dst, y_tile)


def reference(X, W):
    return X @ W


if __name__ == "__main__":
    print(guarded_matmul.ir)
