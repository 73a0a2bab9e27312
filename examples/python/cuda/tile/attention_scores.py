"""Causal attention scores on sm_80 tensor cores (twin of
examples/cuda/tile/attention_scores.mlir): S = (Q @ K^T) / sqrt(64), masked to -3e38 where the
key comes after the query; one CTA of 4 warps, Q and K staged in XOR-swizzled shared tiles, the
scores in a register tile.

    python examples/python/cuda/tile/attention_scores.py
"""

import numpy as np

from tirx_mlir import script as Tx

SEQ, HEAD = 128, 64
TILE = "swizzle(3,3,3) S[128,64]"


@Tx.kernel(target="cuda -arch=sm_80", grid=(1,), threads=(128,))
def attention_scores(Q: Tx.Buffer[(SEQ, HEAD), "f16"], K: Tx.Buffer[(SEQ, HEAD), "f16"],
                     S: Tx.Out[(SEQ, SEQ), "f32"]):
    acc = Tx.alloc((SEQ, SEQ), "f32", scope="local")
    sq = Tx.alloc((SEQ, HEAD), "f16", scope="shared", layout=TILE)
    sk = Tx.alloc((SEQ, HEAD), "f16", scope="shared", layout=TILE)
    Tx.cta.copy(sq, Q)
    Tx.cta.copy(sk, K)
    Tx.cta.gemm(acc, sq, sk, transpose_b=True)
    Tx.cta.mul(acc, acc, HEAD ** -0.5)
    Tx.cta.select(acc, acc, -3.0e38, where=lambda q, k: q >= k)
    Tx.cta.copy(S, acc)


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((SEQ, HEAD)).astype(np.float16),
            rng.standard_normal((SEQ, HEAD)).astype(np.float16)]


def reference(q, k):
    s = (q.astype(np.float32) @ k.astype(np.float32).T) * np.float32(HEAD ** -0.5)
    i, j = np.indices(s.shape)
    return np.where(i >= j, s, np.float32(-3.0e38))


if __name__ == "__main__":
    args = inputs()
    got = attention_scores.interpret(*args)
    print("max abs error vs numpy:", np.abs(got - reference(*args)).max())
