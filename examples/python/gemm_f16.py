"""C = A @ B with f16 inputs and f32 accumulation: A is 256x128, B is 128x256, C is 256x256 f32. A
2x2 grid of CTAs (128 threads each) computes one 128x128 tile of C per CTA; an scf.for loop
walks K in steps of 64, staging the A and B tiles in shared memory and accumulating into a
register (local) tile with gemm's beta = 1. (Python twin of examples/gemm_f16.mlir.)

    python examples/python/gemm_f16.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(grid=(2, 2), threads=(128,))
def gemm(A: Tx.Buffer[(256, 128), "f16"],
         B: Tx.Buffer[(128, 256), "f16"],
         C: Tx.Out[(256, 256), "f32"]):
    bx = Tx.cta_id("x")
    by = Tx.cta_id("y")
    m0 = by * 128
    n0 = bx * 128
    acc = Tx.alloc((128, 128), "f32", scope="local")
    sa = Tx.alloc((128, 64), "f16", scope="shared")
    sb = Tx.alloc((64, 128), "f16", scope="shared")
    Tx.cta.zero(acc)
    for k in range(0, 128, 64):
        a = A[m0:m0 + 128, k:k + 64]
        b = B[k:k + 64, n0:n0 + 128]
        Tx.cta.copy(sa, a)
        Tx.cta.copy(sb, b)
        Tx.cta.gemm(acc, sa, sb, beta=1.0)
    c = C[m0:m0 + 128, n0:n0 + 128]
    Tx.cta.copy(c, acc)
