"""Tile-level interpretation against direct numpy, both measured in the same run.

    python bench/interp.py [--repeat N]

Workloads (f32), each checked against its numpy result before timing:

* gemm 512x512x512: ``one-tile``, one CTA staging A and B whole in shared memory and running one
  tile gemm; ``128-tiles``, a 4x4 grid of 128x128 output tiles with a K loop of step 128 (the
  usual CTA tiling: 16 CTAs x 4 steps, ~300 interpreted ops). Reference: ``A @ B``.
* softmax 1024x1024 over rows: ``one-tile`` (one CTA, all rows) and ``128-rows`` (8 CTAs of 128
  rows). Reference: ``e = exp(x - max(x)); e / sum(e)``.

BLAS runs single-threaded by default (``--blas-threads``; set before numpy loads): on a small
shared machine a multi-threaded BLAS makes both sides' times swing by several x.

The interpreted time is what ``KernelRunner(...)(a, b)`` costs: argument checks, input copies,
NaN-filled outputs and on-chip buffers, and the kernel; parsing and building the interpreter
happen once and are reported apart. Times are the best of N runs, numpy and interpreter runs
interleaved so both see the same machine load; ratio = numpy time / interpreted time (the goal is
>= 0.5).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def _blas_threads_from_argv() -> str:
    argv = sys.argv[1:]
    for i, arg in enumerate(argv):
        if arg.startswith("--blas-threads="):
            return arg.split("=", 1)[1]
        if arg == "--blas-threads" and i + 1 < len(argv):
            return argv[i + 1]
    return "1"


for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = _blas_threads_from_argv()

import numpy as np  # noqa: E402 - after the BLAS thread setting

from tirx_mlir.located_parser import parse_module  # noqa: E402
from tirx_mlir.interpreter import KernelRunner, verify_module  # noqa: E402


def _t(spec: str, scope: str = "global") -> str:
    return f"!tirx.buffer<{spec}xf32, {scope}>"


def gemm_ir(size: int, tile: int) -> str:
    """C = A @ B (size^3) with tile x tile output tiles per CTA and a K loop of step ``tile``."""
    g = size // tile
    full, blk = f"{size}x{size}", f"{tile}x{tile}"
    return f"""
tirx.kernel @gemm(%A: {_t(full)}, %B: {_t(full)}) -> (%C: {_t(full)}) grid [{g}, {g}] threads [128] {{
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c0 = arith.constant 0 : index
  %ct = arith.constant {tile} : index
  %cn = arith.constant {size} : index
  %m0 = arith.muli %by, %ct : index
  %n0 = arith.muli %bx, %ct : index
  %acc = tirx.alloc : {_t(blk, "local")}
  %sa = tirx.alloc : {_t(blk, "shared")}
  %sb = tirx.alloc : {_t(blk, "shared")}
  tirx.zero cta %acc : {_t(blk, "local")}
  scf.for %k = %c0 to %cn step %ct {{
    %a = tirx.slice %A[%m0, %k] [{tile}, {tile}] : {_t(full)} -> {_t(blk)}
    %b = tirx.slice %B[%k, %n0] [{tile}, {tile}] : {_t(full)} -> {_t(blk)}
    tirx.copy cta %sa, %a : {_t(blk, "shared")}, {_t(blk)}
    tirx.copy cta %sb, %b : {_t(blk, "shared")}, {_t(blk)}
    tirx.gemm cta %acc, %sa, %sb beta 1.0 : {_t(blk, "local")}, {_t(blk, "shared")}, {_t(blk, "shared")}
  }}
  %c = tirx.slice %C[%m0, %n0] [{tile}, {tile}] : {_t(full)} -> {_t(blk)}
  tirx.copy cta %c, %acc : {_t(blk)}, {_t(blk, "local")}
  tirx.return
}}"""


def softmax_ir(rows: int, cols: int, tile_rows: int) -> str:
    full, blk, col = f"{rows}x{cols}", f"{tile_rows}x{cols}", f"{tile_rows}x1"
    return f"""
tirx.kernel @softmax(%X: {_t(full)}) -> (%Y: {_t(full)}) grid [{rows // tile_rows}] threads [128] {{
  %cta = tirx.cta_id x : index
  %ct = arith.constant {tile_rows} : index
  %row = arith.muli %cta, %ct : index
  %x = tirx.slice %X[%row, 0] [{tile_rows}, {cols}] : {_t(full)} -> {_t(blk)}
  %y = tirx.slice %Y[%row, 0] [{tile_rows}, {cols}] : {_t(full)} -> {_t(blk)}
  %t = tirx.alloc : {_t(blk, "shared")}
  %m = tirx.alloc : {_t(col, "shared")}
  %s = tirx.alloc : {_t(col, "shared")}
  tirx.copy cta %t, %x : {_t(blk, "shared")}, {_t(blk)}
  tirx.reduce_negate cta %m, %t reduce max : {_t(col, "shared")}, {_t(blk, "shared")}
  tirx.unary_reduce cta %t, %s, %t bias %m unary exp reduce sum : {_t(blk, "shared")}, {_t(col, "shared")}, {_t(blk, "shared")}, {_t(col, "shared")}
  tirx.reciprocal cta %s, %s : {_t(col, "shared")}, {_t(col, "shared")}
  tirx.mul cta %t, %t, %s : {_t(blk, "shared")}, {_t(blk, "shared")}, {_t(col, "shared")}
  tirx.copy cta %y, %t : {_t(blk)}, {_t(blk, "shared")}
  tirx.return
}}"""


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def measure(name: str, ir: str, args: list[np.ndarray], reference, repeat: int) -> float:
    start = time.perf_counter()
    module = parse_module(ir, f"<{name}>")
    verify_module(module)
    runner = KernelRunner(module)
    setup = time.perf_counter() - start
    (out,) = runner(*args)
    np.testing.assert_allclose(out, reference(*args), rtol=1e-4, atol=1e-4)
    t_np, t_in = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        reference(*args)
        t1 = time.perf_counter()
        runner(*args)
        t2 = time.perf_counter()
        t_np.append(t1 - t0)
        t_in.append(t2 - t1)
    ratio = min(t_np) / min(t_in)
    print(f"{name:28s} numpy {min(t_np) * 1e3:8.2f} ms   interpreted {min(t_in) * 1e3:8.2f} ms "
          f"(median {statistics.median(t_in) * 1e3:7.2f})   ratio {ratio:5.2f}   "
          f"[setup {setup * 1e3:.0f} ms]")
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--blas-threads", default="1", help="BLAS threads (default 1)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 512), dtype=np.float32)
    b = rng.standard_normal((512, 512), dtype=np.float32)
    x = rng.standard_normal((1024, 1024), dtype=np.float32)
    print(f"tile-level interpretation vs numpy (ratio = numpy time / interpreted time; goal >= "
          f"0.5); BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']}")
    measure("gemm 512^3 one-tile", gemm_ir(512, 512), [a, b], np.matmul, args.repeat)
    measure("gemm 512^3 128-tiles", gemm_ir(512, 128), [a, b], np.matmul, args.repeat)
    measure("softmax 1024^2 one-tile", softmax_ir(1024, 1024, 1024), [x], numpy_softmax,
            args.repeat)
    measure("softmax 1024^2 128-rows", softmax_ir(1024, 1024, 128), [x], numpy_softmax,
            args.repeat)


if __name__ == "__main__":
    main()
