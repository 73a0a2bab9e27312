"""User-facing errors that name the place: an op (and so its source location) and a hint.

Every error the compiler reports about the user's program is a `TirxError`: a message in the
kernel author's terms, an optional fix hint, an optional stable code, and the op it is about.
The tools turn it into ``file:line:col: error: <message>`` (the op's location) with the op
printed below, and exit 1; they never show a Python traceback for it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class TirxError(DiagnosticException):
    """A located, user-facing error."""

    def __init__(self, message: str, op: Operation | None = None, *, hint: str | None = None,
                 code: str | None = None):
        self.message = message
        self.op = op
        self.hint = hint
        self.code = code
        super().__init__(self.render())

    def render(self) -> str:
        text = self.message
        if self.code:
            text = f"[{self.code}] {text}"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text


class PassError(TirxError):
    """A pass could not do its work on the user's program (not a crash: the program is at fault,
    e.g. no dispatch variant accepts an op, or a kernel does not fit in on-chip memory)."""


def op_location(op: Operation | None) -> tuple[str, int, int] | None:
    """(file, line, column) of an op, from its own location or its nearest located ancestor."""
    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return loc.filename.data, loc.line.data, loc.column.data
        op = op.parent_op()
    return None


def format_location(op: Operation | None, default: str = "<input>") -> str:
    loc = op_location(op)
    if loc is None:
        return default
    return f"{loc[0]}:{loc[1]}:{loc[2]}"
