"""Vector add with 128-bit accesses through the ``Tx.ptx`` namespace (twin of
examples/cuda/vector_add.mlir): each thread loads four floats of A and B with one
``ld.global.nc.v4.f32`` each, adds them, and writes them with one ``st.global.v4.f32``.

    python examples/python/cuda/vector_add.py
"""

import numpy as np

from tirx_mlir import script as Tx

N, THREADS = 65536, 256


@Tx.kernel(target="cuda -arch=sm_80", grid=(N // (4 * THREADS),), threads=(THREADS,))
def vector_add(A: Tx.Buffer[(N,), "f32"], B: Tx.Buffer[(N,), "f32"], C: Tx.Out[(N,), "f32"]):
    t = Tx.cuda.thread_idx("x")
    b = Tx.cuda.block_idx("x")
    i = (b * THREADS + t) * 4
    pa = Tx.cuda.address(A, i)
    pb = Tx.cuda.address(B, i)
    pc = Tx.cuda.address(C, i)
    a = Tx.ptx.ld("global.nc.v4.f32", pa)
    v = Tx.ptx.ld("global.nc.v4.f32", pb)
    Tx.ptx.st("global.v4.f32", pc, [a[0] + v[0], a[1] + v[1], a[2] + v[2], a[3] + v[3]])


def inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal(N).astype(np.float32), rng.standard_normal(N).astype(np.float32)]


def reference(a, b):
    return a + b


if __name__ == "__main__":
    args = inputs()
    print("max abs error vs numpy:", np.abs(vector_add.interpret(*args) - reference(*args)).max())
