"""The SwiGLU gate of an MLP, then fp8 quantization: Y = silu(G) * U in bf16, and Q = fp8_e4m3(Y *
16) for the next matmul (scale 16 keeps small activations representable). Two CTAs of 128
threads, one 128-row tile each; the casts round to nearest even. (Python twin of
examples/swiglu_fp8.mlir.)

    python examples/python/swiglu_fp8.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(grid=(2,), threads=(128,))
def swiglu_fp8(G: Tx.Buffer[(256, 256), "bf16"],
               U: Tx.Buffer[(256, 256), "bf16"],
               Y: Tx.Out[(256, 256), "bf16"],
               Q: Tx.Out[(256, 256), "f8E4M3FN"]):
    cta = Tx.cta_id("x")
    row = cta * 128
    g = G[row:row + 128]
    u = U[row:row + 128]
    y = Y[row:row + 128]
    q = Q[row:row + 128]
    sg = Tx.alloc((128, 256), "bf16", scope="shared")
    su = Tx.alloc((128, 256), "bf16", scope="shared")
    sq = Tx.alloc((128, 256), "f32", scope="shared")
    Tx.cta.copy(sg, g)
    Tx.cta.copy(su, u)
    Tx.cta.silu(sg, sg)
    Tx.cta.mul(sg, sg, su)
    Tx.cta.copy(y, sg)
    Tx.cta.mul(sq, sg, 16.0)
    Tx.cta.cast(q, sq)
