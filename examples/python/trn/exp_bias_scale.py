"""Activations with bias and scale on a [128, 512] f32 tile (nki.activation computes f(x * scale +
bias)): Y = exp(0.5 * x + b) with a per-row bias tile b [128, 1], and Z = exp(x * s - 1.0) with
a per-row scale tile s [128, 1] and a constant bias (NeuronCore-v2 takes no scalar bias: it
becomes a shared [128, 1] constant tile, filled once at kernel entry). (Python twin of
examples/trn/exp_bias_scale.mlir.)

    python examples/python/trn/exp_bias_scale.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def exp_bias_scale(X: Tx.Buffer[(128, 512), "f32"],
                   Bias: Tx.Buffer[(128, 1), "f32"],
                   Scale: Tx.Buffer[(128, 1), "f32"],
                   Y: Tx.Out[(128, 512), "f32"],
                   Z: Tx.Out[(128, 512), "f32"]):
    x = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    b = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    s = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    y = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    z = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    Tx.copy(x, X)
    Tx.copy(b, Bias)
    Tx.copy(s, Scale)
    Tx.exp(y, x, bias=b, scale=0.5)
    Tx.exp(z, x, bias=-1.0, scale=s)
    Tx.copy(Y, y)
    Tx.copy(Z, z)
