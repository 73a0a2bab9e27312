"""Print every CUDA example and every tirx-dispatch FileCheck input to files, to diff two trees.

    PYTHONPATH=/work/main python bench/cuda_dump.py /tmp/main-dump [--passes]
    PYTHONPATH=.          python bench/cuda_dump.py /tmp/branch-dump [--passes]
    diff -r /tmp/main-dump /tmp/branch-dump

For each examples/cuda/*.mlir and examples/cuda/tile/*.mlir (bench/triton_peers/ours.py's list;
tile examples through the "cuda" pipeline): ``<name>.ptx``, ``<name>.cu`` (``-t cuda``) and
``<name>.mlir`` (the lowered module); with ``--passes``, also ``<name>.passes/NN_<pass>.mlir``,
the module after each pass of the pipeline (tile examples). For each
tests/filecheck/backends/cuda/dispatch/*.mlir: ``dispatch/<stem>.mlir``, the output of its RUN
line's tirx-opt command (FileCheck checks only a part of it; this keeps all of it), stderr
included. The tirx_mlir imported is the one on PYTHONPATH, so one script dumps both trees. Used
to show that a change to the dispatch variants' cost keeps every printed program byte for byte
(bench/README.md).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_peers import ours as O  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DISPATCH_INPUTS = ROOT / "tests" / "filecheck" / "backends" / "cuda" / "dispatch"


def dump_passes(ex: O.Example, out: Path) -> None:
    """The module after each pass of ``ex``'s pipeline, one file per pass."""
    from tirx_mlir.located_parser import make_context, parse_module

    ctx = make_context()
    module = parse_module(ex.path.read_text(), str(ex.path), ctx)
    out.mkdir()
    count = [0]

    def write(p, m) -> None:
        count[0] += 1
        (out / f"{count[0]:02d}_{p.name}.mlir").write_text(str(m))

    O.cuda_pipeline(ex.arch).apply(module, ctx, callback=write)


def dump_examples(out: Path, passes: bool = False) -> None:
    for ex in O.examples():
        stages = O.compile_stages(ex)
        stem = ex.name.removeprefix("cuda/").replace("/", "_")
        (out / f"{stem}.ptx").write_text(stages.ptx)
        (out / f"{stem}.cu").write_text(stages.cuda)
        (out / f"{stem}.mlir").write_text(str(stages.module))
        if passes and ex.tile_level:
            dump_passes(ex, out / f"{stem}.passes")
        print(ex.name, flush=True)


def run_line(path: Path) -> list[str] | None:
    """The tirx-opt arguments of ``path``'s first RUN line (before its pipe), or None."""
    for line in path.read_text().splitlines():
        if line.startswith("// RUN:") and "tirx-opt" in line:
            command = line.removeprefix("// RUN:").split("|")[0]
            args = shlex.split(command.replace("%s", str(path)))
            return [a for a in args[1:] if a not in ("--verify-diagnostics", "not")]
    return None


def dump_dispatch_inputs(out: Path) -> None:
    (out / "dispatch").mkdir()
    for path in sorted(DISPATCH_INPUTS.glob("*.mlir")):
        args = run_line(path)
        if args is None:
            continue
        proc = subprocess.run([sys.executable, "-m", "tirx_mlir.tools.tirx_opt", *args],
                              capture_output=True, text=True, env=os.environ, timeout=600)
        (out / "dispatch" / path.name).write_text(proc.stdout + "\n// stderr:\n" + proc.stderr)
        print(path.name, flush=True)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="a folder that does not exist yet")
    parser.add_argument("--passes", action="store_true",
                        help="also the module after each pass of the pipeline")
    args = parser.parse_args(argv)
    out = args.out
    if out.exists():
        parser.error(f"{out} exists: give a new folder (the dump never overwrites one)")
    out.mkdir(parents=True)
    dump_examples(out, passes=args.passes)
    dump_dispatch_inputs(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
