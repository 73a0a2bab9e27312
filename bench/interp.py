"""Interpretation against direct numpy, both measured in the same run: the tile-level IR, and
the NKI-level IR the ``trn`` pipeline lowers the same computation to.

    python bench/interp.py [--rounds N] [--cases gemm,softmax] [--levels tile,nki]

Workloads (f32), each checked against its numpy result before timing:

* gemm 512x512x512: ``one-tile``, one CTA staging A and B whole on chip and running one tile
  gemm; ``128-tiles``, a 4x4 grid of 128x128 output tiles with a K loop of step 128 (the usual
  CTA tiling: 16 CTAs x 4 steps, ~650 interpreted ops). Reference: ``A @ B``.
* softmax 1024x1024 over rows: ``one-tile`` (one CTA, all rows) and ``128-rows`` (8 CTAs of 128
  rows). Reference: ``e = exp(x - max(x)); e / sum(e)``.

Levels: ``tile`` runs the CTA-level IR (shared/local buffers, 128 threads); ``nki`` writes the
same kernels for Trainium (SBUF buffers, target trn1), lowers them with ``--pass-pipeline=trn``
in process and runs the nki instructions. The gemm takes A transposed there (``A^T`` [K, M], the
stationary operand TensorE reads, as examples/trn/matmul_512.mlir; reference ``AT.T @ B``):
with A as is, the lowering adds a TensorE transpose per tile, a second matmul numpy does not do.

The interpreted time is what ``KernelRunner(...)(a, b)`` costs: argument checks, input copies,
NaN-filled outputs and on-chip buffers, and the kernel; parsing, lowering and building the
interpreter happen once and are reported apart.

Timing (the machine is shared; one side after the other swings): every round runs each case's
numpy and interpreter once, in alternating order, and records CPU time (``time.process_time``)
and wall time. Printed: the median CPU time of each side, the ratio numpy / interpreted of each
round (median and interquartile range, CPU; the wall-time median beside it) and the goal (issue
16: >= 0.5 at the tile level, >= 0.33 at the NKI level). For the 128-tile gemm and the NKI
softmaxes a third side, the kernel's own work written directly in numpy (`tiled_gemm`,
`nki_softmax_floor`), shows the floor: an interpreter that ran those ops with no overhead at all
would reach that ratio, not more. A floor gives the interpreter's bits (checked before timing).

BLAS runs single-threaded by default (``--blas-threads``; set before numpy loads): on a small
shared machine a multi-threaded BLAS makes both sides' times swing by several x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable


def _blas_threads_from_argv() -> str:
    argv = sys.argv[1:]
    for i, arg in enumerate(argv):
        if arg.startswith("--blas-threads="):
            return arg.split("=", 1)[1]
        if arg == "--blas-threads" and i + 1 < len(argv):
            return argv[i + 1]
    return "1"


for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = _blas_threads_from_argv()

import numpy as np  # noqa: E402 - after the BLAS thread setting

from tirx_mlir.located_parser import parse_module  # noqa: E402
from tirx_mlir.interpreter import KernelRunner, verify_module  # noqa: E402


TRN_TARGET = "aws/trn1/trn1.2xlarge"


@dataclass(frozen=True)
class Level:
    """How a workload is written at one level: its on-chip scopes, launch and exec scope."""

    name: str
    goal: float
    local: str
    shared: str
    threads: int
    target: str
    scope: str  # the tile ops' exec scope keyword (with its trailing space), or ""
    transpose_a: bool  # the gemm takes A^T (TensorE's stationary operand)

    def buf(self, spec: str, scope: str = "global") -> str:
        scope = {"local": self.local, "shared": self.shared}.get(scope, scope)
        return f"!tirx.buffer<{spec}xf32, {scope}>"

    def launch(self, grid: str) -> str:
        return f"grid [{grid}] threads [{self.threads}]{self.target}"


TILE = Level("tile", 0.5, "local", "shared", 128, "", "cta ", False)
NKI = Level("nki", 0.33, "trn.sbuf", "trn.sbuf", 1, f' target "{TRN_TARGET}"', "", True)


def gemm_ir(size: int, tile: int, level: Level = TILE) -> str:
    """C = A @ B (size^3) with tile x tile output tiles per CTA and a K loop of step ``tile``
    (A given as A^T [K, M] where ``level.transpose_a``)."""
    g, t, x = size // tile, level.buf, level.scope
    full, blk = f"{size}x{size}", f"{tile}x{tile}"
    a_name, a_off, trans = ("AT", "%k, %m0", " transpose_a") if level.transpose_a else \
        ("A", "%m0, %k", "")
    return f"""
tirx.kernel @gemm(%{a_name}: {t(full)}, %B: {t(full)}) -> (%C: {t(full)}) {level.launch(f"{g}, {g}")} {{
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c0 = arith.constant 0 : index
  %ct = arith.constant {tile} : index
  %cn = arith.constant {size} : index
  %m0 = arith.muli %by, %ct : index
  %n0 = arith.muli %bx, %ct : index
  %acc = tirx.alloc : {t(blk, "local")}
  %sa = tirx.alloc : {t(blk, "shared")}
  %sb = tirx.alloc : {t(blk, "shared")}
  tirx.zero {x}%acc : {t(blk, "local")}
  scf.for %k = %c0 to %cn step %ct {{
    %a = tirx.slice %{a_name}[{a_off}] [{tile}, {tile}] : {t(full)} -> {t(blk)}
    %b = tirx.slice %B[%k, %n0] [{tile}, {tile}] : {t(full)} -> {t(blk)}
    tirx.copy {x}%sa, %a : {t(blk, "shared")}, {t(blk)}
    tirx.copy {x}%sb, %b : {t(blk, "shared")}, {t(blk)}
    tirx.gemm {x}%acc, %sa, %sb{trans} beta 1.0 : {t(blk, "local")}, {t(blk, "shared")}, {t(blk, "shared")}
  }}
  %c = tirx.slice %C[%m0, %n0] [{tile}, {tile}] : {t(full)} -> {t(blk)}
  tirx.copy {x}%c, %acc : {t(blk)}, {t(blk, "local")}
  tirx.return
}}"""


def softmax_ir(rows: int, cols: int, tile_rows: int, level: Level = TILE) -> str:
    t, x = level.buf, level.scope
    full, blk, col = f"{rows}x{cols}", f"{tile_rows}x{cols}", f"{tile_rows}x1"
    return f"""
tirx.kernel @softmax(%X: {t(full)}) -> (%Y: {t(full)}) {level.launch(str(rows // tile_rows))} {{
  %cta = tirx.cta_id x : index
  %ct = arith.constant {tile_rows} : index
  %row = arith.muli %cta, %ct : index
  %x = tirx.slice %X[%row, 0] [{tile_rows}, {cols}] : {t(full)} -> {t(blk)}
  %y = tirx.slice %Y[%row, 0] [{tile_rows}, {cols}] : {t(full)} -> {t(blk)}
  %t = tirx.alloc : {t(blk, "shared")}
  %m = tirx.alloc : {t(col, "shared")}
  %s = tirx.alloc : {t(col, "shared")}
  tirx.copy {x}%t, %x : {t(blk, "shared")}, {t(blk)}
  tirx.reduce_negate {x}%m, %t reduce max : {t(col, "shared")}, {t(blk, "shared")}
  tirx.unary_reduce {x}%t, %s, %t bias %m unary exp reduce sum : {t(blk, "shared")}, {t(col, "shared")}, {t(blk, "shared")}, {t(col, "shared")}
  tirx.reciprocal {x}%s, %s : {t(col, "shared")}, {t(col, "shared")}
  tirx.mul {x}%t, %t, %s : {t(blk, "shared")}, {t(blk, "shared")}, {t(col, "shared")}
  tirx.copy {x}%y, %t : {t(blk)}, {t(blk, "shared")}
  tirx.return
}}"""


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def numpy_gemm_at(at: np.ndarray, b: np.ndarray) -> np.ndarray:
    return at.T @ b


def tiled_gemm(tile: int, transposed: bool):
    """The 128-tile kernel's own work written directly in numpy: per CTA NaN-filled on-chip
    buffers, per K step two tile copies and a tile matmul accumulated into ``acc``, then the
    copy out. Its time is the floor of interpreting that IR op by op (no dispatch at all)."""

    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        n = b.shape[0]
        c = np.full((n, n), np.nan, np.float32)
        acc, sa, sb, prod = (np.empty((tile, tile), np.float32) for _ in range(4))
        for m0 in range(0, n, tile):
            for n0 in range(0, n, tile):
                for buf in (acc, sa, sb):
                    buf.fill(np.nan)
                acc.fill(0.0)
                for k in range(0, n, tile):
                    np.copyto(sa, a[k:k + tile, m0:m0 + tile] if transposed
                              else a[m0:m0 + tile, k:k + tile])
                    np.copyto(sb, b[k:k + tile, n0:n0 + tile])
                    np.matmul(np.ascontiguousarray(sa.T) if transposed else sa, sb, out=prod)
                    acc += prod
                np.copyto(c[m0:m0 + tile, n0:n0 + tile], acc)
        return c

    return run


def nki_softmax_floor(tile_rows: int, chunk: int = 512):
    """The ``trn``-lowered softmax's own instructions written directly in numpy, for CTAs of
    ``tile_rows`` rows (a multiple of 128, as the lowering stacks 128-row blocks along the free
    dim of one SBUF tile): per CTA NaN-filled SBUF tiles, the DMA load, the negated row max, per
    block ``activation_reduce`` (the fp32 bias add, ``exp`` in float64 rounded to fp32, the fp32
    row sum), the reciprocal, the multiply in ``chunk``-wide instructions and the DMA store. Its
    time is the floor of interpreting that IR under the NKI semantics (no dispatch at all)."""

    def run(x: np.ndarray) -> np.ndarray:
        rows, cols = x.shape
        nb = tile_rows // 128
        y = np.full((rows, cols), np.nan, np.float32)
        t = np.empty((128, nb * cols), np.float32)
        m, s = (np.empty((128, nb), np.float32) for _ in range(2))
        t3 = t.reshape(128, nb, cols)
        for r0 in range(0, rows, tile_rows):
            for buf in (t, m, s):
                buf.fill(np.nan)
            t3[...] = x[r0:r0 + tile_rows].reshape(nb, 128, cols).transpose(1, 0, 2)
            np.negative(np.maximum.reduce(t3, axis=2), out=m)
            for b in range(nb):
                blk = t[:, b * cols:(b + 1) * cols]
                np.add(blk, m[:, b:b + 1], out=blk)
                np.exp(blk, out=blk, dtype=np.float64, casting="unsafe")
                s[:, b:b + 1] = np.add.reduce(blk, axis=1, keepdims=True, dtype=np.float32)
            np.divide(np.float32(1), s, out=s)
            for b in range(nb):
                for c0 in range(0, cols, chunk):
                    blk = t[:, b * cols + c0:b * cols + c0 + chunk]
                    np.multiply(blk, s[:, b:b + 1], out=blk)
            y[r0:r0 + tile_rows].reshape(nb, 128, cols).transpose(1, 0, 2)[...] = t3
        return y

    return run


@dataclass
class Case:
    """One workload at one level: its runner, arguments, numpy reference and the samples."""

    name: str
    level: Level
    run: Callable[..., Any]
    args: list[np.ndarray]
    reference: Callable[..., np.ndarray]
    setup_s: float
    floor: Callable[..., np.ndarray] | None = None
    """The same tiling in direct numpy (what interpreting the IR cannot beat), if given."""
    np_cpu: list[float] = field(default_factory=list)
    floor_cpu: list[float] = field(default_factory=list)
    in_cpu: list[float] = field(default_factory=list)
    np_wall: list[float] = field(default_factory=list)
    in_wall: list[float] = field(default_factory=list)

    def sample(self, interpreted_first: bool) -> None:
        sides = [(self.reference, self.np_cpu, self.np_wall), (self.run, self.in_cpu, self.in_wall)]
        if self.floor is not None:
            sides.insert(1, (self.floor, self.floor_cpu, []))
        for fn, cpu, wall in (sides[::-1] if interpreted_first else sides):
            w, c = time.perf_counter(), time.process_time()
            fn(*self.args)
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)


def build(name: str, ir: str, level: Level, args: list[np.ndarray], reference,
          floor=None) -> Case:
    """Parse (and at the NKI level lower) ``ir``, check one run against numpy."""
    start = time.perf_counter()
    module = parse_module(ir, f"<{name}>")
    verify_module(module)
    if level is NKI:
        from tirx_mlir.pipelines import get_pipeline

        get_pipeline("trn").apply(module)
    runner = KernelRunner(module)
    setup = time.perf_counter() - start
    (out,) = runner(*args)
    np.testing.assert_allclose(out, reference(*args), rtol=1e-4, atol=1e-4)
    if floor is not None:  # the same work: the same bits
        np.testing.assert_array_equal(floor(*args), out, strict=True)
    return Case(name, level, runner, args, reference, setup, floor)


def ratios(num: list[float], den: list[float]) -> list[float]:
    return [n / d for n, d in zip(num, den)]


def iqr(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q3 - q1


def report(case: Case) -> str:
    cpu = ratios(case.np_cpu, case.in_cpu)
    wall = statistics.median(ratios(case.np_wall, case.in_wall))
    ratio = statistics.median(cpu)
    verdict = "met" if ratio >= case.level.goal else "BELOW"
    line = (f"{case.level.name:4s} {case.name:23s} numpy {statistics.median(case.np_cpu) * 1e3:7.2f} "
            f"ms  interpreted {statistics.median(case.in_cpu) * 1e3:7.2f} ms  ratio cpu "
            f"{ratio:5.2f} (iqr {iqr(cpu):4.2f}) wall {wall:5.2f}  goal >= {case.level.goal:.2f} "
            f"{verdict:5s} [setup {case.setup_s * 1e3:.0f} ms]")
    if case.floor_cpu:
        floor = statistics.median(ratios(case.np_cpu, case.floor_cpu))
        line += (f"\n     {'':23s} floor: the same work in direct numpy "
                 f"{statistics.median(case.floor_cpu) * 1e3:7.2f} ms, ratio cpu {floor:5.2f}")
    return line


def cases(levels: list[str], kinds: list[str]) -> list[Case]:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 512), dtype=np.float32)
    b = rng.standard_normal((512, 512), dtype=np.float32)
    x = rng.standard_normal((1024, 1024), dtype=np.float32)
    out = []
    for level in (TILE, NKI):
        if level.name not in levels:
            continue
        gemm_args, gemm_ref = ([np.ascontiguousarray(a.T), b], numpy_gemm_at) \
            if level.transpose_a else ([a, b], np.matmul)
        if "gemm" in kinds:
            out.append(build("gemm 512^3 one-tile", gemm_ir(512, 512, level), level, gemm_args,
                             gemm_ref))
            out.append(build("gemm 512^3 128-tiles", gemm_ir(512, 128, level), level, gemm_args,
                             gemm_ref, tiled_gemm(128, level.transpose_a)))
        if "softmax" in kinds:
            for name, rows in (("one-tile", 1024), ("128-rows", 128)):
                out.append(build(f"softmax 1024^2 {name}", softmax_ir(1024, 1024, rows, level),
                                 level, [x], numpy_softmax,
                                 nki_softmax_floor(rows) if level is NKI else None))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--levels", default="tile,nki", help="tile, nki or both")
    parser.add_argument("--cases", default="gemm,softmax", help="gemm, softmax or both")
    parser.add_argument("--blas-threads", default="1", help="BLAS threads (default 1)")
    args = parser.parse_args()
    todo = cases(args.levels.split(","), args.cases.split(","))
    for r in range(args.rounds):
        for case in todo:
            case.sample(interpreted_first=bool(r % 2))
    print(f"interpretation vs numpy: ratio = numpy CPU time / interpreted CPU time per round, "
          f"median of {args.rounds} alternating rounds (iqr: its spread; wall: the wall-time "
          f"ratio's median); BLAS threads: {os.environ['OPENBLAS_NUM_THREADS']}")
    for case in todo:
        print(report(case))


if __name__ == "__main__":
    main()
