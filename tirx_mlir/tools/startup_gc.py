"""Python's cyclic garbage collector during a tool's start-up: off while the tool imports and
sets itself up, then on again with what start-up made frozen (``gc.freeze``).

Start-up makes tens of thousands of objects that live as long as the process (modules, classes,
xDSL's op and attribute definitions and their constraints) and next to no garbage. With the
collector on, every 700 new objects start a collection and every tenth of those a bigger one,
and the full collections walk everything made so far: on the 2-vCPU machine of bench/README.md
that was ~8 ms of ``tirx-opt``'s start-up on an empty module and ~20 ms of a Trainium compile
(the compile's own objects are then compared against none of start-up's). The run itself
(parsing, the passes, printing) is no different: the IR it builds lives until the run ends, and
with the collector on a Trainium compile of ~40 nki ops started ~9 collections that walked it
and the modules the passes import (~10-20 ms, bench/README.md), and the interpreter's exit
collected everything once more. So ``tirx-opt`` keeps the collector off until its run ends; a
one-shot process then exits with everything frozen, and a program that calls ``main`` again
collects the later runs' garbage as usual (only the first run's objects are frozen).

    pause()                  # before the module's imports
    ...                      # imports
    resume(freeze=False)     # the collector as it was (a program importing the tool keeps it)
    with paused():           # in main(): the command line (the printer's and dialects'
        driver = TirxOptMain(argv)   # imports), then the run
        driver.run()
    # the collector on again, the objects made so far frozen (the first time in the process)

Only the tools call these (``tirx-opt``); ``import tirx_mlir`` leaves the collector alone.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

_paused = False
"""Whether `pause` turned the collector off (and `resume` must turn it on)."""

_frozen = False
"""Whether this process froze its start-up objects (done once: a later freeze would make the
garbage of earlier in-process runs, which tests do, permanent)."""


def pause() -> None:
    """Turn the collector off until `resume` (nothing when it is off already)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume(freeze: bool = True) -> None:
    """Turn the collector on again if `pause` turned it off; with ``freeze``, the first time in
    the process, freeze the objects made so far (never collected; collections skip them)."""
    global _paused, _frozen
    if not _paused:
        return
    _paused = False
    if freeze and not _frozen:
        _frozen = True
        gc.freeze()
    gc.enable()


@contextmanager
def paused() -> Iterator[None]:
    """`pause` for the block, then `resume` (also when the block raises)."""
    pause()
    try:
        yield
    finally:
        resume()
