"""The two printers agree on each kernel's parameter ABI: the ``.entry`` parameters ``-t ptx``
prints are the ones nvcc declares for the kernel ``-t cuda`` prints (same count, types,
alignment and sizes), for every examples/cuda kernel and the tile examples whose lowering
passes TMA tensor maps by value. A disagreement is a kernel that assembles and then reads its
arguments wrongly on a GPU: `-t ptx` once declared the 128-byte tensor maps as ``.u64``
pointers, which ptxas accepts and an H200 ran into an illegal-instruction fault."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import tirx_mlir
from tirx_mlir.backends.cuda import toolchain
from tirx_testing.cuda_compile import include_dirs

ROOT = Path(__file__).resolve().parents[5]
EXAMPLES = ROOT / "examples" / "cuda"
NVCC = toolchain.find_tool("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason=toolchain.missing_reason("nvcc"))

CASES = [*(p for p in sorted(EXAMPLES.glob("*.mlir")) if "nvshmem" not in p.stem),
         *(EXAMPLES / "tile" / f"{n}.mlir" for n in ("gemm_sm90a", "gemm_multicast_2x2_sm90a"))]
PARAM = re.compile(r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+\w+?_param_\d+(\[\d+\])?")


def entry_params(ptx: str) -> list[tuple[str, str, str]]:
    """(alignment, type, array size) of each parameter of the module's one ``.entry``."""
    head = ptx[ptx.index(".entry"):]
    head = head[:head.index(")")]
    return [(align or "", kind, size or "") for align, kind, size in PARAM.findall(head)]


@pytest.mark.parametrize("path", CASES, ids=lambda p: str(p.relative_to(EXAMPLES))[:-5])
def test_ptx_declares_the_parameters_nvcc_declares(path, tmp_path):
    art = tirx_mlir.compile(path)
    arch = art.stats.get("arch") or "sm_90a"
    cu = tmp_path / "k.cu"
    cu.write_text(art.sources["cuda"])
    flags = [f"-I{d}" for d in include_dirs()]
    proc = subprocess.run([str(NVCC), f"-arch={arch}", "-ptx", *flags, str(cu), "-o",
                           str(tmp_path / "k.ptx")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    ours, nvcc = entry_params(art.sources["ptx"]), entry_params((tmp_path / "k.ptx").read_text())
    assert ours, "no .entry parameters found in -t ptx"
    # nvcc spells a pointer .u64 and a by-value struct ".align 64 .b8 [128]", as we must
    assert ours == nvcc, f"-t ptx {ours} != nvcc {nvcc}"
