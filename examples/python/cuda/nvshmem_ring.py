"""An NVSHMEM ring (twin of examples/cuda/nvshmem_ring.mlir): every PE sends its 1024 floats to
the next PE (my_pe + 1 mod n_pes) with one block-wide put-with-signal (the data lands in the
symmetric buffer Recv, then the signal word is incremented), and waits until its own signal says
the previous PE's data has arrived. Send, Recv and Sig are symmetric (nvshmem_malloc) buffers.
The interpreter runs it on ``SIMT["pes"]`` simulated PEs.

    python examples/python/cuda/nvshmem_ring.py
"""

import numpy as np

from tirx_mlir import script as Tx

N = 1024
SIMT = {"pes": 2}
"""SIMT interpreter options: two PEs."""


@Tx.kernel(target="cuda -arch=sm_90a", grid=(1,), threads=(256,))
def nvshmem_ring(Send: Tx.Buffer[(N,), "f32"], Recv: Tx.Out[(N,), "f32"],
                 Sig: Tx.Out[(1,), "i64"]):
    me = Tx.nvshmem.my_pe()
    n_pes = Tx.nvshmem.n_pes()
    peer = Tx.truncmod(me + 1, n_pes)  # C's %: both are non-negative
    Tx.nvshmem.put_signal("add", Recv, Send, N, Sig, Tx.const(1, "i64"), peer, group="block")
    Tx.nvshmem.signal_wait_until("ge", Sig, Tx.const(1, "i64"))
    Tx.nvshmem.quiet()


def inputs():
    """Send, and the initial Recv and Sig (the signal counts from 0)."""
    send = np.arange(N, dtype=np.float32)
    return [send, np.zeros(N, np.float32), np.zeros(1, np.int64)]


if __name__ == "__main__":
    from tirx_mlir.backends.cuda.interpreter import simulate

    run = simulate(nvshmem_ring.ir, None, *inputs(), **SIMT)
    for pe, (recv, sig) in enumerate(run.outputs_per_pe):
        print(f"PE {pe}: received {recv[:4]}..., signal {sig[0]}")
