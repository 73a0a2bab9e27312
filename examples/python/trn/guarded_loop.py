"""Row softmax of a [1000, 512] f32 matrix, one 128-row tile per iteration of a loop of 8: the last
tile holds 1000 - 7 * 128 = 104 rows. Each iteration guards its views with %rows = min(128, 1000
- i * 128) (TIRx's guarded tile ops): `tirx.slice %X[%row, 0] [%rows, 512]` views %rows rows, at
most 128 (its result type), and every op on a guarded view touches only those rows. The SBUF
tiles are sized by the maximum; tirx-check-bounds proves that %row + %rows - 1 <= 999 from the
ranges of %i and of the min. (Python twin of examples/trn/guarded_loop.mlir.)

    python examples/python/trn/guarded_loop.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def guarded_loop(X: Tx.Buffer[(1000, 512), "f32"], Y: Tx.Out[(1000, 512), "f32"]):
    x = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    m = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    z = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    for i in range(8):
        row = i * 128
        left = 1000 - row
        rows = min(128, left)
        src = X[Tx.ds(row, rows, max=128)]
        dst = Y[Tx.ds(row, rows, max=128)]
        xs = x[Tx.ds(0, rows, max=128)]
        ms = m[Tx.ds(0, rows, max=128)]
        zs = z[Tx.ds(0, rows, max=128)]
        Tx.copy(xs, src)
        Tx.reduce_negate(ms, xs, reduce="max")
        Tx.unary_reduce(xs, zs, xs, bias=ms, unary="exp", reduce="sum")
        Tx.reciprocal(zs, zs)
        Tx.mul(xs, xs, zs)
        Tx.copy(dst, xs)
