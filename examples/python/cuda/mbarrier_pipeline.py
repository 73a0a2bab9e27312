"""An mbarrier producer/consumer hand-off in one block of two warps. Thread 0 initialises the
barrier for 32 arrivals; warp 0 (the producer) writes 32 values to shared memory and each of its
lanes arrives (release semantics); warp 1 (the consumer) spins on mbarrier.test_wait.parity for
phase 0 (acquire), then reads the values. (Python twin of examples/cuda/mbarrier_pipeline.mlir.)

    python examples/python/cuda/mbarrier_pipeline.py
"""

import numpy as np

from tirx_mlir import script as Tx

N = 32  # values handed over: one per producer lane


@Tx.kernel(target="cuda -arch=sm_80", threads=(64,))
def mbarrier_pipeline(In: Tx.Buffer[(N,), "f32"], Out: Tx.Out[(N,), "f32"]):
    data = Tx.cuda.shared_alloc(result_types=["!tirx.buffer<32xf32, shared>"])
    bar = Tx.cuda.shared_alloc(align=8, result_types=["!tirx.buffer<1xi64, shared>"])
    pbar = Tx.cuda.address(bar, 0)
    t = Tx.cuda.thread_idx("x")
    if t == 0:
        Tx.ptx.mbarrier_init("shared", pbar, N)  # completes after N arrivals
    Tx.cuda.sync_threads()
    warp = Tx.cuda.warp_id()
    lane = Tx.cuda.lane_id()
    if warp == 0:  # the producer: write, then arrive (release)
        x = Tx.cuda.load(In, lane)
        Tx.cuda.store(data, lane, x * 2.0)
        Tx.ptx.mbarrier_arrive("shared", pbar)
    else:  # the consumer: spin until phase 0 completes (acquire), then read
        while not Tx.ptx.mbarrier_test_wait_parity("shared", pbar, 0):
            pass
        v = Tx.cuda.load(data, lane)
        Tx.cuda.store(Out, lane, v)


def reference(x):
    return 2 * x


if __name__ == "__main__":
    x = np.arange(N, dtype=np.float32)
    print(mbarrier_pipeline.interpret(x))
