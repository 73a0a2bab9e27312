"""Time the disk compile cache saves: a cold compile (a miss) against a warm one (a hit), each in
a fresh process, as a user who compiles the same kernel again later would see it.

    python bench/compile_cache.py [--repeat N] [--examples add,softmax_256x2048,vector_add]

For each kernel (trn examples go through the ``trn`` pipeline and both NKI printers; CUDA
examples through both CUDA printers, ptxas and cuobjdump when installed) it prints the best of
N fresh-process compiles with an empty cache directory (miss) and with a filled one (hit), the
compile call itself (the process has parsed and verified the kernel once, so the imports of xDSL
and the dialects are warm) and the ratio miss / hit. Process start-up and the imports are in the
first columns, as in real use; the compile columns leave them out.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ("trn/add", "trn/softmax_256x2048", "trn/matmul_512", "cuda/vector_add",
           "cuda/tma_wgmma")
CHILD = ("import sys, time\nimport tirx_mlir\n"
         "from tirx_mlir.interpreter.launch import verify_module\n"
         "from tirx_mlir.located_parser import parse_module\n"
         "verify_module(parse_module(open(sys.argv[1]).read(), sys.argv[1]))  # warm the imports\n"
         "t1 = time.perf_counter()\nart = tirx_mlir.compile(sys.argv[1])\n"
         "t2 = time.perf_counter()\nprint(art.cache_hit, t2 - t1)\n")


def one(path: str, cache: str) -> tuple[float, float, bool]:
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": cache}
    env.pop("TIRX_MLIR_CACHE", None)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True,
                          env=env, cwd=ROOT, check=True)
    wall = time.perf_counter() - start
    hit, inner = proc.stdout.split()
    return wall, float(inner), hit == "True"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--examples", default=",".join(DEFAULT),
                        help="comma-separated examples/<dir>/<name> without .mlir")
    args = parser.parse_args()
    print(f"{'kernel':28s} {'process miss s':>8s} {'hit s':>8s} {'ratio':>7s}   "
          f"{'compile miss':>12s} {'compile hit':>11s} {'ratio':>8s}")
    for name in args.examples.split(","):
        path = os.path.join(ROOT, "examples", f"{name}.mlir")
        misses, hits = [], []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as cache:
                miss = one(path, cache)
                hit = one(path, cache)
            assert not miss[2] and hit[2], f"{name}: expected a miss then a hit"
            misses.append(miss)
            hits.append(hit)
        m_wall, h_wall = min(w for w, _, _ in misses), min(w for w, _, _ in hits)
        m_in, h_in = min(t for _, t, _ in misses), min(t for _, t, _ in hits)
        print(f"{name:28s} {m_wall:8.3f} {h_wall:8.3f} {m_wall / h_wall:6.2f}x   "
              f"{m_in:12.4f} {h_in:11.4f} {m_in / h_in:7.1f}x")


if __name__ == "__main__":
    main()
