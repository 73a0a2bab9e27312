"""BUG (on purpose): an array reverse through shared memory with the __syncthreads between the
store and the load left out. Thread t stores In[t] to s[t] and loads s[63 - t], which thread 63
- t stored: with no barrier between them that is a read-after-write race. The SIMT interpreter's
racecheck reports it at the load; putting `cuda.sync_threads` after the store fixes it. (Python
twin of examples/cuda/bugs/missing_barrier_race.mlir.)

    python examples/python/cuda/bugs/missing_barrier_race.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_80", threads=(64,))
def reverse(In: Tx.Buffer[(64,), "f32"], Out: Tx.Out[(64,), "f32"]):
    s = Tx.cuda.shared_alloc(result_types=["!tirx.buffer<64xf32, shared>"])
    t = Tx.cuda.thread_idx("x")
    v = Tx.cuda.load(In, t)
    Tx.cuda.store(s, t, v)
    r = 63 - t
    w = Tx.cuda.load(s, r)
    Tx.cuda.store(Out, t, w)
