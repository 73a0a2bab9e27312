"""Every example in examples/cuda/ printed with ``-t cuda`` compiles with nvcc for each arch it
claims, under the strict flags (warnings are errors, no spills, no local memory, no ``(C75xx)``
advisory), its SASS holds the instructions the example exists for (cuobjdump), and it compiles
with NVRTC too. All examples of one arch go through one nvcc invocation.

The nvshmem ring compiles separately with ``-rdc=true`` against the nvidia-nvshmem-cu13 headers
(~15 s: marked slow). Skipped only where no nvcc exists (neither the ``cuda`` extra nor a
toolkit), or, for the nvshmem test, where the nvshmem wheel is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda
from tirx_testing import cuda_compile
from tirx_testing.cuda import parse_cuda

EXAMPLES = Path(__file__).resolve().parents[5] / "examples" / "cuda"
NVCC = toolchain.find_tool("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason=toolchain.missing_reason("nvcc"))

SASS = {
    # example: {arch: SASS opcode prefixes that must appear}
    "vector_add": {"sm_80": ("LDG.E.128", "STG.E.128"), "sm_90a": ("LDG.E.128", "STG.E.128")},
    "warp_reduce": {"sm_80": ("SHFL.BFLY", "RED.E.ADD.F32"), "sm_90a": ("SHFL.BFLY",)},
    "transpose": {"sm_80": ("STS", "LDS", "BAR.SYNC"), "sm_90a": ("STS", "LDS", "BAR.SYNC")},
    "mma_tile": {"sm_80": ("HMMA.16816.F32", "LDSM.16.M88.4", "LDSM.16.M88.2"),
                 "sm_90a": ("HMMA.16816.F32", "LDSM.16.M88.4")},
    "gemm_mma_sync": {"sm_80": ("HMMA.16816.F32", "LDSM.16.M88.4"),
                      "sm_90a": ("HMMA.16816.F32", "LDSM.16.M88.4")},
    "cp_async_copy": {"sm_80": ("LDGSTS.E.BYPASS.128", "LDGDEPBAR", "DEPBAR"),
                      "sm_90a": ("LDGSTS.E.BYPASS.128",)},
    "mbarrier_pipeline": {"sm_80": ("ATOMS.ARRIVE",), "sm_90a": ("SYNCS.ARRIVE",
                                                                  "SYNCS.PHASECHK")},
    "tma_wgmma": {"sm_90a": ("HGMMA.64x128x16.F32", "UTMALDG.2D", "SYNCS.ARRIVE",
                             "SYNCS.PHASECHK")},
}
NVSHMEM_EXAMPLE = "nvshmem_ring"
ARCHES = ("sm_80", "sm_90a")


def test_every_example_has_a_sass_check():
    on_disk = {p.stem for p in EXAMPLES.glob("*.mlir")}
    assert on_disk == {*SASS, NVSHMEM_EXAMPLE}


@pytest.fixture(scope="module")
def sources() -> dict[str, str]:
    return {name: emit_cuda(parse_cuda((EXAMPLES / f"{name}.mlir").read_text()))
            for name in SASS}


@pytest.fixture(scope="module", params=ARCHES)
def compiled(request, sources, tmp_path_factory):
    arch = request.param
    chosen = {n: s for n, s in sources.items() if arch in SASS[n]}
    result = cuda_compile.nvcc_cubins(chosen, arch, tmp_path_factory.mktemp(arch))
    return arch, result


def test_examples_compile_strict(compiled):
    arch, result = compiled
    assert result.returncode == 0, f"nvcc -arch={arch} failed:\n{result.log}"
    assert not result.advisories, f"ptxas advisories for {arch}:\n{result.advisories}"


def test_examples_sass(compiled):
    arch, result = compiled
    assert result.returncode == 0, result.log
    missing = {}
    for name, cubin in result.cubins.items():
        opcodes = cuda_compile.sass_opcodes(cubin)
        absent = [want for want in SASS[name][arch]
                  if not any(op.startswith(want) for op in opcodes)]
        if absent:
            missing[name] = absent
    assert not missing, f"SASS opcodes missing on {arch}: {missing}"


@pytest.mark.skipif(cuda_compile.nvrtc_library() is None,
                    reason="libnvrtc not found: install the cuda extra (nvidia-cuda-nvrtc)")
def test_examples_compile_with_nvrtc(sources):
    failures = {}
    for name, text in sources.items():
        arch = "sm_80" if "sm_80" in SASS[name] else "sm_90a"
        rc, log = cuda_compile.nvrtc_compile(text, arch, f"{name}.cu")
        if rc:
            failures[name] = log
    assert not failures, failures


def test_a_kernel_for_sm_90a_only_does_not_build_for_sm_80(sources, tmp_path):
    """The check can fail: wgmma and TMA are refused by ptxas below sm_90a."""
    result = cuda_compile.nvcc_cubins({"tma_wgmma": sources["tma_wgmma"]}, "sm_80", tmp_path)
    assert result.returncode != 0
    assert "wgmma" in result.log or "sm_90" in result.log


@pytest.mark.slow
@pytest.mark.skipif(cuda_compile.nvshmem_include() is None,
                    reason="nvshmem headers not found: pip install nvidia-nvshmem-cu13==3.4.5 "
                           "(in the cuda extra)")
def test_nvshmem_ring_compiles_rdc(tmp_path):
    """-rdc=true against the nvshmem wheel's headers. NVSHMEM's own device functions
    (nvshmemi_quiet) spill 8 bytes under ptxas, so spills are not errors here; every warning of
    the printed code still is."""
    text = emit_cuda(parse_cuda((EXAMPLES / f"{NVSHMEM_EXAMPLE}.mlir").read_text()))
    assert "#include <nvshmem.h>" in text
    src = tmp_path / "ring.cu"
    src.write_text(text)
    import subprocess

    flags = [f"-I{d}" for d in cuda_compile.include_dirs()]
    proc = subprocess.run([str(NVCC), "-arch=sm_90a", "-rdc=true", "-c", "-o",
                           str(tmp_path / "ring.o"), str(src), "-Werror", "all-warnings",
                           *flags], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
