"""Row softmax of a 64x1024 f32 matrix in registers on sm_80, one row per CTA: Triton's fused
softmax tutorial shape (one program per row of 1024, 4 warps). 64 CTAs of 128 threads; lane l of
warp w holds columns 512r + 128w + 4l + e (r < 2, e < 4: two runs of 4, 16-byte loads), 8
registers. The row max and sum are xor butterflies over the lanes, then the 4 warps' partials
meet in a small shared scratch after a barrier. (Python twin of
examples/cuda/tile/softmax_row.mlir.)

    python examples/python/cuda/tile/softmax_row.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_80", grid=(64,), threads=(128,))
def softmax_row(X: Tx.Buffer[(64, 1024), "f32"], Y: Tx.Out[(64, 1024), "f32"]):
    row = Tx.cta_id("x")
    xg = X[row:row + 1]
    yg = Y[row:row + 1]
    x = Tx.alloc((1, 1024), "f32", scope="local", layout="S[(2,4,32,4):(4,1@warpid,1@laneid,1)]")
    negmax = Tx.alloc((1, 1), "f32", scope="local")
    v_sum = Tx.alloc((1, 1), "f32", scope="local")
    Tx.cta.copy(x, xg)
    Tx.cta.reduce_negate(negmax, x, reduce="max")
    Tx.cta.unary_reduce(x, v_sum, x, bias=negmax, unary="exp", reduce="sum")
    Tx.cta.reciprocal(v_sum, v_sum)
    Tx.cta.mul(x, x, v_sum)
    Tx.cta.copy(yg, x)
