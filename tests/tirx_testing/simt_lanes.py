"""A kernel that computes one value per thread and stores it at ``Out[tid]``: the harness of the
SIMT op tests (the body sees ``%t`` (index), ``%t32`` and ``%lane`` (i32), ``%c0``, and defines
``%r``)."""

from __future__ import annotations

import numpy as np

from tirx_testing.simt import cuda_kernel, run_simt

PRELUDE = """  %c0 = arith.constant 0 : index
  %t = cuda.thread_idx x : index
  %t32 = arith.index_cast %t : index to i32
  %li = cuda.lane_id : index
  %lane = arith.index_cast %li : index to i32
  %full = arith.constant -1 : i32
"""


def lanes_text(body: str, result: str = "i32", threads: int = 32, ins: str = "",
               target: str = "cuda -arch=sm_90a", launch: str | None = None) -> str:
    out = f"!tirx.buffer<{threads}x{result}, global>"
    signature = f"({ins}) -> (%Out: {out})"
    store = f"  cuda.store %Out, %t, %r : {out}, index, {result}"
    return cuda_kernel(signature, PRELUDE + body + "\n" + store,
                       launch or f"grid [1] threads [{threads}]", target)


def run_lanes(body: str, *inputs: np.ndarray, result: str = "i32", threads: int = 32,
              ins: str = "", target: str = "cuda -arch=sm_90a", **options) -> np.ndarray:
    """``Out`` after running ``body`` on ``threads`` threads."""
    (out,), _ = run_simt(lanes_text(body, result, threads, ins, target), *inputs, **options)
    return out
