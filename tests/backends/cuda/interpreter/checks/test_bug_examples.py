"""The deliberately buggy kernels of examples/cuda/bugs/: the exact report of each, through
tirx-run, and the fix that makes it go away."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tirx_testing.simt import run_simt
from tirx_mlir.tools import tirx_run

ROOT = Path(__file__).parents[5]
BUGS = "examples/cuda/bugs"


def tirx_run_stderr(monkeypatch, capsys, *argv: str) -> tuple[int, str, str]:
    monkeypatch.chdir(ROOT)  # the report names the file as given: relative to the repository
    code = tirx_run.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_missing_barrier_is_reported_as_a_race_at_the_load(monkeypatch, capsys):
    code, _, err = tirx_run_stderr(monkeypatch, capsys, f"{BUGS}/missing_barrier_race.mlir")
    assert code == 1
    assert err == (
        f"{BUGS}/missing_barrier_race.mlir:17:3: error: 'cuda.load' op [race] potential RAW "
        "hazard at __shared__ 0xfc in block (0,0,0): the read by thread (0,0,0) races with the "
        f"write by thread (63,0,0) at {BUGS}/missing_barrier_race.mlir:15:3 (cuda.store); no "
        "barrier orders them (256 bytes of this access race)\n"
        "hint: order the two accesses with a barrier (cuda.sync_threads; cuda.sync_warp within "
        "a warp), or turn the check off with racecheck=False (tirx-run --no-racecheck)\n"
        'note: see current operation: %w = "cuda.load"(%s, %r) : (!tirx.buffer<64xf32, '
        "shared>, index) -> f32\n")


def test_no_racecheck_runs_the_racy_kernel(monkeypatch, capsys):
    code, out, err = tirx_run_stderr(monkeypatch, capsys, f"{BUGS}/missing_barrier_race.mlir",
                                     "--no-racecheck")
    assert (code, err) == (0, "")
    assert out.startswith("%Out: [64] f32") and out.endswith("nan 0\n")


def test_the_missing_barrier_fixes_the_race():
    text = (ROOT / BUGS / "missing_barrier_race.mlir").read_text()
    store = "  cuda.store %s, %t, %v : !tirx.buffer<64xf32, shared>, index, f32\n"
    assert store in text
    fixed = text.replace(store, store + "  cuda.sync_threads\n")
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    (y,), run = run_simt(fixed, x)
    np.testing.assert_array_equal(y, x[::-1])
    assert run.stats.barriers_per_block == {(0, 0, 0): 1}


def test_divergent_syncthreads_is_the_engines_barrier_error(monkeypatch, capsys):
    code, _, err = tirx_run_stderr(monkeypatch, capsys, f"{BUGS}/divergent_syncthreads.mlir")
    assert code == 1
    assert err == (
        f"{BUGS}/divergent_syncthreads.mlir:16:5: error: 'cuda.sync_threads' op [deadlock] "
        "deadlock, no thread can make progress: threads 0-31 of CTA (0,0,0) wait at "
        f"cuda.sync_threads at {BUGS}/divergent_syncthreads.mlir:16:5 for the cta barrier, "
        "which threads 32-63 of CTA (0,0,0) never reach\n"
        "hint: every thread a barrier counts must reach it, and every wait needs an arrive or a "
        "copy that completes its phase\n"
        'note: see current operation: "cuda.sync_threads"() : () -> ()\n')


def test_the_barrier_out_of_the_branch_fixes_the_deadlock():
    text = (ROOT / BUGS / "divergent_syncthreads.mlir").read_text()
    branch = "  scf.if %low {\n    cuda.sync_threads\n  }\n"
    assert branch in text
    x = np.random.default_rng(1).standard_normal(64).astype(np.float32)
    (y,), _ = run_simt(text.replace(branch, "  cuda.sync_threads\n"), x)
    np.testing.assert_array_equal(y, x[::-1])
