"""A CUDA compile as a user runs it: one fresh ``tirx-opt --pass-pipeline=cuda K -t ptx`` process.

(A CUDA-level kernel of examples/cuda, named by its stem, is compiled as ``tirx-opt K -t ptx``.)

    python bench/cuda_fresh.py [--rounds 5] [--examples softmax,rmsnorm] [--against /work/main]

bench/cuda_compile.py times the stages warm, in one process, next to Triton; a user runs
``tirx-opt`` once, so its imports and first-use work count too. Each row here is a pair of fresh
processes in alternating rounds (bench/timing.py): CPU (the children's user + system time) and
wall, median (interquartile range), and the median of the per-round ratios. The reference is
the same compile in another checkout (``--against``, its ``tirx_mlir`` on ``PYTHONPATH``), or
without one ``tirx-opt`` on an empty module (what the compile adds to a tool run). Both sides
run with a warm bytecode and dataclass-code cache (`startup.cached_bytecode_env`), and with
``python -P`` so that the working directory never shadows the checkout under test. Last, the
modules of ml_dtypes and numpy the first example's compile imports in this checkout (ml_dtypes
should not be among them: bench/README.md, "Fresh CUDA compiles").
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

from startup import cached_bytecode_env  # noqa: E402
from timing import alternate, load_line, ms, ratio_text, timed_process  # noqa: E402

CUDA = Path("examples") / "cuda"
TILE = CUDA / "tile"
DEFAULT_EXAMPLES = ("softmax", "softmax_registers", "rmsnorm", "gemm_sm80", "matmul_bias_relu")


def tirx_opt(tree: Path, *args: str) -> list[str]:
    """``tirx-opt args`` importing ``tree``'s tirx_mlir (``-P``: not the working directory's)."""
    return [sys.executable, "-P", "-c", f"import sys; sys.path.insert(0, {str(tree)!r}); "
            "sys.argv[0] = 'tirx-opt'; from tirx_mlir.tools.tirx_opt import main; main()",
            *args]


def compile_cmd(tree: Path, stem: str) -> list[str]:
    """The compile of ``stem`` to PTX: an examples/cuda/tile kernel through the "cuda" pipeline,
    else the CUDA-level examples/cuda kernel of that name as it is (no passes)."""
    if not (ROOT / TILE / f"{stem}.mlir").exists() and (ROOT / CUDA / f"{stem}.mlir").exists():
        return tirx_opt(tree, str(tree / CUDA / f"{stem}.mlir"), "-t", "ptx", "-o", os.devnull)
    return tirx_opt(tree, "--pass-pipeline=cuda", str(tree / TILE / f"{stem}.mlir"), "-t", "ptx",
                    "-o", os.devnull)


def array_modules(tree: Path, stem: str, env: dict[str, str]) -> list[str]:
    """The top-level numpy / ml_dtypes modules ``tree``'s compile of ``stem`` imports."""
    probe = ("import sys, atexit\n"
             "atexit.register(lambda: print(sorted(m for m in sys.modules "
             "if m in ('numpy', 'ml_dtypes'))))\n")
    cmd = compile_cmd(tree, stem)
    cmd[3] = probe + cmd[3]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    return eval(out.stdout.strip().splitlines()[-1])  # a printed list of names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--examples", default=",".join(DEFAULT_EXAMPLES),
                        help="comma-separated examples/cuda/tile stems (or of CUDA-level "
                             "examples/cuda kernels, compiled without passes)")
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout: its tirx_mlir compiles the same file")
    args = parser.parse_args(argv)
    stems = [s for s in args.examples.split(",") if s]
    cache = tempfile.TemporaryDirectory(prefix="tirx-cuda-fresh-pycache-")
    env = cached_bytecode_env(cache.name)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write("builtin.module {}\n")
        empty = f.name
    load = os.getloadavg()
    ref_name = f"{args.against}" if args.against else "tirx-opt on an empty module"
    print(f"fresh tirx-opt [--pass-pipeline=cuda] K -t ptx, {args.rounds} alternating rounds "
          f"against {ref_name}; ms: median (IQR); ratios: median of the rounds' (IQR)")
    print(f"{'example':20s} {'CPU':>17s} {'reference CPU':>17s} {'wall':>17s} "
          f"{'reference wall':>17s} {'CPU ratio':>14s} {'wall ratio':>14s}")
    for stem in stems:
        cmd = compile_cmd(ROOT, stem)
        ref = compile_cmd(args.against, stem) if args.against else tirx_opt(ROOT, empty)
        timed_process(cmd, env)  # fill the bytecode and dataclass-code caches for both
        timed_process(ref, env)
        a, b, ratio = alternate(args.rounds, lambda: timed_process(cmd, env),
                                lambda: timed_process(ref, env))
        print(f"{stem:20s} {ms(a.cpu)} {ms(b.cpu)} {ms(a.wall)} {ms(b.wall)} "
              f"{ratio_text(ratio.cpu)} {ratio_text(ratio.wall)}")
    os.unlink(empty)
    if stems:
        found = array_modules(ROOT, stems[0], env)
        print(f"\nnumpy / ml_dtypes imported by the {stems[0]} compile: {found or 'none'}")
    cache.cleanup()
    print(load_line(load))
    return 0


if __name__ == "__main__":
    sys.exit(main())
