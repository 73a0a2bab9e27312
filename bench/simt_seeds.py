"""CPU time of the SIMT interpreter on valid-program campaign seeds (tests/property).

    python bench/simt_seeds.py 5022 1014 5099 [--profile 30]

Each seed's program (`cuda_valid_programs.draw`) is parsed, run on the tile interpreter, lowered
by the cuda pipeline and then run on the SIMT interpreter; only that last run is timed (CPU
seconds, ``time.process_time``), and its outputs are compared with the tile interpreter's at
the campaign's tolerance. ``--profile N`` prints the N functions with the most own time of each
seed's SIMT run (cProfile). To compare two checkouts, run the script from each with its own
``PYTHONPATH``, alternating. Times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "property"), str(ROOT / "tests")]

import cuda_valid_programs as cvp  # noqa: E402
from tirx_testing.cuda_every_stage import run  # noqa: E402

from tirx_mlir.located_parser import parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline  # noqa: E402


def lowered(seed: int):
    """(program, lowered module, tile interpreter outputs) of ``seed``."""
    prog = cvp.draw(seed)
    module = parse_module(prog.text, f"seed{seed}.mlir")
    module.verify()
    tile = run(module, prog.inputs)
    get_pipeline("cuda", arch=prog.arch, num_stages=prog.num_stages).apply(module)
    return prog, module, tile


def agrees(prog, simt, tile) -> bool:
    for out, ref in zip(simt, tile, strict=True):
        ref32 = np.asarray(ref, np.float32)
        tol = prog.simt_rtol if np.asarray(ref).dtype == np.float32 else prog.rtol
        if not np.allclose(np.asarray(out, np.float64), np.asarray(ref, np.float64), rtol=tol,
                           atol=tol * max(1.0, float(np.abs(ref32).max())), equal_nan=True):
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", type=int, nargs="+")
    ap.add_argument("--profile", type=int, default=0, help="print the top N functions")
    args = ap.parse_args()
    for seed in args.seeds:
        prog, module, tile = lowered(seed)
        prof = cProfile.Profile() if args.profile else None
        start = time.process_time()
        if prof:
            prof.enable()
        simt = run(module, prog.inputs)
        if prof:
            prof.disable()
        cpu = time.process_time() - start
        if prof:
            pstats.Stats(prof).sort_stats("tottime").print_stats(args.profile)
        print(f"seed {seed} ({prog.family}): SIMT {cpu:.2f} s CPU, "
              f"{'agrees' if agrees(prog, simt, tile) else 'DISAGREES'}; {' '.join(prog.drawn)}",
              flush=True)


if __name__ == "__main__":
    main()
