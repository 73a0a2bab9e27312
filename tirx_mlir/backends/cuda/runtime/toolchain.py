"""`CudaToolchain`: what ``tirx_mlir.compile`` makes for a ``cuda`` kernel, without a GPU.

* sources: ``cuda`` (CUDA C++, the primary ``.source``) and ``ptx`` (-t ptx; a kernel that
  printer refuses, e.g. one calling NVSHMEM, gets a note instead);
* binary: the PTX assembled by ``ptxas -v -arch=<target arch>`` (from the cuda extra's wheels,
  ``$CUDA_HOME`` or ``PATH``: `tirx_mlir.backends.cuda.toolchain`); no ptxas or no arch in the
  target -> no binary and a note saying so;
* stats: ``arch``; per kernel ``registers``, ``spill_stores``, ``spill_loads``, ``stack_bytes``,
  ``shared_bytes`` (static), ``barriers``, ``cmem_bytes`` from ``ptxas -v``; ``ptx_instructions``
  (instruction lines of the PTX) and ``sass_instructions`` (``cuobjdump -sass``, when present);
* signature: tensor-map parameters (``cuda.tensor_maps``) by value, those the host builds
  (``cuda.host_tensor_maps``: TMA copies' maps) derived from their source tensors' buffers, and
  the dynamic shared memory the kernel's ``cuda.dynamic_shared`` views reach (the least
  ``shared_bytes`` a launch may give).
"""

from __future__ import annotations

import functools
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from tirx_mlir.runtime.toolchain import Build, Toolchain, one_line

ENTRY = re.compile(r"Compiling entry function '(?P<name>[^']+)'")
FRAME = re.compile(r"(?P<stack>\d+) bytes stack frame, (?P<stores>\d+) bytes spill stores, "
                   r"(?P<loads>\d+) bytes spill loads")
USED = re.compile(r"Used (?P<regs>\d+) registers")
SMEM = re.compile(r"(?P<n>\d+) bytes smem")
CMEM = re.compile(r"(?P<n>\d+) bytes cmem\[0\]")
BARRIERS = re.compile(r"used (?P<n>\d+) barriers")


def parse_ptxas_verbose(log: str) -> dict[str, dict[str, int]]:
    """``{kernel: {registers, spill_stores, spill_loads, stack_bytes, shared_bytes, barriers,
    cmem_bytes}}`` from the messages of ``ptxas -v``."""
    out: dict[str, dict[str, int]] = {}
    current: dict[str, int] | None = None
    for line in log.splitlines():
        if (m := ENTRY.search(line)):
            current = out.setdefault(m.group("name"), {"registers": 0, "spill_stores": 0,
                                                       "spill_loads": 0, "stack_bytes": 0,
                                                       "shared_bytes": 0, "barriers": 0,
                                                       "cmem_bytes": 0})
        if current is None:
            continue
        if (m := FRAME.search(line)):
            current.update(stack_bytes=int(m.group("stack")), spill_stores=int(m.group("stores")),
                           spill_loads=int(m.group("loads")))
        for key, pattern, group in (("registers", USED, "regs"), ("shared_bytes", SMEM, "n"),
                                    ("cmem_bytes", CMEM, "n"), ("barriers", BARRIERS, "n")):
            if (m := pattern.search(line)):
                current[key] = int(m.group(group))
    return out


def ptx_instruction_count(ptx: str) -> int:
    """Instruction lines of a PTX module (directives, declarations, labels and braces are not)."""
    count = 0
    for line in ptx.splitlines():
        text = line.split("//")[0].strip()
        if text.endswith(";") and not text.startswith((".", "{", "}")):
            count += 1
    return count


@functools.lru_cache(maxsize=None)
def tool_version(name: str) -> str:
    from tirx_mlir.backends.cuda.toolchain import find_tool

    tool = find_tool(name)
    if tool is None:
        return "absent"
    proc = subprocess.run([str(tool), "--version"], capture_output=True, text=True, timeout=60)
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    return lines[-1] if lines else "unknown"


class CudaToolchain(Toolchain):
    def __init__(self, kind: str = "cuda"):
        super().__init__(kind)

    def printers(self, target: Any) -> list[str]:
        return ["cuda", "ptx"]

    def versions(self) -> dict[str, str]:
        return {"ptxas": tool_version("ptxas"), "cuobjdump": tool_version("cuobjdump")}

    def binary(self, out: Build, lowered: Any, target: Any) -> None:
        from tirx_mlir.backends.cuda.toolchain import find_tool, missing_reason

        ptx = out.sources.get("ptx")
        if ptx is None:
            return
        out.stats["ptx_instructions"] = ptx_instruction_count(ptx)
        arch = target.get("arch")
        ptxas = find_tool("ptxas")
        if arch is None or ptxas is None:
            out.notes.append("no cubin: " + ("the target names no arch" if arch is None
                                             else missing_reason("ptxas")))
            return
        with tempfile.TemporaryDirectory() as tmp:
            cubin = Path(tmp) / "kernel.cubin"
            proc = subprocess.run([str(ptxas), "-v", f"-arch={arch}", "-", "-o", str(cubin)],
                                  input=ptx, capture_output=True, text=True, timeout=300)
            if proc.returncode != 0:
                out.notes.append(f"no cubin: ptxas -arch={arch} failed: "
                                 f"{one_line(RuntimeError(proc.stderr or proc.stdout))}")
                return
            out.binary = cubin.read_bytes()
            out.stats["arch"] = arch
            out.stats["kernels"] = parse_ptxas_verbose(proc.stderr + proc.stdout)
            sass = sass_instruction_count(cubin)
            if sass is not None:
                out.stats["sass_instructions"] = sass

    def signature(self, kernel: Any):
        from tirx_mlir.runtime.signature import KernelSignature

        from tirx_mlir.backends.cuda.host_tensor_maps import host_tensor_maps

        sig = KernelSignature.from_kernel(kernel, by_value=sorted(tensor_map_positions(kernel)),
                                          min_shared_bytes=dynamic_shared_bytes(kernel))
        return sig.with_derived(host_tensor_maps(kernel))


def sass_instruction_count(cubin: Path) -> int | None:
    from tirx_mlir.backends.cuda import sass
    from tirx_mlir.backends.cuda.toolchain import find_tool

    if find_tool("cuobjdump") is None:
        return None
    try:
        return sum(len(code) for code in sass.instructions(sass.disassemble(cubin)).values())
    except RuntimeError:  # cuobjdump refused the cubin
        return None


def tensor_map_positions(kernel: Any) -> set[int]:
    """The parameters the kernel's ``cuda.tensor_maps`` attribute names (the printers' rule;
    printing the kernel already refused a malformed attribute)."""
    from tirx_mlir.backends.cuda.printers.common import tensor_map_positions as positions
    from tirx_mlir.diagnostics import TirxError

    return positions(kernel, lambda message, op: TirxError(message, op))


def dynamic_shared_bytes(kernel: Any) -> int:
    """Bytes of the dynamic shared arena the kernel's views reach (0 when it has none)."""
    from tirx_mlir.backends.cuda.dialects.cuda.shared import dynamic_shared_bytes as arena

    return arena(kernel)
