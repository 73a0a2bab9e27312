"""Causal attention probabilities, P[h] = softmax(mask(S[h])) for 4 heads of 64x64 scores (twin
of examples/causal_softmax.mlir): one CTA of 128 threads per head; the mask keeps key j <= query
i and writes -1e30 above the diagonal.

    python examples/python/causal_softmax.py
"""

import numpy as np

from tirx_mlir import script as Tx

HEADS, L = 4, 64


@Tx.kernel(grid=(HEADS,), threads=(128,))
def causal_softmax(S: Tx.Buffer[(HEADS, L, L), "f32"], P: Tx.Out[(HEADS, L, L), "f32"]):
    h = Tx.cta_id("x")
    s = S[h, :, :]
    p = P[h, :, :]
    t = Tx.alloc((L, L), scope="shared")
    negmax = Tx.alloc((L, 1), scope="shared")
    sum = Tx.alloc((L, 1), scope="shared")
    Tx.cta.copy(t, s)
    Tx.cta.select(t, t, -1.0e30, where=lambda i, j: i >= j)
    Tx.cta.reduce_negate(negmax, t, reduce="max")
    Tx.cta.unary_reduce(t, sum, t, bias=negmax, unary="exp", reduce="sum")
    Tx.cta.fdiv(t, t, sum)
    Tx.cta.copy(p, t)


def inputs():
    return [np.random.default_rng(0).standard_normal((HEADS, L, L)).astype(np.float32)]


def reference(s):
    i, j = np.indices((L, L))
    masked = np.where(i >= j, s, -1.0e30)
    e = np.exp(masked - masked.max(axis=2, keepdims=True))
    return e / e.sum(axis=2, keepdims=True)


if __name__ == "__main__":
    (s,) = inputs()
    print("max abs error vs numpy:", np.abs(causal_softmax.interpret(s) - reference(s)).max())
