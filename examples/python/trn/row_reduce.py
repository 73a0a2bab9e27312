"""Row reductions of a [128, 2048] f32 tile: S = sum(X, axis=-1), M = max(X, axis=-1), N = -min(X,
axis=-1) (reduce_negate). The sum is limited to 512 free elements per instruction (config
max_inst_size), so it is a two-stage reduction: four partial sums per row, then their sum; max
and min reduce each row in one instruction. (Python twin of examples/trn/row_reduce.mlir.)

    python examples/python/trn/row_reduce.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def row_reduce(X: Tx.Buffer[(128, 2048), "f32"],
               S: Tx.Out[(128, 1), "f32"],
               M: Tx.Out[(128, 1), "f32"],
               N: Tx.Out[(128, 1), "f32"]):
    x = Tx.alloc((128, 2048), "f32", scope="trn.sbuf")
    s = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    m = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    n = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    Tx.copy(x, X)
    Tx.sum(s, x, axes=[-1], config={"max_inst_size": 512})
    Tx.max(m, x)
    Tx.reduce_negate(n, x, reduce="min")
    Tx.copy(S, s)
    Tx.copy(M, m)
    Tx.copy(N, n)
