"""An mbarrier producer/consumer hand-off in one block of two warps. Thread 0 initialises the
barrier for 32 arrivals; warp 0 (the producer) writes 32 values to shared memory and each of its
lanes arrives (release semantics); warp 1 (the consumer) spins on mbarrier.test_wait.parity for
phase 0 (acquire), then reads the values. (Python twin of examples/cuda/mbarrier_pipeline.mlir.)

    python examples/python/cuda/mbarrier_pipeline.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_80", threads=(64,))
def mbarrier_pipeline(In: Tx.Buffer[(32,), "f32"], Out: Tx.Out[(32,), "f32"]):
    data = Tx.cuda.shared_alloc(result_types=["!tirx.buffer<32xf32, shared>"])
    bar = Tx.cuda.shared_alloc(align=8, result_types=["!tirx.buffer<1xi64, shared>"])
    pbar = Tx.cuda.address(bar, 0)
    t = Tx.cuda.thread_idx("x")
    leader = t == 0
    if leader:
        Tx.ptx.mbarrier_init("shared", pbar, Tx.const(32, "i32"))
    Tx.cuda.sync_threads()
    w = Tx.cuda.warp_id()
    lane = Tx.cuda.lane_id()
    producer = w == 0
    if producer:
        x = Tx.cuda.load(In, lane)
        y = x * 2.0
        Tx.cuda.store(data, lane, y)
        state = Tx.ptx.mbarrier_arrive("shared", pbar)
    else:
        while not (Tx.ptx.mbarrier_test_wait_parity("shared", pbar, Tx.const(0, "i32"))):
            pass
        v = Tx.cuda.load(data, lane)
        Tx.cuda.store(Out, lane, v)
