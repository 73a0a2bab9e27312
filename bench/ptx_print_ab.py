"""``-t ptx`` alone, two trees alternating: the PTX printer's CPU time on the same lowered
modules, to compare a printer change with its base.

    python bench/ptx_print_ab.py /work/main . [--rounds 3] [--repeat 7]
                                 [--examples softmax_registers,gemm_sm80]

Each round runs one fresh process per tree (A then B, B then A on even rounds), with
``PYTHONPATH`` set to that tree. A process lowers each tile example through the ``cuda``
pipeline of its own tree (bench/triton_peers/ours.py), then times ``-t ptx`` on the lowered
module (``time.process_time``): the first emit in the process (``first``: what one compile
pays) and the least of ``--repeat`` more (``warm``). Both trees' texts are compared (a
difference is reported, and the figures are then meaningless). Prints per example and tree the
figures of every round and the median of the B / A ratios; the load average before and after.
Times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ["softmax_registers", "matmul_bias_relu", "gemm_sm80", "attention_scores",
           "reduce_2d", "softmax"]

CHILD = r"""
import hashlib, io, json, sys, time
sys.path.insert(0, sys.argv[1] + "/bench")
from triton_peers import ours as O
import tirx_mlir
from tirx_mlir import registry
from tirx_mlir.located_parser import make_context, parse_module
names, repeat = sys.argv[2].split(","), int(sys.argv[3])
out = {}
examples = {ex.stem: ex for ex in O.examples() if ex.tile_level}
for name in names:
    ex = examples[name]
    ctx = make_context()
    module = parse_module(ex.path.read_text(), str(ex.path), ctx)
    O.cuda_pipeline(ex.arch).apply(module, ctx)
    printer = registry.printers.lookup("ptx")()()
    times = []
    for _ in range(repeat + 1):
        stream = io.StringIO()
        start = time.process_time()
        printer.emit(ctx, module, stream)
        times.append(time.process_time() - start)
    out[name] = {"first": times[0], "warm": min(times[1:]),
                 "sha": hashlib.sha256(stream.getvalue().encode()).hexdigest()}
out["tree"] = str(__import__("pathlib").Path(tirx_mlir.__file__).parents[1])
print(json.dumps(out))
"""


def run(tree: str, names: list[str], repeat: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    # -P: ``-c`` would put the working directory first on sys.path, whose tirx_mlir (this
    # tree's, run from it) would win over PYTHONPATH's
    proc = subprocess.run([sys.executable, "-P", "-c", CHILD, str(ROOT), ",".join(names),
                           str(repeat)], env=env, capture_output=True, text=True, check=True,
                          cwd=tempfile.gettempdir())
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    if Path(out.pop("tree")) != Path(tree).resolve():
        raise SystemExit(f"the child imported another tree's tirx_mlir than {tree}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the base tree (its tirx_mlir is imported)")
    parser.add_argument("b", help="the changed tree")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--examples", default=",".join(DEFAULT))
    args = parser.parse_args(argv)
    names = args.examples.split(",")
    print("load average before:", os.getloadavg())
    results: dict[str, list[dict]] = {"a": [], "b": []}
    for r in range(args.rounds):
        order = ("a", "b") if r % 2 == 0 else ("b", "a")
        for side in order:
            results[side].append(run(getattr(args, side), names, args.repeat))
    print("load average after:", os.getloadavg())
    print(f"{'example':20s} {'kind':6s} {'A (ms)':>22s} {'B (ms)':>22s} {'B/A':>6s}")
    for name in names:
        same = {res[name]["sha"] for side in "ab" for res in results[side]}
        for kind in ("first", "warm"):
            a = [1000 * res[name][kind] for res in results["a"]]
            b = [1000 * res[name][kind] for res in results["b"]]
            ratio = statistics.median(y / x for x, y in zip(a, b))
            print(f"{name:20s} {kind:6s} {', '.join(f'{x:.1f}' for x in a):>22s} "
                  f"{', '.join(f'{y:.1f}' for y in b):>22s} {ratio:6.2f}")
        if len(same) != 1:
            print(f"{name}: THE TWO TREES PRINT DIFFERENT PTX")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
