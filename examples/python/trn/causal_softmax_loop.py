"""Causal softmax of a [512, 512] f32 score matrix, one 128-row query tile per iteration of a loop
(an scf.for the printers keep as a loop, not unrolled). The causal mask of tile %i reads the
loop variable: key k is kept where k <= i * 128 + q, i.e. the select predicate (d0, d1)[s0] :
(s0 * 128 + d0 - d1 >= 0) with s0 bound to %i (`symbols [%i]`). Dispatch adds the symbols' part
(128 * i) to the nki.affine_select offset; the masked scores are -3.0e38 (NKI's fp32 minimum),
so exp makes them 0. (Python twin of examples/trn/causal_softmax_loop.mlir.)

    python examples/python/trn/causal_softmax_loop.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def causal_softmax_loop(S: Tx.Buffer[(512, 512), "f32"], P: Tx.Out[(512, 512), "f32"]):
    s = Tx.alloc((128, 512), "f32", scope="trn.sbuf")
    m = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    z = Tx.alloc((128, 1), "f32", scope="trn.sbuf")
    for i in range(4):
        row = i * 128
        src = S[row:row + 128]
        dst = P[row:row + 128]
        Tx.copy(s, src)
        Tx.select(s, s, -3e+38, where=lambda d0, d1: ((((i * 128) + d0) + (d1 * -1)) >= 0))
        Tx.reduce_negate(m, s, reduce="max")
        Tx.unary_reduce(s, z, s, bias=m, unary="exp", reduce="sum")
        Tx.reciprocal(z, z)
        Tx.mul(s, s, z)
        Tx.copy(dst, s)
