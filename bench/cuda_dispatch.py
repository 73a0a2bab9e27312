"""CPU time of the ``tirx-dispatch`` pass alone on the CUDA tile examples, optionally next to
another checkout in alternating rounds.

    python bench/cuda_dispatch.py [--rounds N] [--examples softmax,gemm_sm80]
                                  [--against /work/main]

Each example of examples/cuda/tile is parsed and run through the "cuda" pipeline's passes
before ``tirx-dispatch`` (for the kernel's arch), then the pass is timed with
``time.process_time`` (warm: one untimed run of every example first; the first run's cost,
mostly importing the variant modules, is printed apart as ``first``; a full garbage collection
runs before each timed pass, so one example's garbage is not charged to the next). With
``--against``, each round runs this tree, then the other one (its ``tirx_mlir`` first on
``sys.path``), each in a fresh subprocess, and the table gives both bests and their ratio
(this / other: below 1 is faster here). Times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TILE = ROOT / "examples" / "cuda" / "tile"


def _prepare(path: Path):
    from tirx_mlir.located_parser import make_context, parse_module
    from tirx_mlir.pipelines import get_pipeline

    text = path.read_text()
    ctx = make_context()
    module = parse_module(text, str(path), ctx)
    passes = get_pipeline("cuda", arch="sm_90a" if "sm_90a" in text else "sm_80").passes
    at = [p.name for p in passes].index("tirx-dispatch")
    for p in passes[:at]:
        p.apply(ctx, module)
    return ctx, module, passes[at]


def measure(names: list[str], rounds: int) -> dict:
    """{example: {"best": s, "first": s, "ops": n}} of ``tirx-dispatch`` in this process."""
    out: dict = {}
    for r in range(rounds + 1):
        for name in names:
            ctx, module, dispatch = _prepare(TILE / f"{name}.mlir")
            gc.collect()  # the collector's debt from earlier examples is not this pass's cost
            start = time.process_time()
            dispatch.apply(ctx, module)
            took = time.process_time() - start
            row = out.setdefault(name, {"first": took, "best": None,
                                        "ops": sum(1 for _ in module.walk())})
            if r > 0:
                row["best"] = took if row["best"] is None else min(row["best"], took)
    return out


def _child(tree: Path, names: list[str], rounds: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run([sys.executable, __file__, "--json", "--rounds", str(rounds),
                           "--examples", ",".join(names)], env=env, capture_output=True,
                          text=True, cwd=tree, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"{tree}: {proc.stderr.strip()[-800:]}")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--examples", default="", help="comma-separated stems of "
                        "examples/cuda/tile (default: all)")
    parser.add_argument("--against", default=None, help="another checkout to compare with")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    names = [n for n in args.examples.split(",") if n] or sorted(p.stem for p in
                                                                  TILE.glob("*.mlir"))
    if args.json:
        print(json.dumps(measure(names, args.rounds)))
        return 0
    if args.against is None:
        rows = measure(names, args.rounds)
        print(f"{'example':28s} {'ops':>6s} {'first ms':>9s} {'best ms':>8s}")
        for name, row in rows.items():
            print(f"{name:28s} {row['ops']:6d} {row['first'] * 1e3:9.1f} {row['best'] * 1e3:8.1f}")
        return 0
    other = Path(args.against).resolve()
    best: dict[str, dict] = {}
    for _ in range(args.rounds):  # alternate: this tree, then the other, each round
        for side, tree in (("this", ROOT), ("other", other)):
            for name, row in _child(tree, names, 1).items():
                keep = best.setdefault(side, {}).setdefault(name, dict(row))
                keep["best"] = min(keep["best"], row["best"])
                keep["first"] = min(keep["first"], row["first"])
    print(f"tirx-dispatch CPU ms, best of {args.rounds} alternating rounds "
          f"(this: {ROOT}, other: {other})")
    print(f"{'example':28s} {'ops':>6s} {'other':>8s} {'this':>8s} {'ratio':>7s} "
          f"{'first other':>12s} {'first this':>11s}")
    for name in names:
        a, b = best["this"][name], best["other"][name]
        print(f"{name:28s} {a['ops']:6d} {b['best'] * 1e3:8.1f} {a['best'] * 1e3:8.1f} "
              f"{a['best'] / b['best']:6.2f}x {b['first'] * 1e3:12.1f} {a['first'] * 1e3:11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
