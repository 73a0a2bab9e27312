"""Every PTX module ``-t ptx`` prints assembles with ptxas (warnings as errors) for the arch it
claims, sm_80 kernels also retargeted to sm_90a; where SASS opcodes are named the cubin holds
them (cuobjdump).

Inputs, globbed at test time: every section of the printer's FileCheck tests
(tests/filecheck/backends/cuda/printers/ptx/*.mlir, split at ``// -----``; a file marked
``// ERROR`` is refused on purpose and left to FileCheck), whose ``// SASS: OPC ...`` lines name
opcodes for the claimed arch of their section; and every examples/cuda/*.mlir, with the opcodes of `EXAMPLE_SASS`
for those it names. An example with nvshmem ops is refused with a pointer to ``-t cuda``. One
ptxas run per module (about 20 ms); cuobjdump only where opcodes are named. Skipped only when no
ptxas exists."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

import tirx_mlir  # noqa: F401  (registers the backends)
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError

load("cuda")

ROOT = Path(__file__).resolve().parents[5]
TESTS = ROOT / "tests/filecheck/backends/cuda/printers/ptx"
EXAMPLES = ROOT / "examples/cuda"
PTXAS = toolchain.find_tool("ptxas")
CUOBJDUMP = toolchain.find_tool("cuobjdump")
pytestmark = pytest.mark.skipif(PTXAS is None, reason=toolchain.missing_reason("ptxas"))

OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Za-z0-9_.]*)")
"""A SASS instruction's full opcode in cuobjdump -sass output."""
SM80_TARGET, SM90A_TARGET = 'target "cuda -arch=sm_80"', 'target "cuda -arch=sm_90a"'

EXAMPLE_SASS: dict[str, dict[str, tuple[str, ...]]] = {
    # example: {arch: SASS opcode prefixes its PTX must assemble to}
    "mma_tile": {"sm_80": ("HMMA.16816.F32", "LDSM.16.M88.4", "LDSM.16.M88.2"),
                 "sm_90a": ("HMMA.16816.F32", "LDSM.16.M88.4")},
    "gemm_mma_sync": {"sm_80": ("HMMA.16816.F32", "LDSM.16.M88.4")},
    "cp_async_copy": {"sm_80": ("LDGSTS",), "sm_90a": ("LDGSTS",)},
    "mbarrier_pipeline": {"sm_90a": ("SYNCS",)},
    "warp_reduce": {"sm_80": ("SHFL.BFLY",)},
    "tma_wgmma": {"sm_90a": ("HGMMA.64x128x16.F32", "UTMALDG.2D", "SYNCS")},
}


def sections(path: Path) -> list[tuple[str, str, int]]:
    """(name, text, first line) of each ``// -----`` section of ``path`` with a kernel."""
    out, line = [], 0
    for i, chunk in enumerate(path.read_text().split("// -----")):
        if "tirx.kernel" in chunk:
            out.append((f"{path.stem}#{i}", chunk, line))
        line += chunk.count("\n")
    return out


def cases() -> list:
    """(name, text, first line, arch or None for the claimed one, SASS opcodes)."""
    out = []
    for path in sorted(TESTS.glob("*.mlir")):
        if "// ERROR" in path.read_text():
            continue
        for name, text, line in sections(path):
            wanted = tuple(w for m in re.finditer(r"^// SASS: (.*)$", text, re.M)
                           for w in m.group(1).split())
            out.append(pytest.param(name, text, line, None, wanted, id=name))
            if SM80_TARGET in text:
                out.append(pytest.param(name, text, line, "sm_90a", (), id=name + "@sm_90a"))
    for path in sorted(EXAMPLES.glob("*.mlir")):
        text = path.read_text()
        if "nvshmem." in text:
            continue
        sass = EXAMPLE_SASS.get(path.stem, {})
        claimed = re.search(r'-arch=(sm_\w+)"', text)
        claimed = claimed.group(1) if claimed else None
        out.append(pytest.param(path.stem, text, 0, None, sass.get(claimed, ()), id=path.stem))
        if SM80_TARGET in text:
            out.append(pytest.param(path.stem, text, 0, "sm_90a", sass.get("sm_90a", ()),
                                    id=path.stem + "@sm_90a"))
    return out


def sass_opcodes(cubin: Path) -> set[str]:
    dump = subprocess.run([str(CUOBJDUMP), "-sass", str(cubin)], capture_output=True,
                          text=True, timeout=60, check=True).stdout
    return {m.group(1) for m in OPCODE.finditer(dump)}


def printed(name: str, text: str, line: int, arch: str | None) -> str:
    if arch == "sm_90a":
        text = text.replace(SM80_TARGET, SM90A_TARGET)
    module = parse_module(text, name, line_offset=line)
    module.verify()
    return emit_ptx(module)


def test_the_inputs_cover_both_archs():
    targets = {re.search(r"^\.target (\S+)", printed(*case.values[:4]), re.M).group(1)
               for case in cases()}
    assert {"sm_80", "sm_90a"} <= targets


@pytest.mark.parametrize("name,text,line,arch,wanted", cases())
def test_printed_ptx_assembles_for_its_target(name, text, line, arch, wanted, tmp_path):
    ptx = printed(name, text, line, arch)
    target = re.search(r"^\.target (\S+)$", ptx, re.M).group(1)
    assert arch in (None, target)
    source, cubin = tmp_path / "k.ptx", tmp_path / "k.cubin"
    source.write_text(ptx)
    proc = subprocess.run([str(PTXAS), f"-arch={target}", "--warning-as-error", str(source),
                           "-o", str(cubin)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{name} ({target}):\n{proc.stderr}\n{ptx}"
    if not wanted:
        return
    if CUOBJDUMP is None:
        pytest.skip(toolchain.missing_reason("cuobjdump"))
    opcodes = sass_opcodes(cubin)
    missing = [w for w in wanted if not any(o == w or o.startswith(w + ".") for o in opcodes)]
    assert not missing, f"{name} ({target}): no {', '.join(missing)} in the SASS " \
                        f"({', '.join(sorted(opcodes))})"


@pytest.mark.parametrize("path", [p for p in sorted(EXAMPLES.glob("*.mlir"))
                                  if "nvshmem." in p.read_text()], ids=lambda p: p.stem)
def test_nvshmem_examples_are_refused_with_a_pointer_to_the_cuda_printer(path):
    module = parse_module(path.read_text(), path.name)
    with pytest.raises(PrintError, match="nvshmem") as err:
        emit_ptx(module)
    assert "-t cuda" in (err.value.hint or "")
