"""Collective ptx instructions and the launch they need, stated once.

Some instructions are executed by a whole group of threads together, each thread supplying and
receiving its part (PTX ISA): ``mma.sync``, ``ldmatrix`` and ``stmatrix`` (``.sync.aligned``)
by all 32 threads of a warp; ``wgmma.*`` and ``setmaxnreg`` by all 128 threads of a warpgroup
(4 consecutive warps; "the same setmaxnreg instruction must be executed by all warps in a
warpgroup"). A table row names its group in ``Entry.collective`` (table.py). A block whose
thread count is not a multiple of the group's size ends in a partial warp (warpgroup), which
cannot execute the instruction: `launch_error` says so, and the ptx op verifier (ops.py), both
cuda printers and the dispatch variants that emit these instructions (their predicates) all ask
it. The SIMT interpreter refuses the same kernels at run time.

The warp-synchronous instructions that take a member mask (``shfl.sync``, ``vote.sync``,
``redux.sync``, ``match.sync``, ``elect.sync``) are not collective here: threads past the end of a
partial warp count as exited, which such a mask may name (CUDA C++ Programming Guide, "Warp
Shuffle Functions"). Whether a collective runs in divergent code (inside an ``scf.if`` on the
lane id) depends on values, not on the launch: the interpreter checks that when it runs.
"""

from __future__ import annotations

import math
from typing import Sequence

WARP = 32
WARPGROUP = 128
GROUPS = {WARP: ("warp", "all 32 lanes of each warp"),
          WARPGROUP: ("warpgroup", "all 128 threads (4 warps) of each warpgroup")}
"""Group size -> (its name, what the instruction needs of it)."""


def launch_error(what: str, unit: int, threads: Sequence[int]) -> str | None:
    """Why ``what`` (an instruction executed by whole groups of ``unit`` threads) cannot run in
    a block of ``threads`` (the kernel's thread dims), or None when it can (``unit`` 0: not a
    collective)."""
    total = math.prod(threads)
    if not unit or total % unit == 0:
        return None
    name, need = GROUPS[unit]
    dims = list(threads)
    count = "" if len(dims) == 1 else f" ({total} threads)"
    return f"threads {dims}{count} is not a whole number of {name}s; {what} needs {need}"


def launch_hint(unit: int, threads: Sequence[int]) -> str:
    """What to change: the thread count to launch instead (``unit`` from `launch_error`)."""
    total = math.prod(threads)
    above = max(unit, -(-total // unit) * unit)
    example = f" (e.g. threads [{above}])" if len(threads) == 1 else ""
    return f"launch a multiple of {unit} threads per block{example}"
