"""tirx-opt parse + verify + print throughput, against plain xdsl-opt on the same module.

    python bench/parse_print.py [--ops 20000] [--repeat 3]

Generates a module of about ``--ops`` operations, mostly tirx ops (softmax-like kernels: allocs,
views, tile primitives, a few arith constants), then measures in the same session:

1. end to end, best of ``--repeat`` fresh processes: ``tirx-opt FILE -o /dev/null`` against
   ``xdsl-opt FILE -o /dev/null`` (xdsl-opt reads tirx through the ``xdsl.universe`` entry
   point); goal: tirx-opt within 1.3x of xdsl-opt;
2. in process (best of ``--phase-repeat``), the phases of that run: parse (tirx's LocatedParser against xDSL's Parser),
   verify (tirx-opt's op-by-op located verifier against ``ModuleOp.verify``), print;
3. start-up: ``tirx-opt`` on an empty module (goal <= 0.35 s) against ``xdsl-opt`` on it, and
   ``python -c "import tirx_mlir"`` against ``python -c pass``.

Every figure is printed with its ratio to the reference measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from io import StringIO

BIN = os.path.dirname(sys.executable)

SBUF = "!tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>"
ROW = "!tirx.buffer<128x1xf32, trn.sbuf>"
GLOBAL = "!tirx.buffer<1024x512xf32, global>"
VIEW = "!tirx.buffer<128x512xf32, global>"


def kernel(i: int) -> list[str]:
    """One softmax-like kernel of 24 ops."""
    return [
        f"tirx.kernel @k{i}(%X: {GLOBAL}) -> (%Y: {GLOBAL}) grid [8] threads [128] {{",
        "  %b = tirx.cta_id : index",
        "  %c128 = arith.constant 128 : index",
        "  %row = arith.muli %b, %c128 : index",
        "  %half = arith.constant 0.5 : f32",
        f"  %x = tirx.alloc : {SBUF}",
        f"  %e = tirx.alloc : {SBUF}",
        f"  %m = tirx.alloc : {ROW}",
        f"  %s = tirx.alloc : {ROW}",
        f"  %in = tirx.slice %X[%row, 0] [128, 512] : {GLOBAL} -> {VIEW}",
        f"  %out = tirx.slice %Y[%row, 0] [128, 512] : {GLOBAL} -> {VIEW}",
        f"  tirx.copy warpgroup %x, %in : {SBUF}, {VIEW}",
        f"  tirx.mul %x, %x, %half : {SBUF}, {SBUF}, f32",
        f"  tirx.reduce_negate %m, %x reduce max : {ROW}, {SBUF}",
        f"  tirx.unary_reduce %e, %s, %x bias %m unary exp reduce sum : {SBUF}, {ROW}, {SBUF}, "
        f"{ROW}",
        f"  tirx.reciprocal %s, %s : {ROW}, {ROW}",
        f"  tirx.mul %e, %e, %s : {SBUF}, {SBUF}, {ROW}",
        f"  tirx.maximum %e, %e, %half : {SBUF}, {SBUF}, f32",
        f"  tirx.sum %m, %e axes [-1] : {ROW}, {SBUF}",
        f"  tirx.sub %e, %e, %m : {SBUF}, {SBUF}, {ROW}",
        f"  tirx.exp %e, %e scale %half : {SBUF}, {SBUF}, f32",
        f"  tirx.select %e, %e, %half where (d0, d1) : (d1 - d0 >= 0) : {SBUF}, {SBUF}, f32",
        f"  tirx.copy warpgroup %out, %e : {VIEW}, {SBUF}",
        "  tirx.return",
        "}",
    ]


def generate(n_ops: int) -> str:
    lines: list[str] = []
    i = 0
    while len(lines) < n_ops:
        lines += kernel(i)
        i += 1
    return "\n".join(lines) + "\n"


def best_of(cmds: list[list[str]], repeat: int) -> list[float]:
    """Best wall time of each command; the commands take turns, so a change in machine load
    during the run affects them alike."""
    best = [float("inf")] * len(cmds)
    for _ in range(repeat):
        for i, cmd in enumerate(cmds):
            start = time.perf_counter()
            result = subprocess.run(cmd, capture_output=True, text=True)
            best[i] = min(best[i], time.perf_counter() - start)
            if result.returncode != 0:
                sys.exit(f"{' '.join(cmd)} failed:\n{result.stderr[-2000:]}")
    return best


def timed(fn, repeat: int):
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def row(name: str, seconds: float, n_ops: int | None, ref: tuple[str, float] | None) -> None:
    rate = f"{n_ops / seconds:10,.0f} ops/s" if n_ops else " " * 16
    ratio = f"{seconds / ref[1]:5.2f}x {ref[0]}" if ref else ""
    print(f"  {name:<44} {seconds:8.3f} s {rate}   {ratio}")


def in_process_phases(text: str, path: str, repeat: int) -> int:
    from xdsl.parser import Parser
    from xdsl.printer import Printer

    from tirx_mlir.located_parser import LocatedParser, make_context
    from tirx_mlir.tools.diagnostics_cli import verify_located

    ctx = make_context()
    t_xparse, module = timed(lambda: Parser(ctx, text, path).parse_module(), repeat)
    n_ops = sum(1 for _ in module.walk())
    t_parse, module = timed(lambda: LocatedParser(ctx, text, path).parse_module(), repeat)
    t_xverify, _ = timed(module.verify, repeat)
    t_verify, _ = timed(lambda: verify_located(module, path), repeat)
    t_print, _ = timed(lambda: Printer(stream=StringIO()).print_op(module), repeat)
    print(f"in process, {n_ops} ops (best of {repeat}):")
    row("parse: xDSL Parser", t_xparse, n_ops, None)
    row("parse: LocatedParser (file:line:col on ops)", t_parse, n_ops, ("xDSL", t_xparse))
    row("verify: ModuleOp.verify", t_xverify, n_ops, None)
    row("verify: tirx-opt op-by-op (located)", t_verify, n_ops, ("ModuleOp.verify", t_xverify))
    row("print (custom form)", t_print, n_ops, None)
    return n_ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--phase-repeat", type=int, default=1,
                        help="repetitions of the in-process phase timings")
    args = parser.parse_args()
    text = generate(args.ops)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "gen.mlir")
        with open(path, "w") as f:
            f.write(text)
        empty = os.path.join(tmp, "empty.mlir")
        with open(empty, "w") as f:
            f.write("builtin.module {}\n")

        n_ops = in_process_phases(text, path, args.phase_repeat)
        tirx_opt, xdsl_opt = os.path.join(BIN, "tirx-opt"), os.path.join(BIN, "xdsl-opt")
        t_xdsl, t_tirx = best_of([[xdsl_opt, path, "-o", os.devnull],
                                  [tirx_opt, path, "-o", os.devnull]], args.repeat)
        print(f"end to end, parse + verify + print, best of {args.repeat} processes:")
        row("xdsl-opt", t_xdsl, n_ops, None)
        row("tirx-opt", t_tirx, n_ops, ("xdsl-opt", t_xdsl))

        reps = max(7, args.repeat)
        t_pass, t_import, t_xempty, t_empty = best_of(
            [[sys.executable, "-c", "pass"], [sys.executable, "-c", "import tirx_mlir"],
             [xdsl_opt, empty], [tirx_opt, empty]], reps)
        print(f"start-up, best of {reps} processes:")
        row("python -c pass", t_pass, None, None)
        row("python -c 'import tirx_mlir'", t_import, None, ("python -c pass", t_pass))
        row("xdsl-opt empty module", t_xempty, None, None)
        row("tirx-opt empty module", t_empty, None, ("xdsl-opt", t_xempty))
    print(f"goals: tirx-opt/xdsl-opt {t_tirx / t_xdsl:.2f} (<= 1.3); tirx-opt empty module "
          f"{t_empty:.3f} s (<= 0.35 s)")


if __name__ == "__main__":
    main()
