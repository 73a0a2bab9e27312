"""Where a trn compile's process time over an empty module goes: imports, first use, the compile.

    PYTHONPATH=TREE python bench/startup_split.py [--kernels softmax_128x512,matmul_512] [--runs 5]

`startup.py` gives the ratio ``tirx-opt --pass-pipeline=trn K -t nki`` / ``tirx-opt`` on an empty
module (goal <= 1.3). This splits what the compile adds, per kernel K, in fresh processes that
import ``tirx_mlir.tools.tirx_opt`` (with the tools' bytecode and dataclass-code caches warm, in
the temporary folders `startup.py` uses) and run ``main`` once on an empty module first, so that
argument parsing, the context and the printer lookup are warm as in the empty run:

* ``imports``: importing, one after another, the modules the compile imports beyond the empty run
  (listed by a first process; the order they were first imported in);
* ``first use``: the first compile of K after those imports, less ``warm``: completing op
  classes, first answers of class tests, regular expressions, tables filled on first call;
* ``warm``: the compile of K in a process that compiled every other examples/trn kernel first
  (so what any compile fills once is filled, while K's own inputs are new to the parser).

Each figure is CPU time (``time.process_time``), the median over ``--runs`` processes, with the
collector off as in ``tirx-opt``; ``empty`` is the whole ``tirx-opt`` process on an empty module
(children's CPU), so the last column, (imports + first compile) / empty, is what the compile adds
to 1.0 in `startup.py`'s ratio (its whole-process ratio also counts what exiting costs).
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

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from startup import BIN, DEFAULT_KERNELS, EXAMPLES, cached_bytecode_env  # noqa: E402
from timing import load_line, timed_process  # noqa: E402

PROBE = r"""
import gc, glob, importlib, json, os, sys, time
mode, kernel, empty, *listed = sys.argv[1:]
from tirx_mlir.tools.tirx_opt import main
gc.disable()

def run(argv):
    sys.argv = ["tirx-opt", *argv, "-o", os.devnull]
    start = time.process_time()
    try:
        main()
    except SystemExit as done:
        if done.code:
            raise
    return (time.process_time() - start) * 1e3

def compile_(path):
    return run(["--pass-pipeline=trn", path, "-t", "nki"])

run([empty])
before = list(sys.modules)
if mode == "list":
    compile_(kernel)
    known = set(before)
    print(json.dumps([m for m in sys.modules if m not in known]))
    sys.exit(0)
modules = json.loads(listed[0])
start = time.process_time()
for name in modules:
    importlib.import_module(name)
imports = (time.process_time() - start) * 1e3
if mode == "first":
    print(json.dumps({"imports": imports, "first": compile_(kernel)}))
else:
    for other in sorted(glob.glob(os.path.join(os.path.dirname(kernel), "*.mlir"))):
        if os.path.basename(other) != os.path.basename(kernel):
            compile_(other)
    print(json.dumps({"warm": compile_(kernel)}))
"""


def probe(env: dict[str, str], *args: str) -> object:
    """The probe's printed JSON; run outside any checkout (``-c`` puts the working directory
    first on the path), so PYTHONPATH chooses the tree."""
    out = subprocess.run([sys.executable, "-c", PROBE, *args], env=env, capture_output=True,
                         text=True, cwd=env["PYTHONPYCACHEPREFIX"])
    if out.returncode:
        raise SystemExit(f"startup_split: the probe failed ({args[0]} {args[1]}):\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def split(kernel: Path, empty: str, env: dict[str, str], runs: int) -> dict[str, float]:
    """Median CPU ms of ``imports``, ``first`` (the first compile) and ``warm`` for ``kernel``."""
    probe(env, "list", str(kernel), empty)  # the tools' caches filled for this compile
    modules = json.dumps(probe(env, "list", str(kernel), empty))
    firsts = [probe(env, "first", str(kernel), empty, modules) for _ in range(runs)]
    warms = [probe(env, "warm", str(kernel), empty, modules) for _ in range(runs)]
    return {"modules": len(json.loads(modules)),
            "imports": statistics.median(r["imports"] for r in firsts),
            "first": statistics.median(r["first"] for r in firsts),
            "warm": statistics.median(r["warm"] for r in warms)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kernels", default=",".join(DEFAULT_KERNELS),
                        help="comma-separated examples/trn stems")
    args = parser.parse_args()
    pycache = tempfile.TemporaryDirectory(prefix="tirx-startup-pycache-")
    env = cached_bytecode_env(pycache.name)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write("builtin.module {}\n")
        empty = f.name
    load = os.getloadavg()
    tool = [str(BIN / "tirx-opt"), empty]
    timed_process(tool, env)  # fills the caches
    empty_cpu = statistics.median(timed_process(tool, env)[1] * 1e3 for _ in range(args.runs))
    print(f"tirx-opt on an empty module: {empty_cpu:.1f} ms CPU (median of {args.runs})")
    print(f"{'kernel':24s} {'modules':>7s} {'imports':>8s} {'first use':>9s} {'warm':>7s}"
          f" {'(imports + first) / empty':>26s}")
    for stem in [k for k in args.kernels.split(",") if k]:
        row = split(EXAMPLES / f"{stem}.mlir", empty, env, args.runs)
        first_use = row["first"] - row["warm"]
        share = (row["imports"] + row["first"]) / empty_cpu
        print(f"{stem:24s} {row['modules']:7d} {row['imports']:8.1f} {first_use:9.1f} "
              f"{row['warm']:7.1f} {share:26.3f}")
    os.unlink(empty)
    pycache.cleanup()
    print(load_line(load))


if __name__ == "__main__":
    main()
