"""The check of a deliberate front-end mistake: the error is a `SourceError` at the line marked
``# ERR`` in the function that makes it, with the source line and a caret, and no traceback from
inside the front end."""

from __future__ import annotations

import inspect
import linecache

import pytest


def marked_line(fn) -> int:
    """The file line of the one line of ``fn`` that ends with ``# ERR``."""
    lines, first = inspect.getsourcelines(fn)
    (offset,) = [i for i, text in enumerate(lines) if text.rstrip().endswith("# ERR")]
    return first + offset


def assert_reported_at_marked_line(make, message: str) -> None:
    """``make()`` fails with ``message`` at the marked line of ``make``'s file."""
    from tirx_mlir.script import SourceError

    filename = inspect.getsourcefile(make)
    with pytest.raises(SourceError) as info:
        make()
    err = info.value
    text = str(err)
    assert err.where is not None, text
    assert (err.where.filename, err.where.line) == (filename, marked_line(make)), text
    assert message in text
    head, source, caret = text.splitlines()[:3]
    assert head.startswith(f"{filename}:{err.where.line}:{err.where.col}: error: ")
    assert source == "  " + linecache.getline(filename, err.where.line).rstrip()
    assert caret.lstrip().startswith("^") and caret.index("^") == 2 + err.where.col - 1
    assert "Traceback" not in text and "tirx_mlir/script" not in text
