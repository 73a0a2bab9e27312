"""Compile time of the Trainium lowering: parse, the ``trn`` pipeline and printing NKI, next to TIRx.

    python bench/trn_compile.py [--rounds 9] [--kernels matmul_512,row_sum]
                                [--tirx-venv DIR | --tirx-venv ''] [--no-growth]

Every figure is CPU time (``time.process_time``) beside wall time, median (interquartile range)
over ``--rounds`` warm rounds; the two sides of a ratio run in alternating rounds
(bench/timing.py), so a loaded machine slows both alike. Sections:

1. per kernel of examples/trn (and ``row_sum``): parse, pipeline (verifying after each pass, as
   ``tirx-opt`` does), print, total; the tile ops of the input and the nki ops of the output;
2. vs TIRx 0.1.0a4 (goal: ours / TIRx <= 0.2 on every kernel): for each kernel that
   bench/trn_tirx_reference.py writes with TIRx's script API, ours (parse + pipeline + print,
   in this process) against TIRx's script construction + ``tvm_tirx.tirx.compile(pipeline="trn")``
   + reading the NKI source, in the reference environment's Python, run as a server
   (``--serve``) so each round is one compile of each side. The environment is
   ``--tirx-venv``, by default ``$TIRX_REF_VENV`` or ``tirx_ref_venv`` next to the repository
   (bench/setup_tirx_reference.sh makes it). Our side is section 1's compile again; the
   ``sect. 1`` column repeats section 1's total, and a row more than 25% off it is flagged
   (``!``): CPU time too grows with the machine's load (other processes evict the caches), and
   the two sections run minutes apart, so only the ratio of one section's alternating rounds is
   a comparison;
3. the verifier's share of pipeline time (goal <= 15%): the pipeline with its verification after
   each pass against the same pipeline without (``verify=False``), share = 1 - without / with;
4. CPU per tile op at 1,024 tile ops (goal <= 0.5 ms): a chain of 256 softmax blocks (4 tile ops
   each), the whole compile divided by its tile ops, against a single block; and the growth
   exponent of compile time over IR size (1x / 4x / 16x blocks) and tensor size (columns),
   fitted as ``time ~ size ** k`` (goal: k <= 1 for IR size, k ~ 0 for tensor size).
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import tirx_mlir  # noqa: E402,F401  (autoloads the trn backend)
from tirx_mlir import registry  # noqa: E402
from tirx_mlir.located_parser import make_context, parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline  # noqa: E402
from tirx_mlir.dialects.tirx.tile_base import TileOp  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "bench"))
from timing import (ReferenceServer, Series, Side, alternate, load_line, ms,  # noqa: E402
                    ratio_text, reference_venv, timed)

EXAMPLES = os.path.join(ROOT, "examples", "trn")
REFERENCE = Path(ROOT) / "bench" / "trn_tirx_reference.py"
TIRX_GOAL = 0.2
VERIFY_GOAL = 0.15
PER_OP_GOAL_MS = 0.5
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
              "matmul_512": "matmul_512", "matmul_wide_n": "matmul_wide_n"}
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


def compile_once(text: str, name: str, verify: bool = True) -> dict[str, tuple[float, float]]:
    """``{stage: (wall_s, cpu_s)}`` of one compile: parse, pipeline, print (and total)."""
    printer = registry.printers.lookup("nki")()()
    times: dict[str, tuple[float, float]] = {}
    holder: dict = {}

    def parse() -> None:
        holder["ctx"] = make_context()
        holder["module"] = parse_module(text, name, holder["ctx"])

    times["parse"] = timed(parse)
    times["pipeline"] = timed(lambda: get_pipeline("trn").apply(holder["module"], holder["ctx"],
                                                                verify=verify))
    times["print"] = timed(lambda: printer.emit(holder["ctx"], holder["module"], io.StringIO()))
    times["total"] = tuple(sum(t[k] for t in times.values()) for k in (0, 1))  # type: ignore
    return times


def op_counts(text: str, name: str) -> tuple[int, int]:
    """(tile ops of the input, nki ops of the lowered IR)."""
    ctx = make_context()
    module = parse_module(text, name, ctx)
    tiles = sum(1 for op in module.walk() if isinstance(op, TileOp))
    get_pipeline("trn").apply(module, ctx)
    return tiles, sum(1 for op in module.walk() if op.name.startswith("nki."))


def fit_exponent(sizes: list[int], seconds: list[float]) -> float:
    xs = [math.log(s) for s in sizes]
    ys = [math.log(t) for t in seconds]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def stages_table(kernels: dict[str, str], rounds: int) -> dict[str, Side]:
    """Section 1; returns each kernel's total (wall, cpu) samples."""
    print(f"1. tirx_mlir trn compile, {rounds} rounds, CPU ms: median (IQR)")
    print(f"{'kernel':28s} {'parse':>17s} {'pipeline':>17s} {'print':>17s} {'total':>17s} "
          f"{'wall total':>17s} {'tile':>5s} {'nki':>5s}")
    totals = {}
    for name, text in kernels.items():
        compile_once(text, name)  # warm: dialects, printers, caches
        sides = {stage: Side() for stage in ("parse", "pipeline", "print", "total")}
        for _ in range(rounds):
            for stage, sample in compile_once(text, name).items():
                sides[stage].add(sample)
        tiles, nki = op_counts(text, name)
        totals[name] = sides["total"]
        print(f"{name:28s} " + " ".join(ms(sides[s].cpu) for s in sides) +
              f" {ms(sides['total'].wall)} {tiles:5d} {nki:5d}")
    return totals


AGREE = 0.25
"""How far section 2's own compile time may be from section 1's before the row is flagged."""


def section1_mark(ours_s: float, section1_s: float) -> str:
    """The ``sect. 1`` cell: section 1's total (ms), with `` !`` when section 2's median
    ``ours_s`` is more than `AGREE` away from it."""
    flag = " !" if abs(ours_s / section1_s - 1) > AGREE else ""
    return f"{section1_s * 1e3:8.2f}{flag}"


def tirx_table(kernels: dict[str, str], rounds: int, venv: str,
               section1: dict[str, Side] | None = None) -> None:
    """Section 2. Our side is the same compile as section 1's total; a row whose median differs
    from section 1's by more than `AGREE` is flagged (the machine slowed one of the two runs:
    rerun it, with more rounds)."""
    python = Path(venv) / "bin" / "python" if venv else None
    print(f"\n2. vs TIRx (goal ours / TIRx <= {TIRX_GOAL} on every kernel)")
    if python is None or not python.exists():
        print(f"   skipped: no TIRx reference environment at {venv or '(none given)'}; create "
              f"it with bench/setup_tirx_reference.sh or pass --tirx-venv DIR")
        return
    names = [n for n in TIRX_MATCH if n in kernels]
    try:
        server = ReferenceServer(python, REFERENCE)
    except (OSError, RuntimeError, json.JSONDecodeError) as err:
        print(f"   skipped: the TIRx reference did not start: {err}")
        return
    meta = server.meta
    print(f"   TIRx {meta['version']} ({venv}): script + tvm_tirx.tirx.compile(pipeline='trn') + "
          f"NKI source, in its own process; ours: parse + pipeline + print, in this one")
    print(f"   {'kernel':20s} {'ours cpu':>17s} {'TIRx cpu':>17s} {'cpu ratio':>14s} "
          f"{'wall ratio':>14s} {'ours inst':>9s} {'TIRx inst':>9s} {'sect. 1':>8s}")
    disagree = []
    errors = dict(meta.get("errors", {}))
    for name in names:
        tname = TIRX_MATCH[name]
        if tname in errors:
            print(f"   {name:20s} TIRx failed: {errors[tname]}")
            continue
        text = kernels[name]

        def ours() -> tuple[float, float]:
            return compile_once(text, name)["total"]

        def theirs() -> tuple[float, float]:
            answer = server.ask([tname])[tname]
            if isinstance(answer, dict):
                raise RuntimeError(answer["error"])
            return answer[0], answer[1]

        ours()
        a, b, ratio = alternate(rounds, ours, theirs)
        before = section1.get(name) if section1 else None
        mark = "" if before is None else section1_mark(a.cpu.median, before.cpu.median)
        if mark.endswith("!"):
            disagree.append(name)
        print(f"   {name:20s} {ms(a.cpu)} {ms(b.cpu)} {ratio_text(ratio.cpu)} "
              f"{ratio_text(ratio.wall)} {op_counts(text, name)[1]:9d} "
              f"{meta['instructions'].get(tname, -1):9d} {mark}")
    server.close()
    if disagree:
        print(f"   ! ours differs from section 1's total (CPU ms, 'sect. 1') by more than "
              f"{AGREE:.0%} for {', '.join(disagree)}: the machine slowed one of the runs; "
              f"rerun with more --rounds")


def verify_table(kernels: dict[str, str], rounds: int) -> None:
    """Section 3."""
    print(f"\n3. verification share of pipeline time (goal <= {VERIFY_GOAL:.0%}); pipeline CPU ms "
          f"with / without verification after each pass")
    print(f"   {'kernel':28s} {'with':>17s} {'without':>17s} {'share':>14s}")
    for name, text in kernels.items():
        def run(verify: bool) -> tuple[float, float]:
            return compile_once(text, name, verify)["pipeline"]

        a, b, ratio = alternate(rounds, lambda: run(True), lambda: run(False))
        share = Series([1 - 1 / r for r in ratio.cpu.values])  # 1 - without / with
        print(f"   {name:28s} {ms(a.cpu)} {ms(b.cpu)} {ratio_text(share)}")


def per_op_table(rounds: int, growth: bool) -> None:
    """Section 4."""
    print(f"\n4. CPU per tile op (goal <= {PER_OP_GOAL_MS} ms at 1,024 tile ops)")
    big, small = softmax_chain(256), softmax_chain(1)
    tiles_big, tiles_small = op_counts(big, "chain256")[0], op_counts(small, "chain1")[0]
    compile_once(big, "chain256")

    def run(text: str) -> tuple[float, float]:
        return compile_once(text, "chain")["total"]

    a, b, _ = alternate(max(3, rounds // 3), lambda: run(big), lambda: run(small))
    per_op = a.cpu.median / tiles_big * 1e3
    print(f"   softmax chain of 256 blocks: {tiles_big} tile ops, CPU {ms(a.cpu)} ms, "
          f"{per_op:.3f} ms a tile op ({per_op / PER_OP_GOAL_MS:.2f}x the goal); one block: "
          f"{tiles_small} tile ops, CPU {ms(b.cpu)} ms, "
          f"{b.cpu.median / tiles_small * 1e3:.3f} ms a tile op")
    if not growth:
        return
    print("   growth of compile CPU time, time ~ size ** k")
    for label, make in (("IR size: softmax blocks", lambda n: softmax_chain(n)),
                        ("tensor size: softmax columns", lambda n: softmax_chain(1, 512 * n))):
        sizes, secs = [1, 4, 16], []
        for n in sizes:
            text = make(n)
            compile_once(text, label)
            samples = Series([compile_once(text, label)["total"][1] for _ in range(rounds)])
            secs.append(samples.median)
        cells = "  ".join(f"{n}x {t * 1e3:7.1f} ms" for n, t in zip(sizes, secs))
        print(f"   {label:30s} {cells}   k = {fit_exponent(sizes, secs):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="warm rounds per figure")
    parser.add_argument("--kernels", default="", help="comma-separated (default: all)")
    parser.add_argument("--tirx-venv", default=str(reference_venv()),
                        help="the TIRx reference environment ('' to skip TIRx; default "
                             "$TIRX_REF_VENV or tirx_ref_venv next to the repository)")
    parser.add_argument("--no-growth", action="store_true", help="skip the growth exponents")
    args = parser.parse_args()
    kernels = {f[:-5]: open(os.path.join(EXAMPLES, f)).read()
               for f in sorted(os.listdir(EXAMPLES)) if f.endswith(".mlir")}
    kernels["row_sum"] = ROW_SUM
    wanted = [k for k in args.kernels.split(",") if k]
    unknown = [k for k in wanted if k not in kernels]
    if unknown:
        parser.error(f"unknown kernels {', '.join(unknown)} (known: {', '.join(kernels)})")
    if wanted:
        kernels = {k: kernels[k] for k in wanted}
    load = os.getloadavg()
    section1 = stages_table(kernels, args.rounds)
    tirx_table(kernels, args.rounds, args.tirx_venv, section1)
    verify_table(kernels, args.rounds)
    per_op_table(args.rounds, not args.no_growth)
    print("\n" + load_line(load))


if __name__ == "__main__":
    main()
