"""Row softmax of a [256, 2048] f32 matrix held in one SBUF buffer with the split-partition layout
S[(2,128,2048):(2048@F,1@P,1@F)] (rows r and r + 128 share a partition). Every tile op runs on
the whole logical buffer; dispatch splits the rows into the two partition tiles and the 2048
columns into instructions (elementwise: 512 free elements each; reductions: whole rows). (Python
twin of examples/trn/softmax_256x2048.mlir.)

    python examples/python/trn/softmax_256x2048.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def softmax_256x2048(X: Tx.Buffer[(256, 2048), "f32"], Y: Tx.Out[(256, 2048), "f32"]):
    x = Tx.alloc((256, 2048), "f32", scope="trn.sbuf", layout="S[(2,128,2048):(2048@F,1@P,1@F)]")
    m = Tx.alloc((256, 1), "f32", scope="trn.sbuf")
    s = Tx.alloc((256, 1), "f32", scope="trn.sbuf")
    Tx.copy(x, X)
    Tx.reduce_negate(m, x, reduce="max")
    Tx.unary_reduce(x, s, x, bias=m, unary="exp", reduce="sum")
    Tx.reciprocal(s, s)
    Tx.mul(x, x, s)
    Tx.copy(Y, x)
