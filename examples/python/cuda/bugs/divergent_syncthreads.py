"""BUG (on purpose): the same array reverse, but its __syncthreads sits inside `if (t < 32)`, so
only the first warp reaches it: a divergent barrier, which hangs or is undefined on a GPU. The
SIMT interpreter reports it as an error naming the threads that did not arrive. (Python twin of
examples/cuda/bugs/divergent_syncthreads.mlir.)

    python examples/python/cuda/bugs/divergent_syncthreads.py
"""

from tirx_mlir import script as Tx

N = 64


@Tx.kernel(target="cuda -arch=sm_80", threads=(N,))
def reverse(In: Tx.Buffer[(N,), "f32"], Out: Tx.Out[(N,), "f32"]):
    s = Tx.cuda.shared_alloc(result_types=["!tirx.buffer<64xf32, shared>"])
    t = Tx.cuda.thread_idx("x")
    Tx.cuda.store(s, t, Tx.cuda.load(In, t))
    if Tx.cmp("ult", t, 32):  # BUG: only warp 0 reaches the barrier
        Tx.cuda.sync_threads()
    w = Tx.cuda.load(s, (N - 1) - t)
    Tx.cuda.store(Out, t, w)


if __name__ == "__main__":
    import numpy as np

    try:
        reverse.interpret(np.arange(N, dtype=np.float32))
    except Tx.SourceError as err:
        print(err)
