"""``@Tx.kernel`` parse time of a 50-op kernel, against parsing its text IR in the same run.

    python bench/frontend_parse.py [--ops 50] [--repeat 20]

Writes a generated kernel (a chain of tile primitives on shared tiles inside a loop, about
``--ops`` ops once parsed) to a temporary file, then measures ``--repeat`` warm rounds, each
round running both of (alternating, so machine load hits both alike):

1. front end: a fresh variant of the kernel (AST walk, op building and checks, verification);
2. text IR: ``tirx_mlir.parse_module`` of the same module printed (it attaches a location to
   every op as well), verified.

Prints the median (and best) wall time and CPU time (``time.process_time``: what the run itself
used on a shared machine) of both, and their ratio; the goal is under 50 ms warm for 50 ops.
No assertions.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import tempfile
import time

OPS = ("add", "mul", "sub", "maximum")


def kernel_source(n_ops: int) -> str:
    """A kernel whose body builds about ``n_ops`` ops (each line 1-2 ops, a loop of slices)."""
    lines = ["from tirx_mlir import script as Tx", "", "",
             "@Tx.kernel(grid=(4,), threads=(128,))",
             "def generated(X: Tx.Buffer[(512, 64), 'f32'], Y: Tx.Out[(512, 64), 'f32']):",
             "    c = Tx.cta_id()",
             "    t = Tx.alloc((128, 64), scope='shared')",
             "    u = Tx.alloc((128, 64), scope='shared')",
             "    Tx.cta.copy(t, X[c * 128:(c + 1) * 128, :])"]
    count = 9
    i = 0
    while count < n_ops - 3:
        lines.append(f"    Tx.cta.{OPS[i % len(OPS)]}(u, t, {float(i % 7 + 1)})")
        lines.append("    Tx.cta.copy(t, u)")
        count += 3
        i += 1
    lines.append("    Tx.cta.copy(Y[c * 128:(c + 1) * 128, :], t)")
    return "\n".join(lines) + "\n"


def timed(fn) -> tuple[float, float]:
    """(wall, cpu) seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def rounds(fns, repeat: int) -> list[list[tuple[float, float]]]:
    """``repeat`` rounds, each calling every function once in turn."""
    out: list[list[tuple[float, float]]] = [[] for _ in fns]
    for _ in range(repeat):
        for times, fn in zip(out, fns):
            times.append(timed(fn))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)

    from tirx_mlir.interpreter.launch import verify_module
    from tirx_mlir.located_parser import parse_module

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "generated_kernel.py")
        with open(path, "w") as f:
            f.write(kernel_source(args.ops))
        spec = importlib.util.spec_from_file_location("generated_kernel", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        kernel = module.generated

        def front_end():
            kernel._variants.clear()
            return kernel.ir

        ir = front_end()  # warm-up
        n = sum(1 for _ in ir.walk()) - 1
        text = str(ir)  # the text parser gives every op its own file:line:col

        def text_ir():
            verify_module(parse_module(text, path))

        text_ir()
        front, textual = rounds([front_end, text_ir], args.repeat)
    print(f"kernel of {n} ops ({args.repeat} warm rounds, alternating)")
    print(f"  {'':34s} {'median wall':>12s} {'median cpu':>11s} {'best wall':>10s}")
    for label, times in (("@Tx.kernel parse + build + verify", front),
                         ("text IR parse + verify", textual)):
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        print(f"  {label:34s} {statistics.median(walls) * 1e3:9.2f} ms "
              f"{statistics.median(cpus) * 1e3:8.2f} ms {min(walls) * 1e3:7.2f} ms")
    ratio = statistics.median(c for _, c in front) / statistics.median(c for _, c in textual)
    print(f"  goal: front end under 50 ms warm; cpu ratio front end / text IR: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
