"""Python's cyclic garbage collector paused around a compile's bulk work (`collector_paused`):
a pipeline's run (`tirx_mlir.pipelines.Pipeline.apply`) and a printer's expansion and printing
(the PTX printer). A tool's start-up pauses it its own way (`tirx_mlir.tools.startup_gc`)."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for the block (a pipeline's run), then as it was.

    Passes make many objects that live on (the ops and types they build) and next to no cyclic
    garbage (what they replace is freed by reference counting): the 256-block softmax chain of
    bench/trn_compile.py peaks at the same traced memory with the collector on and off, while on
    it made ~40 collections per compile that walked the new IR again and again (~10% of the
    compile's CPU, bench/README.md). A collector turned off already stays off; the collections
    the block skipped happen, once, after it."""
    was_on = gc.isenabled()
    if was_on:
        gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
