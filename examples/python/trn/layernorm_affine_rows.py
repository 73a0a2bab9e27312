"""LayerNorm of a [200, 512] f32 matrix with affine weights given as rows gamma, beta: [1, 512]
(shared by every row): y = (x - mean) / sqrt(var + eps) * gamma + beta, written the natural way:
the [1, 512] rows are loaded once and used with the [200, 512] tile directly. Each is broadcast
across partitions once (a ones-vector matmul on TensorE: the row is on chip) and read by every
row tile; the 200 rows are a full tile of 128 and a partial one of 72. (Python twin of
examples/trn/layernorm_affine_rows.mlir.)

    python examples/python/trn/layernorm_affine_rows.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def layernorm_affine_rows(X: Tx.Buffer[(200, 512), "f32"],
                          Gamma: Tx.Buffer[(1, 512), "f32"],
                          Beta: Tx.Buffer[(1, 512), "f32"],
                          Y: Tx.Out[(200, 512), "f32"]):
    x = Tx.alloc((200, 512), "f32", scope="trn.sbuf")
    sq = Tx.alloc((200, 512), "f32", scope="trn.sbuf")
    mean = Tx.alloc((200, 1), "f32", scope="trn.sbuf")
    ss = Tx.alloc((200, 1), "f32", scope="trn.sbuf")
    gamma = Tx.alloc((1, 512), "f32", scope="trn.sbuf")
    beta = Tx.alloc((1, 512), "f32", scope="trn.sbuf")
    Tx.copy(x, X)
    Tx.copy(gamma, Gamma)
    Tx.copy(beta, Beta)
    Tx.sum(mean, x)
    Tx.mul(mean, mean, -0.001953125)
    Tx.add(x, x, mean)
    Tx.binary_reduce(sq, ss, x, x, binary="mul", reduce="sum")
    Tx.sqrt(ss, ss, bias=1e-05, scale=0.001953125)
    Tx.reciprocal(ss, ss)
    Tx.mul(x, x, ss)
    Tx.mul(x, x, gamma)
    Tx.add(x, x, beta)
    Tx.copy(Y, x)
