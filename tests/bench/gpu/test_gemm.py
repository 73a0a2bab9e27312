"""bench/gpu/gemm.py without a GPU: ``--dry-run`` compiles every kernel it would time and prints
the launches; a plain run says there is no GPU and exits with status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.runtime.driver import unavailable_reason

ROOT = Path(__file__).resolve().parents[3]
GEMM = ROOT / "bench" / "gpu" / "gemm.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(GEMM), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.skipif(toolchain.find_tool("ptxas") is None, reason=toolchain.missing_reason("ptxas"))
def test_dry_run_compiles_and_prints_the_launches():
    proc = run("--dry-run", "--size", "256", "--elems", "8192")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    gemm = next(ln for ln in lines if ln.startswith("gemm_mma_sync"))
    assert "grid [4, 4] x 128 threads" in gemm and "(256, 256, 256)" in gemm and "sm_80" in gemm
    add = next(ln for ln in lines if ln.startswith("vector_add"))
    assert "grid [8] x 256 threads" in add and "0.0983 MB moved" in add
    assert any(ln.startswith("tma_wgmma") and "skipped" in ln for ln in lines)


def test_a_size_the_tiles_do_not_divide_is_reported():
    proc = run("--dry-run", "--size", "100", "--elems", "1000")
    assert "not a multiple of the 64x32 tile" in proc.stdout
    assert "resizes in steps of 1024" in proc.stdout


@pytest.mark.skipif(unavailable_reason() is None, reason="a GPU is here")
def test_without_a_gpu_status_2():
    proc = run("--size", "256")
    assert proc.returncode == 2 and "no GPU" in proc.stderr


def test_b_is_read_from_the_gemm_op_not_from_the_shapes():
    """A square problem's B is N x K and K x N alike: the op says which (gemm_async's K-major
    B; tirx.gemm's K x N B). Taken from the shapes, gemm_sm90a's B was timed transposed (a
    relative error of 1.4 against torch on the H200)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_gpu_gemm", GEMM)
    gemm = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = gemm  # its dataclasses look their module up
    spec.loader.exec_module(gemm)
    tile = ROOT / "examples" / "cuda" / "tile"
    assert gemm.b_is_n_by_k((tile / "gemm_sm90a.mlir").read_text()) is True
    assert gemm.b_is_n_by_k((tile / "gemm_multicast_2x2_sm90a.mlir").read_text()) is True
    assert gemm.b_is_n_by_k((tile / "gemm_sm80.mlir").read_text()) is False
