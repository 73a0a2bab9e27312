"""BUG (on purpose): an array reverse through shared memory with the __syncthreads between the
store and the load left out. Thread t stores In[t] to s[t] and loads s[63 - t], which thread 63
- t stored: with no barrier between them that is a read-after-write race. The SIMT interpreter's
racecheck reports it at the load; putting `cuda.sync_threads` after the store fixes it. (Python
twin of examples/cuda/bugs/missing_barrier_race.mlir.)

    python examples/python/cuda/bugs/missing_barrier_race.py
"""

from tirx_mlir import script as Tx

N = 64


@Tx.kernel(target="cuda -arch=sm_80", threads=(N,))
def reverse(In: Tx.Buffer[(N,), "f32"], Out: Tx.Out[(N,), "f32"]):
    s = Tx.cuda.shared_alloc(result_types=["!tirx.buffer<64xf32, shared>"])
    t = Tx.cuda.thread_idx("x")
    Tx.cuda.store(s, t, Tx.cuda.load(In, t))
    # BUG: no Tx.cuda.sync_threads() here; thread t reads what thread N - 1 - t wrote
    w = Tx.cuda.load(s, (N - 1) - t)
    Tx.cuda.store(Out, t, w)


if __name__ == "__main__":
    import numpy as np

    try:
        reverse.interpret(np.arange(N, dtype=np.float32))
    except Tx.SourceError as err:
        print(err)
