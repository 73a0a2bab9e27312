"""Row softmax of a 512x256 f32 matrix in registers on sm_80. 16 CTAs of 128 threads, 32 rows each:
warp w holds rows 8w..8w+7, each lane 8 of a row's 256 elements (two runs of 4, read with
16-byte loads), 64 registers. The row max and the row sum are xor butterflies over the lanes
(shfl.sync.bfly): no shared memory, no barrier; cuda-default-layout gives %negmax and %sum the
rows of their warp in every lane, so the broadcasts read them in place. (Python twin of
examples/cuda/tile/softmax_registers.mlir.)

    python examples/python/cuda/tile/softmax_registers.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_80", grid=(16,), threads=(128,))
def softmax_registers(X: Tx.Buffer[(512, 256), "f32"], Y: Tx.Out[(512, 256), "f32"]):
    cta = Tx.cta_id("x")
    row = cta * 32
    xg = X[row:row + 32]
    yg = Y[row:row + 32]
    x = Tx.alloc((32, 256), "f32", scope="local", layout="S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]")
    negmax = Tx.alloc((32, 1), "f32", scope="local")
    v_sum = Tx.alloc((32, 1), "f32", scope="local")
    Tx.cta.copy(x, xg)
    Tx.cta.reduce_negate(negmax, x, reduce="max")
    Tx.cta.unary_reduce(x, v_sum, x, bias=negmax, unary="exp", reduce="sum")
    Tx.cta.reciprocal(v_sum, v_sum)
    Tx.cta.mul(x, x, v_sum)
    Tx.cta.copy(yg, x)
