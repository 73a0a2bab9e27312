"""LayerNorm of X [1000, 512] with gamma, beta [1, 512], written as the loop a user writes: 8
row tiles of 128, the last of 1000 - 7 * 128 = 104 rows, every view guarded by
%rows = min(128, 1000 - i * 128). gamma and beta are put on every partition once, before the
loop (tirx.copy of a [1, 512] row into a [128, 512] tile: a ones-row matmul on TensorE), and
each tile reads their guarded rows. Per tile: a row sum, the centring (tensor_scalar), the
centred squares' sum (tensor_scalar_reduce), rstd = 1 / sqrt(ss / 512 + eps), the affine part
(binary_chain: x * rstd * gamma, then + beta), each one guarded instruction.
(Python twin of examples/trn/guarded_layernorm.mlir.)

    python examples/python/trn/guarded_layernorm.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def guarded_layernorm(X: Tx.Buffer[(1000, 512), "f32"],
                      Gamma: Tx.Buffer[(1, 512), "f32"],
                      Beta: Tx.Buffer[(1, 512), "f32"],
                      Y: Tx.Out[(1000, 512), "f32"]):
    g = Tx.alloc((1, 512), "f32", scope="trn.sbuf")
    b = Tx.alloc((1, 512), "f32", scope="trn.sbuf")
    gb = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    bb = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    Tx.copy(g, Gamma)
    Tx.copy(b, Beta)
    Tx.copy(gb, g)
    Tx.copy(bb, b)
    x = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    sq = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    mean = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    ss = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    for i in range(8):
        row = i * 128
        left = 1000 - row
        rows = min(128, left)
        src = X[Tx.ds(row, rows, max=128)]
        dst = Y[Tx.ds(row, rows, max=128)]
        xs = x[Tx.ds(0, rows, max=128)]
        sqs = sq[Tx.ds(0, rows, max=128)]
        gs = gb[Tx.ds(0, rows, max=128)]
        bs = bb[Tx.ds(0, rows, max=128)]
        ms = mean[Tx.ds(0, rows, max=128)]
        vs = ss[Tx.ds(0, rows, max=128)]
        Tx.copy(xs, src)
        Tx.sum(ms, xs)
        Tx.mul(ms, ms, -0.001953125)
        Tx.add(xs, xs, ms)
        Tx.binary_reduce(sqs, vs, xs, xs, binary="mul", reduce="sum")
        Tx.sqrt(vs, vs, bias=1e-05, scale=0.001953125)
        Tx.reciprocal(vs, vs)
        Tx.binary_chain(xs, xs, vs, gs, op0="mul", op1="mul")
        Tx.add(xs, xs, bs)
        Tx.copy(dst, xs)
