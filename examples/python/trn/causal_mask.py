"""Causal mask of a [128, 512] attention-score tile on Trainium (twin of
examples/trn/causal_mask.mlir): keep S[q, k] where key k <= query 384 + q, else -3e38.

    python examples/python/trn/causal_mask.py
"""

import numpy as np

from tirx_mlir import script as Tx

Q0 = 384  # the query block's row offset in the sequence


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def causal_mask(S: Tx.Buffer[(128, 512), "f32"], M: Tx.Out[(128, 512), "f32"]):
    s = Tx.alloc((128, 512), scope="trn.sbuf")
    m = Tx.alloc((128, 512), scope="trn.sbuf")
    Tx.copy(s, S)
    Tx.select(m, s, -3.0e38, where=lambda q, k: k <= q + Q0)
    Tx.copy(M, m)


def inputs():
    return [np.random.default_rng(0).standard_normal((128, 512)).astype(np.float32)]


def reference(s):
    q, k = np.indices(s.shape)
    return np.where(k <= q + Q0, s, np.float32(-3.0e38))


if __name__ == "__main__":
    (s,) = inputs()
    print("max abs error vs numpy:", np.abs(causal_mask(s) - reference(s)).max())
