"""Start-up and whole-process cost of the tools, each against a reference run in the same rounds.

    python bench/startup.py [--rounds 9] [--kernels softmax_128x512,matmul_512 | --kernels all]

Each row is a pair of fresh processes run in alternating rounds (bench/timing.py), timed as
wall time and as CPU time (the children's user + system time, ``resource.getrusage``), median
(interquartile range); the ratio is the median of the per-round ratios:

* ``import xdsl.dialects.builtin`` against ``python -c pass``: the least any xDSL tool pays;
* ``import tirx_mlir`` (every builtin backend registered) against ``import xdsl.dialects.builtin``;
* ``tirx-opt`` on an empty module against ``xdsl-opt`` on it (goal <= 1.0);
* ``tirx-opt --pass-pipeline=trn K -t nki`` against ``tirx-opt`` on an empty module, per kernel
  K of examples/trn (goal <= 1.3): what a compile adds to the fixed cost of a tool run.

Both sides run with a warm bytecode cache, as an installed package does: the children write
and read their ``.pyc`` files in a temporary ``PYTHONPYCACHEPREFIX`` (``PYTHONDONTWRITEBYTECODE``
unset for them), and the untimed first run of each row fills it. Without that an editable
checkout under ``PYTHONDONTWRITEBYTECODE=1`` recompiles every tirx_mlir module on each run
(~60-70 ms of CPU for an empty module) while xDSL reads its installed ``.pyc`` files, so the
ratio would measure Python's compiler rather than start-up. For the same reason the tools'
dataclass-code cache (`tirx_mlir.tools.dataclass_cache`, the compiled methods of dataclasses)
lives in a temporary ``TIRX_MLIR_CACHE_DIR`` that the untimed first run fills: ``--cold-cache``
turns it off (``TIRX_MLIR_CACHE=0``) to show what a first run pays.

Finally the modules a compile imports: numpy and ml_dtypes should not be among them (only the
interpreter and the printers that need arrays import numpy).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from timing import alternate, load_line, ms, ratio_text, timed_process  # noqa: E402

EXAMPLES = BENCH.parent / "examples" / "trn"
BIN = Path(sys.executable).parent
DEFAULT_KERNELS = ("nki_add_1", "softmax_128x512", "matmul_512", "layernorm_affine_rows")
GOALS = {"tirx-opt empty module": 1.0, "trn": 1.3}


def cached_bytecode_env(prefix: str, dataclass_cache: bool = True) -> dict[str, str]:
    """The children's environment: ``.pyc`` files and the tools' dataclass code written to and
    read from ``prefix`` (the latter off without ``dataclass_cache``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = prefix
    env["TIRX_MLIR_CACHE_DIR"] = os.path.join(prefix, "tirx_mlir")
    env["TIRX_MLIR_CACHE"] = "1" if dataclass_cache else "0"
    return env


ENV: dict[str, str] | None = None
"""The environment every timed child runs in (`cached_bytecode_env`, set by `main`)."""


def row(name: str, ref_name: str, cmd: list[str], ref: list[str], rounds: int,
        goal: float | None = None) -> None:
    timed_process(cmd, ENV)  # warm the file and bytecode caches for both
    timed_process(ref, ENV)
    a, b, ratio = alternate(rounds, lambda: timed_process(cmd, ENV),
                            lambda: timed_process(ref, ENV))
    note = f"  goal <= {goal}" if goal is not None else ""
    print(f"{name:44s} {ms(a.cpu)} {ms(b.cpu)} {ratio_text(ratio.cpu)} "
          f"{ratio_text(ratio.wall)}  vs {ref_name}{note}")


def compile_imports(kernel: Path) -> list[str]:
    """The numpy / ml_dtypes modules ``tirx-opt --pass-pipeline=trn K -t nki`` imports."""
    probe = ("import sys, runpy; sys.argv = ['tirx-opt', '--pass-pipeline=trn', sys.argv[1], "
             "'-t', 'nki', '-o', '/dev/null']\n"
             "from tirx_mlir.tools.tirx_opt import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'ml_dtypes')"
             " and '.' not in m))")
    out = subprocess.run([sys.executable, "-c", probe, str(kernel)], capture_output=True,
                         text=True, check=True)
    return eval(out.stdout.strip().splitlines()[-1])  # a printed list of names


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--kernels", default=",".join(DEFAULT_KERNELS),
                        help="comma-separated examples/trn stems, or 'all'")
    parser.add_argument("--cold-cache", action="store_true",
                        help="run the tools without their dataclass-code cache (TIRX_MLIR_CACHE=0)")
    args = parser.parse_args()
    stems = sorted(p.stem for p in EXAMPLES.glob("*.mlir")) if args.kernels == "all" else \
        [k for k in args.kernels.split(",") if k]
    py = sys.executable
    tirx_opt, xdsl_opt = str(BIN / "tirx-opt"), str(BIN / "xdsl-opt")
    global ENV
    pycache = tempfile.TemporaryDirectory(prefix="tirx-startup-pycache-")
    ENV = cached_bytecode_env(pycache.name, not args.cold_cache)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write("builtin.module {}\n")
        empty = f.name
    load = os.getloadavg()
    print(f"fresh processes (warm bytecode cache), {args.rounds} alternating rounds; CPU ms: median (IQR), then the "
          f"per-round ratio of CPU and of wall time")
    print(f"{'':44s} {'CPU':>17s} {'reference CPU':>17s} {'CPU ratio':>14s} {'wall ratio':>14s}")
    row("import xdsl.dialects.builtin", "python -c pass",
        [py, "-c", "import xdsl.dialects.builtin"], [py, "-c", "pass"], args.rounds)
    row("import tirx_mlir", "import xdsl.dialects.builtin", [py, "-c", "import tirx_mlir"],
        [py, "-c", "import xdsl.dialects.builtin"], args.rounds)
    row("tirx-opt empty module", "xdsl-opt empty module", [tirx_opt, empty], [xdsl_opt, empty],
        args.rounds, GOALS["tirx-opt empty module"])
    for stem in stems:
        kernel = str(EXAMPLES / f"{stem}.mlir")
        row(f"tirx-opt --pass-pipeline=trn {stem} -t nki", "tirx-opt empty module",
            [tirx_opt, "--pass-pipeline=trn", kernel, "-t", "nki"], [tirx_opt, empty],
            args.rounds, GOALS["trn"])
    os.unlink(empty)
    pycache.cleanup()
    if stems:
        found = compile_imports(EXAMPLES / f"{stems[0]}.mlir")
        print(f"\nnumpy / ml_dtypes imported by the {stems[0]} compile: {found or 'none'}")
    print(load_line(load))


if __name__ == "__main__":
    main()
