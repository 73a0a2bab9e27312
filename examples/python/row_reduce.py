"""Row sum and row max of a 256x512 f32 matrix, into two 1-D outputs. Two CTAs, one 128-row tile
each. Each tile is reduced in two 256-column halves: the second half folds into the first with
`accum` (as a kernel that streams columns through shared memory would do). (Python twin of
examples/row_reduce.mlir.)

    python examples/python/row_reduce.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(grid=(2,), threads=(128,))
def row_sum_max(X: Tx.Buffer[(256, 512), "f32"],
                S: Tx.Out[(256,), "f32"],
                M: Tx.Out[(256,), "f32"]):
    cta = Tx.cta_id("x")
    row = cta * 128
    acc_s = Tx.alloc((128,), "f32", scope="shared")
    acc_m = Tx.alloc((128,), "f32", scope="shared")
    tile = Tx.alloc((128, 256), "f32", scope="shared")
    x0 = X[row:row + 128, 0:256]
    Tx.cta.copy(tile, x0)
    Tx.cta.sum(acc_s, tile, axes=[-1])
    Tx.cta.max(acc_m, tile, axes=[-1])
    x1 = X[row:row + 128, 256:512]
    Tx.cta.copy(tile, x1)
    Tx.cta.sum(acc_s, tile, axes=[-1], accum=True)
    Tx.cta.max(acc_m, tile, axes=[-1], accum=True)
    s = S[row:row + 128]
    m = M[row:row + 128]
    Tx.cta.copy(s, acc_s)
    Tx.cta.copy(m, acc_m)
