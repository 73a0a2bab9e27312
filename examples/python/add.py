"""Elementwise C = A + B on a 512x256 f16 matrix. Four CTAs of 128 threads; CTA i stages rows
[128*i, 128*i + 128) in shared memory, adds them with cta-scope (collective) tile ops, and
writes its tile back. The f16 sum is computed in f32 and rounded to nearest even when stored.
(Python twin of examples/add.mlir.)

    python examples/python/add.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(grid=(4,), threads=(128,))
def add(A: Tx.Buffer[(512, 256), "f16"],
        B: Tx.Buffer[(512, 256), "f16"],
        C: Tx.Out[(512, 256), "f16"]):
    cta = Tx.cta_id("x")
    row = cta * 128
    a = A[row:row + 128]
    b = B[row:row + 128]
    c = C[row:row + 128]
    sa = Tx.alloc((128, 256), "f16", scope="shared")
    sb = Tx.alloc((128, 256), "f16", scope="shared")
    Tx.cta.copy(sa, a)
    Tx.cta.copy(sb, b)
    Tx.cta.add(sa, sa, sb)
    Tx.cta.copy(c, sa)
