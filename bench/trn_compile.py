"""Compile time of the Trainium lowering: parse, the ``trn`` pipeline, and printing NKI.

    python bench/trn_compile.py                     # every examples/trn kernel + TIRx + growth
    python bench/trn_compile.py --runs 9 --tirx-python /path/to/venv/bin/python

Prints, per kernel of examples/trn: the median of ``--runs`` warm runs (after one warm-up run) of
each stage, and the static count of nki instructions in the lowered IR. When TIRx (the
``apache-tvm-tirx`` package) is installed in the environment of ``--tirx-python`` (default
/work/tirx_ref_venv), bench/trn_tirx_reference.py compiles the same computations with it in a
subprocess, and the ratio ours / TIRx is printed next to both instruction counts (TIRx's counted
from its NKI source). Finally the growth exponent of compile time: a chain of 1x / 4x / 16x
softmax blocks (IR size) and a softmax over 1x / 4x / 16x columns (tensor size), fitted as
``time ~ size ** k`` (goal: k <= 1 for IR size, k ~ 0 for tensor size since dispatch emits loops).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import tirx_mlir  # noqa: E402,F401  (autoloads the trn backend)
from tirx_mlir import registry  # noqa: E402
from tirx_mlir.located_parser import make_context, parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline  # noqa: E402

EXAMPLES = os.path.join(ROOT, "examples", "trn")
TARGET = 'target "aws/trn1/trn1.2xlarge"'

ROW_SUM = f"""
tirx.kernel @row_sum(%X: !tirx.buffer<128x2048xf32, global>) -> (%S: !tirx.buffer<128x1xf32, global>) grid [1] threads [1] {TARGET} {{
  %x = tirx.alloc : !tirx.buffer<128x2048xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x2048xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, global>
  tirx.sum %s, %x : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.copy %S, %s : !tirx.buffer<128x1xf32, global>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}}
"""

TIRX_MATCH = {"nki_add_1": "nki_add_1", "nki_add_2": "nki_add_2", "row_sum": "row_sum",
              "softmax_128x512": "softmax_128x512", "matmul_128": "matmul_128",
              "matmul_512": "matmul_512"}
"""Our kernel -> the TIRx kernel of bench/trn_tirx_reference.py computing the same thing."""


def softmax_chain(blocks: int, cols: int = 512) -> str:
    """``blocks`` softmax passes over one [128, cols] tile (IR size grows with blocks)."""
    t = f"!tirx.buffer<128x{cols}xf32, trn.sbuf>"
    c = "!tirx.buffer<128x1xf32, trn.sbuf>"
    body = [f"  %x = tirx.alloc : {t}", f"  %m = tirx.alloc : {c}", f"  %s = tirx.alloc : {c}",
            f"  tirx.copy %x, %X : {t}, !tirx.buffer<128x{cols}xf32, global>"]
    for _ in range(blocks):
        body += [f"  tirx.reduce_negate %m, %x reduce max : {c}, {t}",
                 f"  tirx.unary_reduce %x, %s, %x bias %m unary exp reduce sum : {t}, {c}, {t}, {c}",
                 f"  tirx.reciprocal %s, %s : {c}, {c}",
                 f"  tirx.mul %x, %x, %s : {t}, {t}, {c}"]
    body.append(f"  tirx.copy %Y, %x : !tirx.buffer<128x{cols}xf32, global>, {t}")
    return (f"tirx.kernel @softmax_chain(%X: !tirx.buffer<128x{cols}xf32, global>) -> "
            f"(%Y: !tirx.buffer<128x{cols}xf32, global>) grid [1] threads [1] {TARGET} {{\n"
            + "\n".join(body) + "\n  tirx.return\n}\n")


def compile_once(text: str, name: str) -> tuple[dict[str, float], int]:
    """(seconds per stage, static nki instruction count) of one compile."""
    printer = registry.printers.lookup("nki")()()
    times = {}
    start = time.perf_counter()
    ctx = make_context()
    module = parse_module(text, name, ctx)
    times["parse"] = time.perf_counter() - start
    start = time.perf_counter()
    get_pipeline("trn").apply(module, ctx)
    times["pipeline"] = time.perf_counter() - start
    start = time.perf_counter()
    out = io.StringIO()
    printer.emit(ctx, module, out)
    times["print"] = time.perf_counter() - start
    count = sum(1 for op in module.walk() if op.name.startswith("nki."))
    return times, count


def measure(text: str, name: str, runs: int) -> tuple[dict[str, float], int]:
    """Median seconds per stage over ``runs`` warm runs (one warm-up first)."""
    compile_once(text, name)
    samples = [compile_once(text, name) for _ in range(runs)]
    stages = samples[0][0].keys()
    medians = {s: statistics.median(t[s] for t, _ in samples) for s in stages}
    medians["total"] = statistics.median(sum(t.values()) for t, _ in samples)
    return medians, samples[0][1]


def tirx_reference(python: str, runs: int) -> dict | None:
    if not os.path.exists(python):
        return None
    script = os.path.join(ROOT, "bench", "trn_tirx_reference.py")
    try:
        out = subprocess.run([python, script, "--runs", str(runs)], capture_output=True,
                             text=True, timeout=1800)
    except (OSError, subprocess.TimeoutExpired) as err:
        print(f"TIRx reference did not run: {err}")
        return None
    if out.returncode != 0:
        print(f"TIRx reference failed:\n{out.stderr[-2000:]}")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def fit_exponent(sizes: list[int], seconds: list[float]) -> float:
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="warm runs per measurement")
    parser.add_argument("--tirx-python", default="/work/tirx_ref_venv/bin/python",
                        help="a Python with apache-tvm-tirx installed ('' to skip TIRx)")
    args = parser.parse_args()

    kernels = {f[:-5]: open(os.path.join(EXAMPLES, f)).read()
               for f in sorted(os.listdir(EXAMPLES)) if f.endswith(".mlir")}
    kernels["row_sum"] = ROW_SUM
    ours: dict[str, tuple[dict[str, float], int]] = {}
    print(f"tirx_mlir trn compile time, median of {args.runs} warm runs (ms)")
    print(f"{'kernel':28s} {'parse':>8s} {'pipeline':>9s} {'print':>8s} {'total':>8s} {'nki ops':>8s}")
    for name, text in kernels.items():
        stats, count = measure(text, name, args.runs)
        ours[name] = (stats, count)
        print(f"{name:28s} {stats['parse'] * 1e3:8.1f} {stats['pipeline'] * 1e3:9.1f} "
              f"{stats['print'] * 1e3:8.1f} {stats['total'] * 1e3:8.1f} {count:8d}")

    ref = tirx_reference(args.tirx_python, args.runs) if args.tirx_python else None
    if ref is None:
        print("\nTIRx comparison skipped (no TIRx environment)")
    else:
        print("\nvs TIRx 0.1.0a4 (script + tvm_tirx.tirx.compile(pipeline='trn'), in a subprocess)")
        print(f"{'kernel':20s} {'ours ms':>8s} {'TIRx ms':>8s} {'ratio':>6s} {'ours inst':>9s} "
              f"{'TIRx inst':>9s}")
        for name, tname in TIRX_MATCH.items():
            entry = ref.get(tname, {})
            stats, count = ours[name]
            if "error" in entry:
                print(f"{name:20s} {stats['total'] * 1e3:8.1f}   TIRx failed: {entry['error']}")
                continue
            tms = statistics.median(entry["compile_ms"])
            print(f"{name:20s} {stats['total'] * 1e3:8.1f} {tms:8.1f} "
                  f"{stats['total'] * 1e3 / tms:6.2f} {count:9d} {entry['instructions']:9d}")

    print("\ngrowth of compile time (total), time ~ size ** k")
    for label, make in (("IR size: softmax blocks", lambda s: softmax_chain(s)),
                        ("tensor size: softmax columns", lambda s: softmax_chain(1, 512 * s))):
        sizes, secs = [1, 4, 16], []
        for s in sizes:
            stats, _ = measure(make(s), f"{label}{s}", args.runs)
            secs.append(stats["total"])
        cells = "  ".join(f"{s}x {t * 1e3:7.1f} ms" for s, t in zip(sizes, secs))
        print(f"{label:30s} {cells}   k = {fit_exponent(sizes, secs):.2f}")


if __name__ == "__main__":
    main()
