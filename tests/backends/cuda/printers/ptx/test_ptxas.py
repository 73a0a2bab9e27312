"""Every PTX module ``-t ptx`` prints assembles with ptxas for the arch it claims, and where a
test kernel names SASS opcodes (``// SASS: HMMA LDSM``) the cubin holds them (cuobjdump).

Inputs: every section of the FileCheck tests of the printer
(tests/filecheck/backends/cuda/printers/ptx/*.mlir, split at ``// -----``) and every
examples/cuda/*.mlir (globbed at test time). Sections that are meant to fail (``// ERROR``
files) are left to their own tests. One ptxas run per module (about 20 ms each); cuobjdump only
where opcodes are named. Skipped only when no ptxas exists."""

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

load("cuda")

ROOT = Path(__file__).resolve().parents[5]
TESTS = ROOT / "tests/filecheck/backends/cuda/printers/ptx"
EXAMPLES = ROOT / "examples/cuda"
PTXAS = toolchain.find_tool("ptxas")
CUOBJDUMP = toolchain.find_tool("cuobjdump")
pytestmark = pytest.mark.skipif(PTXAS is None, reason=toolchain.missing_reason("ptxas"))

OPCODE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Za-z0-9_.]*)")
"""A SASS instruction's full opcode in cuobjdump -sass output."""


def sections(path: Path) -> list[tuple[str, str, int]]:
    """(name, text, first line) of each ``// -----`` section of ``path``."""
    out, line = [], 0
    for i, chunk in enumerate(path.read_text().split("// -----")):
        out.append((f"{path.name}#{i}", chunk, line))
        line += chunk.count("\n")
    return out


def inputs() -> list[tuple[str, str, int]]:
    files = sorted(TESTS.glob("*.mlir")) + sorted(EXAMPLES.glob("*.mlir"))
    return [(name, text, line) for path in files if "// ERROR" not in path.read_text()
            for name, text, line in sections(path) if "tirx.kernel" in text]


def sass_opcodes(cubin: Path) -> set[str]:
    dump = subprocess.run([str(CUOBJDUMP), "-sass", str(cubin)], capture_output=True,
                          text=True, timeout=60, check=True).stdout
    return {m.group(1) for m in OPCODE.finditer(dump)}


def test_the_inputs_cover_both_archs():
    texts = [emit_ptx(parse_module(text, name, line_offset=line))
             for name, text, line in inputs()]
    targets = {re.search(r"^\.target (\S+)", t, re.M).group(1) for t in texts}
    assert {"sm_80", "sm_90a"} <= targets


@pytest.mark.parametrize("name,text,line", [pytest.param(*i, id=i[0]) for i in inputs()])
def test_printed_ptx_assembles_for_its_target(name, text, line, tmp_path):
    module = parse_module(text, name, line_offset=line)
    module.verify()
    ptx = emit_ptx(module)
    arch = re.search(r"^\.target (\S+)$", ptx, re.M).group(1)
    source, cubin = tmp_path / "k.ptx", tmp_path / "k.cubin"
    source.write_text(ptx)
    proc = subprocess.run([str(PTXAS), f"-arch={arch}", "--warning-as-error", str(source),
                           "-o", str(cubin)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{name} ({arch}):\n{proc.stderr}\n{ptx}"
    wanted = {w for m in re.finditer(r"^// SASS: (.*)$", text, re.M) for w in m.group(1).split()}
    if not wanted:
        return
    if CUOBJDUMP is None:
        pytest.skip(toolchain.missing_reason("cuobjdump"))
    opcodes = sass_opcodes(cubin)
    missing = {w for w in wanted if not any(o == w or o.startswith(w + ".") for o in opcodes)}
    assert not missing, f"{name}: no {', '.join(sorted(missing))} in the SASS " \
                        f"({', '.join(sorted(opcodes))})"
