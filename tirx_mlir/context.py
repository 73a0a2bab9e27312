"""Building an xDSL context with every registered dialect, and parsing with source locations.

`make_context` registers the dialect *factories* of `tirx_mlir.registry.dialects` (the core,
upstream xDSL dialects, and whatever loaded backends added), so a dialect module is imported only
when a file uses it. `parse_module` attaches ``loc("file":line:col)`` to every op that has no
explicit location, which is what lets diagnostics name the place.
"""

from __future__ import annotations

import bisect

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, IntAttr, ModuleOp, StringAttr, UnknownLoc
from xdsl.ir import Operation
from xdsl.parser import Parser

from tirx_mlir import registry


def make_context(allow_unregistered: bool = False) -> Context:
    import tirx_mlir.dialects  # noqa: F401 - registers the core dialects

    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in registry.dialects.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


class LocatedParser(Parser):
    """A Parser that gives each op the file:line:col where its text starts."""

    def __init__(self, ctx: Context, text: str | bytes, name: str = "<input>", line_offset: int = 0):
        super().__init__(ctx, text, name)
        content = self.lexer.input.content
        self._line_starts = [0]
        pos = content.find("\n")
        while pos != -1:
            self._line_starts.append(pos + 1)
            pos = content.find("\n", pos + 1)
        self._line_offset = line_offset
        self._filename = StringAttr(name)

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        op = super().parse_operation()
        if isinstance(op.location, UnknownLoc):
            line = bisect.bisect_right(self._line_starts, start) - 1
            col = start - self._line_starts[line] + 1
            op.location = FileLineColLoc(self._filename, IntAttr(line + 1 + self._line_offset),
                                         IntAttr(col))
        return op


def parse_module(text: str | bytes, name: str = "<input>", ctx: Context | None = None,
                 line_offset: int = 0) -> ModuleOp:
    """Parse MLIR text (custom or generic form) into a module with source locations.

    Raises xdsl's ParseError (which prints file:line:col) on malformed input; does not verify.
    """
    ctx = ctx or make_context()
    return LocatedParser(ctx, text, name, line_offset).parse_module()
