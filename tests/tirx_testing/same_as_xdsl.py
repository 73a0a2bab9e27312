"""The check that one of our cleanup passes gives the IR xDSL's pass of the same name gives: run
a pipeline on an example, and at every point where it runs ours, run xDSL's on a copy of the
module; both must print the same text."""

from __future__ import annotations

from pathlib import Path

from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline


def checked_points(path: Path, pipeline: str, ours: type, theirs: type) -> tuple[int, int]:
    """Run ``pipeline`` on ``path``, comparing each ``ours`` pass with ``theirs()`` on a copy;
    (how many points were compared, how many of them changed the IR), so that a caller can
    show the comparison is not vacuous."""
    ctx = make_context()
    module = parse_module(path.read_text(), str(path), ctx)
    seen = changed = 0
    for p in get_pipeline(pipeline).passes:
        if isinstance(p, ours):
            before = str(module)
            copy = module.clone()
            theirs().apply(ctx, copy)
            p.apply(ctx, module)
            assert str(module) == str(copy), f"{path.name}: {p.name} differs from xDSL's"
            seen += 1
            changed += str(module) != before
        else:
            p.apply(ctx, module)
    return seen, changed
