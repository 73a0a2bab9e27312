"""Python's cyclic garbage collector during a tool's start-up: off while the tool imports and
sets itself up, then on again with what start-up made frozen (``gc.freeze``).

Start-up makes tens of thousands of objects that live as long as the process (modules, classes,
xDSL's op and attribute definitions and their constraints) and next to no garbage. With the
collector on, every 700 new objects start a collection and every tenth of those a bigger one,
and the full collections walk everything made so far: on the 2-vCPU machine of bench/README.md
that was ~8 ms of ``tirx-opt``'s start-up on an empty module and ~20 ms of a Trainium compile
(the compile's own objects are then compared against none of start-up's). A compile's garbage
(replaced ops, views, folded constants) is still collected: the pipeline's run pauses the
collector only for itself (`tirx_mlir.gc_pause.collector_paused`), which then collects once.

    pause()                  # before the module's imports
    ...                      # imports
    resume(freeze=False)     # the collector as it was (a program importing the tool keeps it)
    with paused():           # in main(): the command line, the printer's and dialects' imports
        driver = TirxOptMain(argv)
    # the collector on again, start-up's objects frozen (the first time in the process)

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
