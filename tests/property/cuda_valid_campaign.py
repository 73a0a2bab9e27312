"""A campaign over random valid tile-level CUDA programs (`cuda_valid_programs`).

    python tests/property/cuda_valid_campaign.py --programs 300 --seed 0 --jobs 2
    python tests/property/cuda_valid_campaign.py --programs 50 --compile --show internal,disagree
    python tests/property/cuda_valid_campaign.py --programs 200 --families ring,dsmem --jobs 1

Seeds ``seed .. seed + programs - 1`` are drawn and checked in worker processes (the pool of
`fuzz_campaign`, each program under a hard time limit): numpy == tile interpreter == SIMT
interpreter after the cuda pipeline, and with ``--compile`` the printed CUDA C++ through nvcc
and the printed PTX through ptxas for the program's arch. The report counts the outcomes,
refusals by reason (the dispatch table's declines, numbers blanked), and lists every finding
(``internal``, ``disagree``, ``nvcc``, ``ptxas``, ``hang``) with its seed, what was drawn and
the first lines of its detail; ``--show`` prints the programs of the kinds named;
``--families`` keeps the seeds whose family (`cuda_valid_programs.family_of`) is one named.

Exit status: 1 when a finding was made.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cuda_valid_programs as cvp  # noqa: E402
from fuzz_campaign import Pool  # noqa: E402

FINDINGS = ("internal", "disagree", "nvcc", "ptxas", "hang")
HARD_LIMIT_S = 300.0


def _run(task, workdir: str):
    seed, compile, family = task
    try:
        prog = cvp.draw(seed, family)
    except Exception as exc:  # noqa: BLE001 - a generator bug is reported, not fatal
        return ("generator", f"{type(exc).__name__}: {exc}", "draw", "?", [])
    out = cvp.check(prog, compile=compile, workdir=workdir)
    return (out.kind, out.detail, out.stage, prog.family, prog.drawn)


def refusal_reason(detail: str) -> str:
    """A short key for a refusal: the located error's message, or for a dispatch table the op
    and each variant's decline, with numbers and names blanked so that alike refusals meet."""
    lines = detail.strip().splitlines()
    head = re.sub(r"^\S+:\d+:\d+: error: ", "", lines[0]) if lines else "?"
    rows = [ln.split("|", 1)[1].strip() for ln in lines[1:] if "|" in ln and "declined" in ln]
    key = head + (" :: " + "; ".join(rows) if rows else "")
    key = re.sub(r"\d+", "N", key)
    return re.sub(r"'[^']*'", "'X'", key)[:220]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--compile", action="store_true", help="nvcc and ptxas too")
    ap.add_argument("--show", default="", help="kinds whose programs to print, e.g. internal")
    ap.add_argument("--families", default="", help="only these families, e.g. ring,sm80")
    args = ap.parse_args(argv)
    show = set(filter(None, args.show.split(",")))
    families = set(filter(None, args.families.split(",")))
    results: dict[int, tuple] = {}
    start = time.monotonic()
    pool = Pool(args.jobs, run=_run, hard_limit_s=HARD_LIMIT_S)
    seeds = range(args.seed, args.seed + args.programs)
    if families:  # the next ``programs`` seeds of those families
        seeds = [s for s in range(args.seed, args.seed + 50 * args.programs)
                 if cvp.family_of(s) in families][:args.programs]
    tasks = ((s, (s, args.compile, None)) for s in seeds)

    def on_result(task, result):
        if isinstance(result, list):  # the pool's own verdict: a hang or a dead worker
            _, kind, detail = result[0]
            result = (kind, detail, "?", "?", [])
        results[task[0]] = result

    try:
        pool.map(tasks, on_result)
    finally:
        pool.close()
    return report(results, time.monotonic() - start, show)


def report(results: dict[int, tuple], elapsed: float, show: set[str]) -> int:
    kinds = collections.Counter(r[0] for r in results.values())
    families = collections.Counter((r[3], r[0]) for r in results.values())
    print(f"{len(results)} programs in {elapsed:.0f} s: "
          + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    print("by family: " + ", ".join(f"{f}/{k} {n}" for (f, k), n in sorted(families.items())))
    reasons: dict[str, list[int]] = collections.defaultdict(list)
    for seed, r in sorted(results.items()):
        if r[0] == "refused":
            reasons[refusal_reason(r[1])].append(seed)
    if reasons:
        print("refused, by reason (seeds):")
        for reason, seeds in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(seeds):4d}  {reason}  (seeds {', '.join(map(str, seeds[:4]))})")
    found = [(s, r) for s, r in sorted(results.items()) if r[0] in FINDINGS + ("generator",)]
    for seed, (kind, detail, stage, family, drawn) in found:
        print(f"\n[{kind}] seed {seed} ({family}, at {stage}) {' '.join(drawn)}")
        print("  " + "\n  ".join(detail.strip().splitlines()[:12]))
        if kind in show:
            print(cvp.draw(seed).text)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
