"""Y = X @ W for X [1000, 256], W [256, 512], written as the loop a user writes: 8 row tiles of
128, the last of 1000 - 7 * 128 = 104 rows, each guarded by %rows = min(128, 1000 - i * 128).
X's tile holds M on partitions, so dispatch transposes it on TensorE (an identity matmul over
its guarded rows) to put K on partitions; the gemm then accumulates the two K tiles of 128 in a
PSUM tile guarded like Y's rows and evicts it: per row tile, 2 transposes + 2 matmuls, each one
guarded instruction (nl.ds on the rows in -t nki, mask= in -t nki-legacy), as a hand-written
NKI kernel does.
(Python twin of examples/trn/guarded_matmul.mlir.)

    python examples/python/trn/guarded_matmul.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def guarded_matmul(X: Tx.Buffer[(1000, 256), "f32"],
                   W: Tx.Buffer[(256, 512), "f32"],
                   Y: Tx.Out[(1000, 512), "f32"]):
    w = Tx.alloc((256, 512), "f32", scope="trn.sbuf")
    x = Tx.alloc((128, 256), "f32", scope="trn.sbuf")
    y = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    Tx.copy(w, W)
    for i in range(8):
        row = i * 128
        left = 1000 - row
        rows = min(128, left)
        src = X[Tx.ds(row, rows, max=128)]
        dst = Y[Tx.ds(row, rows, max=128)]
        xs = x[Tx.ds(0, rows, max=128)]
        ys = y[Tx.ds(0, rows, max=128)]
        Tx.copy(xs, src)
        Tx.gemm(ys, xs, w)
        Tx.copy(dst, ys)
