"""bench/cuda_static.py and bench/cuda_compile.py: the occupancy arithmetic, ``--help``, and the
path without Triton (both benches time ours alone and say how to install Triton)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tirx_mlir.backends.cuda import toolchain

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import cuda_static  # noqa: E402


def test_occupancy_from_registers_shared_memory_and_threads():
    # 94 registers: 3072 per warp (12 units of 256) -> 21 warps -> 5 blocks of 4 warps
    assert cuda_static.occupancy(80, 94, 8192, 128) == (5, 5 * 128 / 2048)
    # 96 KiB + 1 KiB reserved per block: 2 blocks in sm_90's 228 KiB, 1 in sm_80's 164 KiB
    assert cuda_static.occupancy(90, 32, 96 * 1024, 128)[0] == 2
    assert cuda_static.occupancy(80, 32, 96 * 1024, 128)[0] == 1
    # threads bound: 8 blocks of 256; blocks bound: 32 blocks of 32 threads
    assert cuda_static.occupancy(80, 16, 0, 256) == (8, 1.0)
    assert cuda_static.occupancy(90, 16, 0, 32) == (32, 0.5)


def test_counts_are_compared_only_per_the_same_unit():
    def static(per):
        return cuda_static.Static(32, 0, (0, 0), 0, 0, 128, 80,
                                  cuda_static.Counter({"all": 10, "LDS": 2}), per, "")
    same = cuda_static.ratio_row(static("K tile"), static("K tile, unrolled"))
    assert "not compared" not in same and "1.00" in same
    kernel = cuda_static.ratio_row(static("kernel (+88 in guarded CALLs)"), static("kernel"))
    assert "not compared" not in kernel
    loop = cuda_static.ratio_row(static("loop trip"), static("kernel"))
    assert "per loop trip (ours) and per kernel (Triton): not compared" in loop


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TIRX_TRITON_PYTHON": sys.executable}  # the project's: no triton
    return subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("script", ["cuda_static.py", "cuda_compile.py"])
def test_help(script):
    proc = run(script, "--help")
    assert proc.returncode == 0 and "Triton" in proc.stdout, proc.stderr


NEEDS_TOOLS = pytest.mark.skipif(
    toolchain.find_tool("ptxas") is None or toolchain.find_tool("cuobjdump") is None,
    reason=toolchain.missing_reason("ptxas and cuobjdump"))


@NEEDS_TOOLS
def test_without_triton_ours_alone():
    if subprocess.run([sys.executable, "-c", "import triton"], capture_output=True).returncode == 0:
        pytest.skip("this Python has triton")
    static = run("cuda_static.py", "--examples", "vector_add")
    assert static.returncode == 0, static.stderr
    assert "Triton is not installed" in static.stdout and "pip install triton" in static.stdout
    line = next(ln for ln in static.stdout.splitlines() if ln.startswith("vector_add "))
    assert " ours " in line and "sm_80" in line
    timed = run("cuda_compile.py", "--examples", "vector_add", "--rounds", "1")
    assert timed.returncode == 0, timed.stderr
    assert "Triton is not installed" in timed.stdout
    assert any(ln.startswith("cuda/vector_add") and "Triton not run" in ln
               for ln in timed.stdout.splitlines())


def test_kernel_columns_are_shown_and_compared():
    def static(sass, fchk):
        whole = cuda_static.Counter({"SASS": sass, "FCHK": fchk})
        return cuda_static.Static(32, 0, (0, 0), 0, 0, 128, 80, cuda_static.Counter({"all": 10}),
                                  "loop trip", "", whole)
    assert "|  1279    32" in cuda_static.row("k", "ours", static(1279, 32))
    ratio = cuda_static.ratio_row(static(1279, 32), static(901, 0))
    assert ratio.rstrip().endswith("|  1.42     -")


EX2_AND_DIV = """.version 7.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .f32 %f<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd1, %rd1;
    ld.global.f32 %f1, [%rd1];
    ex2.approx.f32 %f2, %f1;
    div.rn.f32 %f3, %f2, %f1;
    st.global.f32 [%rd1], %f3;
    ret;
}
"""


@NEEDS_TOOLS
def test_read_cubin_counts_ex2_and_ieee_divisions(tmp_path):
    from triton_peers import ours

    cubin = tmp_path / "k.cubin"
    ours.ptxas(EX2_AND_DIV, "sm_80", cubin)
    got = cuda_static.read_cubin(cubin.read_bytes(), "k", 32, 80, 0, None, None)
    assert got.counts["EX2"] == 1 and got.counts["MUFU"] >= 2  # exp2, and the division's RCP
    assert got.kernel["FCHK"] == 1
    assert got.kernel["SASS"] > got.counts["all"]  # the guarded slow path is counted there
