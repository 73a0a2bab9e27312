"""What a SIMT run counts: instructions per op, shared-memory wavefronts and bank conflicts per
op, barriers per block.

``SimtStats`` is filled while a kernel runs and is reachable afterwards from the run
(`executor.last_run(interp).stats`); ``tirx-run --stats`` prints `SimtStats.table`.

* The engine counts every block it runs (`count_block`): an op executed by a group is one
  *warp instruction* per warp with an active lane and one *thread instruction* per active lane
  (Nsight Compute's ``smsp__inst_executed`` / ``smsp__thread_inst_executed``); every op of a
  block counts each time the block runs.
* Other modules add per-op counters (`add`): ``barriers`` (CTA generations completed, barriers.py),
  ``shared_requests`` / ``wavefronts`` / ``ideal_wavefronts`` (one request per warp and shared
  access, and the wavefronts it needs, checks/banks.py); ``bank_conflicts`` is wavefronts above
  the ideal.
* ``barriers_per_block``: block index -> CTA-wide barriers (``__syncthreads``, cluster and grid
  barriers) it completed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np


@dataclass
class OpCounts:
    """One op's line of the statistics."""

    op: object
    warp_instructions: int
    thread_instructions: int
    counters: dict

    @property
    def name(self) -> str:
        return self.op.name

    @property
    def location(self) -> str:
        from tirx_mlir.diagnostics import format_location

        return format_location(self.op, default="-")

    @property
    def bank_conflicts(self) -> int:
        return self.counters.get("wavefronts", 0) - self.counters.get("ideal_wavefronts", 0)


@dataclass
class SimtStats:
    thread_instructions: int = 0
    """Sum over executed ops of the lanes that executed them (the SIMT work done)."""
    op_executions: int = 0
    """Ops executed, each counted once per group that ran it (the interpreter's work)."""
    waves: int = 0
    ctas: int = 0
    per_op: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    """op -> counter name -> value (``barriers``, ``wavefronts``...)."""
    barriers_per_block: Counter = field(default_factory=Counter)
    """Block index (x, y, z) -> CTA-wide barriers it completed."""
    _blocks: dict = field(default_factory=dict, repr=False)
    """id(block) -> [block, warp instructions, thread instructions] per op of the block."""

    def count_block(self, n_ops: int, mask: np.ndarray, block=None, wave=None) -> int:
        """The engine ran the ``n_ops`` ops of ``block`` for the lanes of ``mask``; returns
        the number of those lanes."""
        lanes = int(np.count_nonzero(mask))
        self.op_executions += n_ops
        self.thread_instructions += n_ops * lanes
        if block is None or wave is None:
            return lanes
        warps = wave.n_warps if lanes == wave.L else \
            int(np.count_nonzero(np.bincount(wave.warp[mask])))
        entry = self._blocks.get(id(block))
        if entry is None or entry[0] is not block:
            entry = self._blocks[id(block)] = [block, 0, 0]
        entry[1] += warps
        entry[2] += lanes
        return lanes

    def add(self, op, counter: str, value: int = 1) -> None:
        self.per_op[op][counter] += value

    def total(self, counter: str) -> int:
        return sum(c.get(counter, 0) for c in self.per_op.values())

    @property
    def warp_instructions(self) -> int:
        return sum(len(block.ops) * warps for block, warps, _ in self._blocks.values())

    @property
    def bank_conflicts(self) -> int:
        return self.total("wavefronts") - self.total("ideal_wavefronts")

    def ops(self) -> list[OpCounts]:
        """Every op that ran or was counted, in source order (file, line, column)."""
        rows: dict[int, OpCounts] = {}
        for block, warps, lanes in self._blocks.values():
            for op in block.ops:
                rows[id(op)] = OpCounts(op, warps, lanes, dict(self.per_op.get(op, {})))
        for op, counters in self.per_op.items():
            if id(op) not in rows:
                rows[id(op)] = OpCounts(op, 0, 0, dict(counters))
        return sorted(rows.values(), key=_source_order)

    def of(self, name: str) -> list[OpCounts]:
        """The ops named ``name`` (``"cuda.load"``), in source order."""
        return [row for row in self.ops() if row.name == name]

    def table(self) -> str:
        """The report of ``tirx-run --stats``."""
        lines = [f"instructions: {self.warp_instructions} warp, {self.thread_instructions} thread"
                 f" ({_count(self.ctas, 'block')} in {_count(self.waves, 'wave')})",
                 f"barriers per block: {_spread(self.barriers_per_block, self.ctas)}",
                 f"shared memory: {self.total('shared_requests')} requests, "
                 f"{self.total('wavefronts')} wavefronts, {self.bank_conflicts} bank conflicts"]
        head = ("op", "location", "warp-instrs", "thread-instrs", "shared-reqs", "wavefronts",
                "conflicts", "barriers")
        rows = [head]
        for row in self.ops():
            c = row.counters
            shared = c.get("shared_requests", 0) > 0
            rows.append((row.name, row.location, str(row.warp_instructions),
                         str(row.thread_instructions),
                         *((str(c["shared_requests"]), str(c.get("wavefronts", 0)),
                            str(row.bank_conflicts)) if shared else ("-", "-", "-")),
                         str(c["barriers"]) if c.get("barriers") else "-"))
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        for r in rows:
            cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1]),
                     *(cell.rjust(w) for cell, w in zip(r[2:], widths[2:]))]
            lines.append("  ".join(cells).rstrip())
        return "\n".join(lines)


def _spread(counts: Counter, blocks: int) -> str:
    """``1 (each of 1024 blocks)``, or ``0 to 2 (3 of 4 blocks have some)``."""
    values = list(counts.values()) + [0] * max(0, blocks - len(counts))
    if not values:
        return "0"
    low, high = min(values), max(values)
    if low == high:
        return f"{low} (each of {_count(len(values), 'block')})"
    return f"{low} to {high} ({len(counts)} of {len(values)} blocks have some)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _source_order(row: OpCounts):
    from tirx_mlir.diagnostics import op_location

    loc = op_location(row.op)
    return (0, loc) if loc is not None else (1, ("", 0, 0))
