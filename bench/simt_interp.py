"""The SIMT interpreter's speed, one function per section, each measured against numpy in the
same run.

    python bench/simt_interp.py [--repeat N] [--section NAME]

Sections:

* ``gemm_mma_sync``: examples/cuda/gemm_mma_sync.mlir, a 256x256x256 f16 -> f32 GEMM with
  ldmatrix + mma.sync, 4 warps per block (16 blocks of 128 threads), interpreted, against numpy's
  ``A.astype(f32) @ Bt.T.astype(f32)`` for the same GEMM. The issue's goal: under 5 s
  interpreted. The result is checked against numpy before timing.

* ``thread_instructions``: thread-instructions per second (ops times the threads that ran
  them, from the run's statistics) on the examples that take plain arrays and on an
  arithmetic-heavy kernel (64 dependent multiply-adds per thread, 64 blocks of 256 threads),
  with the race check on (the default) and off, each beside the time numpy takes for the same
  element operations (one array op per IR op over all threads). The issue's goal: >= 10 million
  thread-instructions per second for arithmetic-heavy code.

* ``tile_simt``: CPU time of one SIMT run of tile examples (examples/cuda/tile) lowered by the
  ``cuda`` pipeline (gemm_sm90a: TMA + mbarriers + wgmma; gemm_sm80: a cp.async ring +
  mma.sync), random inputs, the tensor maps bound as a launch binds them; the lowering happens
  once, outside the timing. Run it against another tree with ``PYTHONPATH=<tree>``.

Times are the best of N runs, numpy and interpreter runs interleaved so both see the same
machine load; the interpreted time is what ``KernelRunner(...)(a, bt)`` costs (parsing and
building the runner happen once, reported apart). BLAS runs single-threaded (set before numpy
loads). Times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402 - after the BLAS thread setting

import tirx_mlir  # noqa: E402,F401 - autoloads the cuda backend
from tirx_mlir.interpreter import KernelRunner  # noqa: E402
from tirx_mlir.located_parser import parse_module  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "cuda"


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def gemm_mma_sync(repeat: int) -> None:
    """The ldmatrix + mma.sync GEMM interpreted vs numpy's matmul."""
    path = EXAMPLES / "gemm_mma_sync.mlir"
    start = time.perf_counter()
    runner = KernelRunner(parse_module(path.read_text(), str(path)))
    setup = time.perf_counter() - start
    rng = np.random.default_rng(0)
    a = rng.standard_normal(256 * 256).astype(np.float16)
    bt = rng.standard_normal(256 * 256).astype(np.float16)
    a2, bt2 = a.reshape(256, 256), bt.reshape(256, 256)

    def numpy_gemm():
        return a2.astype(np.float32) @ bt2.T.astype(np.float32)

    (d,) = runner(a, bt)
    np.testing.assert_allclose(d.reshape(256, 256), numpy_gemm(), rtol=1e-4, atol=1e-3)
    interp = numpy = float("inf")
    for _ in range(repeat):
        numpy = min(numpy, _best(numpy_gemm, 1))
        interp = min(interp, _best(lambda: runner(a, bt), 1))
    print("gemm_mma_sync 256x256x256 f16->f32 (ldmatrix + mma.sync, 16 blocks x 4 warps)")
    print(f"  parse + runner setup: {setup * 1e3:9.1f} ms (once)")
    print(f"  interpreted:          {interp * 1e3:9.1f} ms   (goal: < 5000 ms)")
    print(f"  numpy matmul:         {numpy * 1e3:9.3f} ms")
    print(f"  interpreted / numpy:  {interp / numpy:9.0f}x")


ARITH_KERNEL = """
tirx.kernel @fma_chain(%X: !tirx.buffer<16384xf32, global>)
    -> (%Y: !tirx.buffer<16384xf32, global>) grid [64] threads [256] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %a = arith.constant 0.999 : f32
  %b = arith.constant 0.001 : f32
  %t = cuda.thread_idx x : index
  %blk = cuda.block_idx x : index
  %base = arith.muli %blk, %c256 : index
  %i = arith.addi %base, %t : index
  %x = cuda.load %X, %i : !tirx.buffer<16384xf32, global>, index -> f32
  %y = scf.for %k = %c0 to %c64 step %c1 iter_args(%v = %x) -> (f32) {
    %m = arith.mulf %v, %a : f32
    %n = arith.addf %m, %b : f32
    scf.yield %n : f32
  }
  cuda.store %Y, %i, %y : !tirx.buffer<16384xf32, global>, index, f32
  tirx.return
}
"""


def _rate_case(name: str, text: str, arrays: list, repeat: int) -> None:
    """One line: thread-instructions of a run, and their rate with and without the race
    check."""
    from tirx_mlir.backends.cuda.interpreter import executor
    from tirx_mlir.interpreter import verify_module

    module = parse_module(text, name)
    verify_module(module)
    n = None
    best = {}
    for racecheck in (True, False):
        runner = KernelRunner(module)
        executor.configure(runner.interpreter, racecheck=racecheck)
        t = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            runner(*arrays)
            t = min(t, time.process_time() - start)
        best[racecheck] = t
        n = executor.last_run(runner.interpreter).stats.thread_instructions
    print(f"  {name:<22} {n / 1e6:8.2f} M thread-instructions   "
          f"{n / best[True] / 1e6:7.1f} M/s (racecheck)   {n / best[False] / 1e6:7.1f} M/s "
          f"(without)")


def thread_instructions(repeat: int) -> None:
    """Thread-instructions per second on the examples and an arithmetic-heavy kernel."""
    rng = np.random.default_rng(0)
    f32 = lambda n: rng.standard_normal(n).astype(np.float32)  # noqa: E731
    f16 = lambda n: rng.standard_normal(n).astype(np.float16)  # noqa: E731
    print("thread_instructions (CPU time, best of the runs)")
    x = f32(16384)
    _rate_case("fma_chain (arith)", ARITH_KERNEL, [x], repeat)

    def numpy_chain():
        v = x.copy()
        for _ in range(64):
            v = v * np.float32(0.999) + np.float32(0.001)
        return v

    start = time.process_time()
    for _ in range(repeat):
        numpy_chain()
    per = (time.process_time() - start) / repeat
    print(f"  {'':<22} numpy, the same 128 array ops on 16384 elements: {per * 1e3:.2f} ms "
          f"({16384 * 130 / per / 1e6:.0f} M element-ops/s)")
    cases = {"vector_add": [f32(65536), f32(65536)], "transpose": [f32(1 << 20)],
             "warp_reduce": [f32(65536), np.zeros(1, np.float32)],
             "mma_tile": [f16(256), f16(128)], "gemm_mma_sync": [f16(65536), f16(65536)]}
    for name, arrays in cases.items():
        _rate_case(name, (EXAMPLES / f"{name}.mlir").read_text(), arrays, repeat)


TILE_EXAMPLES = ("gemm_sm90a", "gemm_sm80")


def tile_simt(repeat: int) -> None:
    """CPU time of the SIMT run of tile examples after the cuda pipeline."""
    from tirx_mlir.backends.cuda.host_tensor_maps import bind_arguments
    from tirx_mlir.backends.cuda.interpreter.values import lane_dtype
    from tirx_mlir.dialects.tirx.kernel import KernelOp
    from tirx_mlir.pipelines import get_pipeline

    print("tile_simt (CPU time of one SIMT run after the cuda pipeline, best of the runs)")
    rng = np.random.default_rng(0)
    for name in TILE_EXAMPLES:
        path = EXAMPLES / "tile" / f"{name}.mlir"
        module = parse_module(path.read_text(), str(path))
        kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
        inputs = [rng.standard_normal(a.type.get_shape()).astype(lane_dtype(a.type.element_type))
                  for a in list(kernel.body.block.args)[:kernel.n_inputs]]
        get_pipeline("cuda").apply(module)
        runner = KernelRunner(module)
        args = bind_arguments(runner.kernel, inputs)
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            runner(*args)
            best = min(best, time.process_time() - start)
        print(f"  {name:<14} {best:8.3f} s")


SECTIONS = {"gemm_mma_sync": gemm_mma_sync, "thread_instructions": thread_instructions,
            "tile_simt": tile_simt}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--section", choices=sorted(SECTIONS), action="append")
    args = parser.parse_args()
    for name in args.section or SECTIONS:
        SECTIONS[name](args.repeat)


if __name__ == "__main__":
    main()
