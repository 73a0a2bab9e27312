"""Python source locations for the front end: which line made an op, and errors shown at it.

Every op the front end builds gets ``loc("file.py":line:col)`` when it is inserted: the parser of
``@Tx.kernel`` sets the location of the statement or call it is building (`at`); the ``with``
builder, which has no AST, takes the first caller frame outside the package (`caller_location`).
Locations use MLIR's convention (line and column from 1) and survive printing, so a later failure
(verifier, dispatch table, allocator, interpreter) names the op and therefore the Python line.

`SourceError` is the error a kernel author sees: ``file:line:col: error: message``, the source
line and a caret under the expression, an optional hint. `located_error` turns a located
compiler error (a `TirxError` with its op) into one.
"""

from __future__ import annotations

import contextlib
import linecache
import os
import re
import sys
import threading
from dataclasses import dataclass
from typing import Iterator

import xdsl
from xdsl.builder import Builder
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr, UnknownLoc
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint

from tirx_mlir.diagnostics import TirxError, op_location

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIPPED = (_PACKAGE + os.sep, os.path.dirname(xdsl.__file__) + os.sep, contextlib.__file__)
"""Frames in these files and folders (the compiler, xDSL, the standard library's contextlib)
are not the user's."""


@dataclass(frozen=True)
class SourceLoc:
    """A place in Python source: line and column from 1, an optional end column on that line."""

    filename: str
    line: int
    col: int
    end_col: int | None = None

    def attr(self) -> FileLineColLoc:
        return FileLineColLoc(StringAttr(self.filename), IntAttr(self.line), IntAttr(self.col))

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}:{self.col}"


class _Current(threading.local):
    loc: SourceLoc | None = None


_current = _Current()


@contextlib.contextmanager
def at(loc: SourceLoc | None) -> Iterator[None]:
    """Ops inserted inside this block get ``loc`` (the parser's statement or call)."""
    saved, _current.loc = _current.loc, loc
    try:
        yield
    finally:
        _current.loc = saved


def current_location() -> SourceLoc | None:
    return _current.loc


def caller_location() -> SourceLoc | None:
    """The first frame outside the compiler: the user's line that called the builder."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_SKIPPED):
        frame = frame.f_back
    if frame is None:
        return None
    positions = list(frame.f_code.co_positions())
    _, end_line, col, end_col = positions[frame.f_lasti // 2] if frame.f_lasti >= 0 else \
        (None, None, None, None)
    line = frame.f_lineno
    return SourceLoc(frame.f_code.co_filename, line, (col or 0) + 1,
                     (end_col + 1) if end_col is not None and end_line == line else None)


def here() -> SourceLoc | None:
    """Where the op being built comes from: the parser's place, else the caller's line."""
    return _current.loc or caller_location()


_ASSIGNMENT = re.compile(r"\s*([A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)")


def assigned_name() -> str | None:
    """For the ``with`` builder: the Python name the caller's line assigns (``x = Tx.alloc(...)``
    names the buffer ``%x``). The parser names values itself, so inside it this is None."""
    if _current.loc is not None:
        return None
    loc = caller_location()
    if loc is None:
        return None
    found = _ASSIGNMENT.match(linecache.getline(loc.filename, loc.line))
    return found.group(1) if found else None


def _stamp(op: Operation) -> None:
    if isinstance(op.location, UnknownLoc):
        loc = here()
        if loc is not None:
            op.location = loc.attr()


def located_builder(block: Block) -> Builder:
    """A builder at the end of ``block`` that gives each inserted op its Python location."""
    builder = Builder(InsertPoint.at_end(block))
    builder.operation_insertion_handler.append(_stamp)
    return builder


# --- errors at the user's line ------------------------------------------------------------------


def excerpt(loc: SourceLoc) -> list[str]:
    """The source line and a caret (``^~~~`` under the expression when its end is known)."""
    text = linecache.getline(loc.filename, loc.line).rstrip("\n")
    if not text:
        return []
    width = max(1, (loc.end_col - loc.col) if loc.end_col else 1)
    return [f"  {text}", "  " + " " * (loc.col - 1) + "^" + "~" * (width - 1)]


class SourceError(TirxError):
    """An error in the kernel author's Python, shown at its line (see the module docstring)."""

    def __init__(self, message: str, where: SourceLoc | None = None, *,
                 hint: str | None = None, code: str | None = None, op: Operation | None = None):
        self.where = where
        super().__init__(message, op, hint=hint, code=code)

    @property
    def line(self) -> int | None:
        return self.where.line if self.where else None

    def render(self) -> str:
        text = f"[{self.code}] {self.message}" if self.code else self.message
        first, *rest = text.splitlines() or [""]
        head = f"{self.where}: error: {first}" if self.where else f"error: {first}"
        lines = [head, *(excerpt(self.where) if self.where else []), *rest]
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


def op_source_loc(op: Operation | None) -> SourceLoc | None:
    found = op_location(op)
    return SourceLoc(*found) if found is not None else None


def located_error(err: TirxError) -> SourceError:
    """A compiler error about an op, shown at the Python line that built the op."""
    if isinstance(err, SourceError):
        return err
    message = err.message
    if err.op is not None and not message.startswith(err.op.name):
        message = f"{err.op.name}: {message}"
    located = SourceError(message, op_source_loc(err.op), hint=err.hint, code=err.code,
                          op=err.op)
    located.__cause__ = err
    return located
