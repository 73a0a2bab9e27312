"""Reading a cubin's SASS and resource usage with ``cuobjdump``: instructions, loops, opcode mix.

* `disassemble(cubin)` -> the text of ``cuobjdump -sass``; `res_usage(cubin)` -> per function
  `ResUsage` (registers, stack, static shared, local and constant bytes) from
  ``cuobjdump -res-usage``.
* `instructions(sass)` -> per function the `Instruction`s (address, guard predicate, opcode with
  its modifiers, operands) of the disassembly; `family(opcode)` is the opcode without modifiers
  (``HMMA.16816.F32.BF16`` -> ``HMMA``).
* `loops(code)` -> the `Loop`s of a function: every backward branch (``BRA`` to a lower
  address) closes one, its body the instructions from the target up to the branch; `main_loop`
  picks the one a kernel spends its time in (most tensor-core instructions, then the largest);
  `opcode_mix(body)` counts families; `tensor_core_macs(opcode)` is the multiply-adds of one
  HMMA/IMMA (per warp) or HGMMA (per warpgroup), from the shape in its name;
  `split_subroutines(code)` separates the subroutines a kernel calls only behind a guard (the
  cold path of an IEEE division).

The cubin may come from any CUDA 12/13 ptxas (cuobjdump 13.2 reads them); the tools are found
with `tirx_mlir.backends.cuda.toolchain.find_tool`.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tirx_mlir.backends.cuda.toolchain import find_tool, missing_reason

FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)", re.M)
INSTRUCTION = re.compile(r"^\s+/\*(?P<addr>[0-9a-f]{4,})\*/\s+(?:(?P<pred>@!?U?P\w+)\s+)?"
                         r"(?P<op>[A-Z][A-Z0-9_.x]*)(?P<rest>[^;]*);", re.M)
RES_FUNCTION = re.compile(r"^\s*Function\s+([^:\s]+):\s*$", re.M)
RES_FIELD = re.compile(r"([A-Z]+)(?:\[\d+\])?:(\d+)")
TENSOR_CORE = ("HMMA", "HGMMA", "IMMA", "UTCHMMA", "UTCQMMA", "UTCIMMA")
"""Families of the tensor-core instructions (mma.sync, wgmma, tcgen05.mma)."""


@dataclass(frozen=True)
class Instruction:
    address: int
    predicate: str  # "" or the guard, e.g. "@!P1"
    opcode: str     # with modifiers: "HMMA.16816.F32"
    operands: str

    @property
    def family(self) -> str:
        return family(self.opcode)


@dataclass(frozen=True)
class Loop:
    start: int  # address of the branch target (the loop header)
    end: int    # address of the backward branch
    body: tuple[Instruction, ...]

    def contains(self, other: "Loop") -> bool:
        return self.start <= other.start and other.end <= self.end and self != other


@dataclass(frozen=True)
class ResUsage:
    registers: int
    stack: int
    shared: int  # static shared memory bytes (dynamic shared is a launch parameter)
    local: int
    constant: int


def family(opcode: str) -> str:
    return opcode.split(".", 1)[0]


MMA_SHAPE = re.compile(r"^(?:HMMA|IMMA)\.(\d\d)(\d)(\d+)\b|^HGMMA\.(\d+)x(\d+)x(\d+)\b")


def tensor_core_macs(opcode: str) -> int:
    """Multiply-adds one tensor-core instruction does for its warp (HMMA/IMMA, shape ``mnk`` as
    in ``HMMA.16816``) or warpgroup (HGMMA, ``64x128x16``); 0 for any other opcode."""
    m = MMA_SHAPE.match(opcode)
    if m is None:
        return 0
    dims = [int(g) for g in (m.groups()[:3] if m.group(1) else m.groups()[3:])]
    return dims[0] * dims[1] * dims[2]


def _cuobjdump(flag: str, cubin: bytes | Path) -> str:
    tool = find_tool("cuobjdump")
    if tool is None:
        raise FileNotFoundError(missing_reason("cuobjdump"))
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(cubin, bytes):
            path = Path(tmp) / "kernel.cubin"
            path.write_bytes(cubin)
        else:
            path = Path(cubin)
        proc = subprocess.run([str(tool), flag, str(path)], capture_output=True, text=True,
                              timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"cuobjdump {flag} {path.name} failed: {proc.stderr.strip()}")
    return proc.stdout


def disassemble(cubin: bytes | Path) -> str:
    """``cuobjdump -sass`` of a cubin (bytes or a path)."""
    return _cuobjdump("-sass", cubin)


def instructions(sass: str) -> dict[str, list[Instruction]]:
    """``{function: [Instruction, ...]}`` in address order; text before any ``Function :``
    header (a bare listing) goes under ``""``."""
    out: dict[str, list[Instruction]] = {}
    heads = [(m.start(), m.group(1)) for m in FUNCTION.finditer(sass)] or [(0, "")]
    if heads[0][0] > 0 and INSTRUCTION.search(sass, 0, heads[0][0]):
        heads.insert(0, (0, ""))
    for i, (pos, name) in enumerate(heads):
        end = heads[i + 1][0] if i + 1 < len(heads) else len(sass)
        out[name] = [Instruction(int(m.group("addr"), 16), m.group("pred") or "", m.group("op"),
                                 m.group("rest").strip())
                     for m in INSTRUCTION.finditer(sass, pos, end)]
    return out


def res_usage(cubin: bytes | Path) -> dict[str, ResUsage]:
    """``{function: ResUsage}`` from ``cuobjdump -res-usage``."""
    return parse_res_usage(_cuobjdump("-res-usage", cubin))


def parse_res_usage(text: str) -> dict[str, ResUsage]:
    out: dict[str, ResUsage] = {}
    heads = list(RES_FUNCTION.finditer(text))
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        fields = dict(RES_FIELD.findall(text, head.end(), end))
        out[head.group(1)] = ResUsage(*(int(fields.get(k, 0)) for k in
                                        ("REG", "STACK", "SHARED", "LOCAL", "CONSTANT")))
    return out


def _branch_target(ins: Instruction) -> int | None:
    if ins.family not in ("BRA", "UBRA"):
        return None
    m = re.search(r"(?:^|[\s,`(])0x([0-9a-f]+)\b", ins.operands)
    return int(m.group(1), 16) if m else None


def split_subroutines(code: list[Instruction]) -> tuple[list[Instruction], list[Instruction]]:
    """(the kernel, its guarded subroutines): ptxas places a subroutine after the kernel's
    ``EXIT``; one that every ``CALL`` reaches only behind a predicated branch around the call
    (the slow path of an IEEE ``div.rn``/``rcp.rn``: ``FCHK P0``, ``@!P0 BRA`` past the
    ``CALL``, taken for denormal or special operands) is the second part, from its address up
    to the next subroutine's. A subroutine called unconditionally (a 64-bit division) stays in
    the kernel. No guarded call: ``(code, [])``."""
    sites: dict[int, list[int]] = {}
    for k, ins in enumerate(code):
        m = re.search(r"0x([0-9a-f]+)\b", ins.operands) if ins.family == "CALL" else None
        if m:
            sites.setdefault(int(m.group(1), 16), []).append(k)
    starts = sorted(sites)
    cold = []
    for n, target in enumerate(starts):
        if all(_around(code, k) for k in sites[target]):
            cold.append((target, starts[n + 1] if n + 1 < len(starts) else None))
    if not cold:
        return code, []

    def is_cold(ins: Instruction) -> bool:
        return any(lo <= ins.address and (hi is None or ins.address < hi) for lo, hi in cold)

    return [i for i in code if not is_cold(i)], [i for i in code if is_cold(i)]


def _around(code: list[Instruction], k: int) -> bool:
    """Whether one of the 3 instructions before ``code[k]`` is a predicated branch past it."""
    for ins in code[max(k - 3, 0):k]:
        target = _branch_target(ins)
        if ins.predicate and target is not None and target > code[k].address:
            return True
    return False


def loops(code: list[Instruction]) -> list[Loop]:
    """The loops of one function, one per backward branch, in address order of their header.
    A branch to itself (the ``BRA`` spin after ``EXIT``) is no loop."""
    found = []
    for ins in code:
        target = _branch_target(ins)
        if target is not None and target < ins.address:
            body = tuple(i for i in code if target <= i.address <= ins.address)
            found.append(Loop(target, ins.address, body))
    return sorted(found, key=lambda lp: (lp.start, -lp.end))


def opcode_mix(body: tuple[Instruction, ...] | list[Instruction]) -> Counter[str]:
    """Opcode families and how often each occurs."""
    return Counter(i.family for i in body)


def main_loop(code: list[Instruction]) -> Loop | None:
    """The loop with the most tensor-core instructions (then the most instructions), innermost
    first on a tie: the main loop of a GEMM; of a kernel without tensor cores, its largest loop;
    None for straight-line code."""
    def score(lp: Loop) -> tuple[int, int, int]:
        mix = opcode_mix(lp.body)
        nested = sum(1 for other in found if lp.contains(other))
        return sum(mix[f] for f in TENSOR_CORE), -nested, len(lp.body)

    found = loops(code)
    if not found:
        return None
    tensor = [lp for lp in found if score(lp)[0] > 0]
    if tensor:  # the innermost loop that holds as many tensor-core ops as any
        best = max(score(lp)[0] for lp in tensor)
        return max((lp for lp in tensor if score(lp)[0] == best), key=score)
    return max(found, key=lambda lp: len(lp.body))
