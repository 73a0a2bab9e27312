"""A transposing copy: X [128, 96] arrives with rows on partitions; the tile op copies it into a
buffer whose layout holds the same logical [128, 96] matrix transposed (dim 1 on partitions,
S[(128,96):(1@F,1@P)]), i.e. a partition-dim mismatch. Dispatch turns it into a TensorE
transpose: nki.matmul(out, x, I) writes x^T to PSUM, then tensor_copy to SBUF. Storing the
transposed buffer with rows as its logical dim gives back X; storing the transpose view of its
physical tile (Y = X^T) shows the data really moved. (Python twin of
examples/trn/transpose_copy.mlir.)

    python examples/python/trn/transpose_copy.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def transpose_copy(X: Tx.Buffer[(128, 96), "f32"],
                   Y: Tx.Out[(96, 128), "f32"],
                   Z: Tx.Out[(128, 96), "f32"]):
    x = Tx.alloc((128, 96), "f32", scope="trn.sbuf")
    xt = Tx.alloc((128, 96), "f32", scope="trn.sbuf", layout="S[(128,96):(1@F,1@P)]")
    Tx.copy(x, X)
    Tx.copy(xt, x)
    t = xt.T(1, 0)
    Tx.copy(Y, t)
    Tx.copy(Z, xt)
