"""BUG (on purpose): the same array reverse, but its __syncthreads sits inside `if (t < 32)`, so
only the first warp reaches it: a divergent barrier, which hangs or is undefined on a GPU. The
SIMT interpreter reports it as an error naming the threads that did not arrive. (Python twin of
examples/cuda/bugs/divergent_syncthreads.mlir.)

    python examples/python/cuda/bugs/divergent_syncthreads.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="cuda -arch=sm_80", threads=(64,))
def reverse(In: Tx.Buffer[(64,), "f32"], Out: Tx.Out[(64,), "f32"]):
    s = Tx.cuda.shared_alloc(result_types=["!tirx.buffer<64xf32, shared>"])
    t = Tx.cuda.thread_idx("x")
    v = Tx.cuda.load(In, t)
    Tx.cuda.store(s, t, v)
    low = Tx.cmp("ult", t, 32)
    if low:
        Tx.cuda.sync_threads()
    r = 63 - t
    w = Tx.cuda.load(s, r)
    Tx.cuda.store(Out, t, w)
