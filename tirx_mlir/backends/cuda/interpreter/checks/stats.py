"""What a SIMT run did: instructions and shared-memory wavefronts per op, barriers per block.

`SimtStats` is filled while a kernel runs (the engine counts executed ops, the bank-conflict
observer counts shared accesses, barriers are counted per block) and read afterwards from Python
or printed by ``tirx-run --stats`` (`SimtStats.table`). Counting conventions follow Nsight
Compute: a *warp instruction* is one op executed by a warp with at least one active lane
(``smsp__inst_executed``), a *thread instruction* one executed by one active lane
(``smsp__thread_inst_executed``); shared *requests* are warp instructions that access shared
memory, each needing one or more *wavefronts*, the excess over the ideal being *bank conflicts*
(see `banks`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tirx_mlir.backends.cuda.interpreter.checks.banks import BankReport


@dataclass
class OpStats:
    """The counts of one op of the kernel (all its executions, every block)."""

    name: str
    location: str
    warp_instructions: int = 0
    thread_instructions: int = 0
    shared_requests: int = 0
    wavefronts: int = 0
    ideal_wavefronts: int = 0

    @property
    def bank_conflicts(self) -> int:
        return self.wavefronts - self.ideal_wavefronts


@dataclass
class SimtStats:
    """Counts of one kernel run; ``ops`` in the order the ops first ran."""

    ops: dict[int, OpStats] = field(default_factory=dict)
    barriers: dict[str, Counter] = field(default_factory=dict)  # scope -> block -> count
    _keys: dict[int, object] = field(default_factory=dict, repr=False)  # keeps ops alive

    # ---- recording (the engine and the observers) ----------------------------------------
    def _entry(self, op) -> OpStats:
        entry = self.ops.get(id(op))
        if entry is None:
            entry = self.ops[id(op)] = OpStats(op.name, _location(op))
            self._keys[id(op)] = op
        return entry

    def record_op(self, op, warps: np.ndarray) -> None:
        """``op`` ran once for the active lanes whose warps are ``warps`` (one entry per lane)."""
        entry = self._entry(op)
        entry.thread_instructions += int(warps.size)
        entry.warp_instructions += int(np.unique(warps).size)

    def record_shared(self, op, report: BankReport) -> None:
        entry = self._entry(op)
        entry.shared_requests += int(report.warps.size)
        entry.wavefronts += report.total_wavefronts
        entry.ideal_wavefronts += int(report.ideal.sum())

    def record_barrier(self, scope: str, blocks) -> None:
        """A barrier of ``scope`` completed in each block of ``blocks`` (3-tuples)."""
        counts = self.barriers.setdefault(scope, Counter())
        counts.update(blocks)

    # ---- reading --------------------------------------------------------------------------
    def by_name(self, name: str) -> list[OpStats]:
        """Every op named ``name`` (e.g. ``"cuda.load"``), in the order they first ran."""
        return [entry for entry in self.ops.values() if entry.name == name]

    @property
    def thread_instructions(self) -> int:
        return sum(entry.thread_instructions for entry in self.ops.values())

    @property
    def warp_instructions(self) -> int:
        return sum(entry.warp_instructions for entry in self.ops.values())

    @property
    def bank_conflicts(self) -> int:
        return sum(entry.bank_conflicts for entry in self.ops.values())

    def barriers_per_block(self, scope: str = "cta") -> Counter:
        """Block index -> barriers of ``scope`` it completed."""
        return Counter(self.barriers.get(scope, Counter()))

    def table(self) -> str:
        """The report ``tirx-run --stats`` prints."""
        lines = [f"instructions: {self.thread_instructions} thread, "
                 f"{self.warp_instructions} warp"]
        for scope in sorted(self.barriers):
            lines.append(f"barriers per block ({scope}): {_spread(self.barriers[scope])}")
        lines.append(f"shared bank conflicts: {self.bank_conflicts}")
        rows = [("op", "location", "warp-instrs", "thread-instrs", "shared-reqs", "wavefronts",
                 "conflicts")]
        for e in self.ops.values():
            shared = e.shared_requests > 0
            rows.append((e.name, e.location, str(e.warp_instructions), str(e.thread_instructions),
                         str(e.shared_requests) if shared else "-",
                         str(e.wavefronts) if shared else "-",
                         str(e.bank_conflicts) if shared else "-"))
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        for row in rows:
            cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
            cells += [cell.rjust(width) for cell, width in zip(row[2:], widths[2:])]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)


def _spread(counts: Counter) -> str:
    """``2 (all 1024 blocks)`` or ``min 1, max 3 over 4 blocks``."""
    values = list(counts.values())
    low, high = min(values), max(values)
    if low == high:
        return f"{low} (all {len(values)} blocks)"
    return f"min {low}, max {high} over {len(values)} blocks"


def _location(op) -> str:
    from tirx_mlir.diagnostics import format_location

    return format_location(op, default="-")
