"""Row softmax of a ragged [1000, 1000] f32 matrix: 1000 rows are 7 partition tiles of 128 and a
last one of 104. The default layout tiles the rows that way (S[(8,128,1000):(1000@F,1@P,1@F)],
covering 1024 rows of which the last 24 are never addressed); dispatch cuts every tile op into
its 896 regular rows (a loop over full tiles) and the 104 remaining ones, so each step issues
one instruction per row tile and column chunk, the last one smaller, as a hand-written NKI
kernel does. Columns go 500 at a time (two equal chunks of at most 512). (Python twin of
examples/trn/softmax_1000x1000.mlir.)

    python examples/python/trn/softmax_1000x1000.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def softmax_1000x1000(X: Tx.Buffer[(1000, 1000), "f32"], Y: Tx.Out[(1000, 1000), "f32"]):
    x = Tx.alloc((1000, 1000), "f32", scope="trn.sbuf")
    m = Tx.alloc((1000, 1), "f32", scope="trn.sbuf")
    s = Tx.alloc((1000, 1), "f32", scope="trn.sbuf")
    Tx.copy(x, X)
    Tx.reduce_negate(m, x, reduce="max")
    Tx.unary_reduce(x, s, x, bias=m, unary="exp", reduce="sum")
    Tx.reciprocal(s, s)
    Tx.mul(x, x, s)
    Tx.copy(Y, x)
