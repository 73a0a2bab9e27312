"""Row softmax of a [128, 512] f32 tile on Trainium (twin of examples/trn/softmax_128x512.mlir):
-max with reduce_negate, exp(x - max) and its row sum in one unary_reduce, 1/sum, scale.

    python examples/python/trn/softmax_128x512.py
"""

import numpy as np

from tirx_mlir import script as Tx



@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def softmax(X: Tx.Buffer[(128, 512), "f32"], Y: Tx.Out[(128, 512), "f32"]):
    x = Tx.alloc((128, 512), scope="trn.sbuf", layout="S[(128,512):(1@P,1@F)]")
    m = Tx.alloc((128, 1), scope="trn.sbuf")
    s = Tx.alloc((128, 1), scope="trn.sbuf")
    Tx.copy(x, X)
    Tx.reduce_negate(m, x, reduce="max")
    Tx.unary_reduce(x, s, x, bias=m, unary="exp", reduce="sum")
    Tx.reciprocal(s, s)
    Tx.mul(x, x, s)
    Tx.copy(Y, x)


def inputs():
    return [np.random.default_rng(0).standard_normal((128, 512)).astype(np.float32)]


def reference(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


if __name__ == "__main__":
    (x,) = inputs()
    print("max abs error vs numpy:", np.abs(softmax(x) - reference(x)).max())
