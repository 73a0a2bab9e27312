"""The FileCheck inputs of the CUDA C++ printer (one kernel per op family, every cuda op and the
inline-PTX constraint forms) compile with nvcc for sm_90a under the strict flags, in one
invocation (local memory allowed: the printf input needs a stack frame for its arguments;
spills are still errors). FileCheck checks the printed text's shape, this its validity. The
nvshmem input needs -rdc and the nvshmem headers; the example test compiles that path."""

from __future__ import annotations

from pathlib import Path

import pytest

from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda
from tirx_testing import cuda_compile
from tirx_testing.cuda import parse_cuda

INPUTS = Path(__file__).resolve().parents[4] / "filecheck" / "backends" / "cuda" / "printers" \
    / "cuda_cpp"
pytestmark = pytest.mark.skipif(toolchain.find_tool("nvcc") is None,
                                reason=toolchain.missing_reason("nvcc"))


def sections() -> dict[str, str]:
    out = {}
    for path in sorted(INPUTS.glob("*.mlir")):
        if path.stem == "nvshmem" or path.stem.startswith("invalid"):
            continue
        for k, text in enumerate(path.read_text().split("// -----")):
            out[f"{path.stem}_{k}"] = emit_cuda(parse_cuda(text, str(path)))
    return out


def test_family_inputs_compile_for_sm_90a(tmp_path):
    sources = sections()
    assert len(sources) >= 6
    result = cuda_compile.nvcc_cubins(sources, "sm_90a", tmp_path,
                                      cuda_compile.NO_SPILLS)
    assert result.returncode == 0, result.log
    assert not result.advisories, result.advisories
