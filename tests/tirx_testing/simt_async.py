"""IR snippets the asynchronous-copy tests share (mbarrier spin waits)."""

from __future__ import annotations


def spin_wait(bar: str = "%pb", parity: str = "%p0", op: str = "try_wait",
              true: str = "%true", indent: str = "  ") -> str:
    """An ``scf.while`` that loops on ``ptx.mbarrier_<op>_parity`` until the phase of
    ``parity`` of the mbarrier at ``bar`` (an i32 shared address) has completed; ``true`` names
    an ``i1`` constant true."""
    lines = ["scf.while () : () -> () {",
             f'  %done = ptx.mbarrier_{op}_parity "shared" [{bar}], {parity} : (i32, i32) -> i1',
             f"  %again = arith.xori %done, {true} : i1",
             "  scf.condition(%again)",
             "} do {",
             "  scf.yield",
             "}"]
    return "\n".join(indent + line for line in lines)
