"""LayerNorm of X [1000, 512] with gamma, beta [1, 512], as the loop a user writes: 8 row tiles
of 128, the last of 1000 - 7 * 128 = 104 rows, every view guarded by rows = min(128, 1000 -
i * 128). gamma and beta are put on every partition once, before the loop (a copy of a [1, 512]
row into a [128, 512] tile), and each tile reads their guarded rows. (Python twin of
examples/trn/guarded_layernorm.mlir.)

    python examples/python/trn/guarded_layernorm.py
"""

from tirx_mlir import script as Tx

M, N, TILE, EPS = 1000, 512, 128, 1e-5


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def guarded_layernorm(X: Tx.Buffer[(M, N), "f32"], Gamma: Tx.Buffer[(1, N), "f32"],
                      Beta: Tx.Buffer[(1, N), "f32"], Y: Tx.Out[(M, N), "f32"]):
    gamma = Tx.alloc((1, N), "f32", scope="trn.sbuf")
    beta = Tx.alloc((1, N), "f32", scope="trn.sbuf")
    gamma_rows = Tx.alloc((TILE, N), "f32", scope="trn.sbuf")
    beta_rows = Tx.alloc((TILE, N), "f32", scope="trn.sbuf")
    Tx.copy(gamma, Gamma)
    Tx.copy(beta, Beta)
    Tx.copy(gamma_rows, gamma)  # the [1, N] row on every partition
    Tx.copy(beta_rows, beta)
    x = Tx.alloc((TILE, N), "f32", scope="trn.sbuf")
    squares = Tx.alloc((TILE, N), "f32", scope="trn.sbuf")
    mean = Tx.alloc((TILE, 1), "f32", scope="trn.sbuf")
    rstd = Tx.alloc((TILE, 1), "f32", scope="trn.sbuf")
    for i in range(8):
        row = i * TILE
        left = M - row
        rows = min(TILE, left)
        src = X[Tx.ds(row, rows, max=TILE)]
        dst = Y[Tx.ds(row, rows, max=TILE)]
        xs = x[Tx.ds(0, rows, max=TILE)]
        sq = squares[Tx.ds(0, rows, max=TILE)]
        g = gamma_rows[Tx.ds(0, rows, max=TILE)]
        b = beta_rows[Tx.ds(0, rows, max=TILE)]
        mu = mean[Tx.ds(0, rows, max=TILE)]
        r = rstd[Tx.ds(0, rows, max=TILE)]
        Tx.copy(xs, src)
        Tx.sum(mu, xs)
        Tx.mul(mu, mu, -1.0 / N)  # -mean
        Tx.add(xs, xs, mu)  # centred
        Tx.binary_reduce(sq, r, xs, xs, binary="mul", reduce="sum")
        Tx.sqrt(r, r, bias=EPS, scale=1.0 / N)  # sqrt(var + eps)
        Tx.reciprocal(r, r)
        Tx.binary_chain(xs, xs, r, g, op0="mul", op1="mul")
        Tx.add(xs, xs, b)
        Tx.copy(dst, xs)


def reference(X, Gamma, Beta):
    mu = X.mean(axis=1, keepdims=True)
    var = ((X - mu) ** 2).mean(axis=1, keepdims=True)
    return (X - mu) / (var + EPS) ** 0.5 * Gamma + Beta


if __name__ == "__main__":
    print(guarded_layernorm.ir)
