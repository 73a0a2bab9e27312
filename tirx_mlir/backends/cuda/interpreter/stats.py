"""What a SIMT run counts: thread-instructions (ops times the lanes that ran them), op
executions, and per-op counters other modules add (barriers, bank conflicts...).

``SimtStats`` is filled by the engine while a kernel runs and is reachable afterwards from the
run (`executor.last_stats`); ``tirx-run --stats`` prints it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np


@dataclass
class SimtStats:
    thread_instructions: int = 0
    """Sum over executed ops of the lanes that executed them (the SIMT work done)."""
    op_executions: int = 0
    """Ops executed, each counted once per group that ran it (the interpreter's work)."""
    waves: int = 0
    ctas: int = 0
    per_op: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    """op -> counter name -> value (``barriers``, ``bank_conflicts``, ``wavefronts``...)."""

    def count_block(self, n_ops: int, mask: np.ndarray) -> None:
        self.op_executions += n_ops
        self.thread_instructions += n_ops * int(np.count_nonzero(mask))

    def add(self, op, counter: str, value: int = 1) -> None:
        self.per_op[op][counter] += value

    def total(self, counter: str) -> int:
        return sum(c.get(counter, 0) for c in self.per_op.values())
