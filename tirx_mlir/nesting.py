"""How deeply IR text may nest, and the Python stack every stage needs for that depth.

The parser, the verifier, the printers, the passes and the interpreter recurse once per level of
nesting (a region inside an op, an attribute inside an attribute, a type inside a type). Rather
than letting a hostile file (3,000 nested ``scf.for``, a 100,000-deep array attribute) exhaust
the Python stack somewhere, the parser refuses input nested deeper than `MAX_NESTING_DEPTH`
brackets (``(``, ``[``, ``{`` and ``<`` together) with a located error, and
`ensure_stack_headroom` makes sure the interpreter's recursion limit leaves room for that depth
at every stage: each level costs at most `FRAMES_PER_LEVEL` Python frames (a nested dictionary
attribute, the costliest, takes about 10 to parse; tests/test_nesting.py runs every stage at the
limit).
"""

from __future__ import annotations

import sys

MAX_NESTING_DEPTH = 128
"""Open brackets the parser accepts at once; far above any kernel (a 10-deep loop nest in the
generic form with a layout attribute is about 30)."""

FRAMES_PER_LEVEL = 12
"""An upper bound on the Python frames one level of nesting costs any stage."""

_MARGIN = 300
"""Frames for what a stage calls at the innermost level (op verifiers, numpy, printing)."""


def _stack_depth() -> int:
    depth, frame = 0, sys._getframe(1)  # noqa: SLF001 - the cheap way to count frames
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


def ensure_stack_headroom() -> None:
    """Raise the recursion limit (never lower it) so that IR nested `MAX_NESTING_DEPTH` deep can
    be parsed, verified, printed, transformed and interpreted from the caller's stack depth."""
    needed = _stack_depth() + MAX_NESTING_DEPTH * FRAMES_PER_LEVEL + _MARGIN
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)
