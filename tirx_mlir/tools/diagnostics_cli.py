"""Turning every failure of a ``tirx-opt`` run into a located report, never a traceback.

A report reads like MLIR's::

    kernel.mlir:7:3: error: 'tirx.slice' op slice dim 1: [0, 512] is out of bounds for extent 512
    note: see current operation: %v = "tirx.slice"(%Y) <{...}> : (...) -> ...

* parse errors (`report_parse_error`) point at the offending text and show the source line;
* verifier failures (`verify_located`) are found op by op, so the report names the op that
  fails and its ``loc("file":line:col)``; xDSL's VerifyException does not carry the op;
* `TirxError` / `PassError` carry their op (``.op``), an optional code and a hint;
* anything else raised inside a pass, a verifier, the parser or a printer is an internal
  compiler error (`report_internal_error`), reported with the stage it happened in.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from io import StringIO
from typing import TYPE_CHECKING

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.printer import Printer
from xdsl.dialects.builtin import StringAttr
from xdsl.traits import NoTerminator, SymbolTable
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from tirx_mlir.diagnostics import TirxError, format_location
from tirx_mlir.dominance import DominanceError, check_dominance

if TYPE_CHECKING:
    from tirx_mlir.verification import ModuleVerifier

DEBUG_ENV = "TIRX_MLIR_DEBUG"
"""Set to 1 to let internal errors propagate with their Python traceback."""

MAX_OP_LINES = 12
"""An op printed under a report is cut after this many lines."""


def debugging() -> bool:
    return os.environ.get(DEBUG_ENV, "") not in ("", "0")


@dataclass
class Report:
    """One diagnostic: ``<where>: error: <message>`` followed by indented context lines."""

    where: str | None
    message: str
    notes: list[str] = field(default_factory=list)

    def render(self) -> str:
        head = f"{self.where}: error: {self.message}" if self.where else f"error: {self.message}"
        return "\n".join([head, *self.notes]) + "\n"


class ReportedError(Exception):
    """Raised inside the driver once a failure has been turned into a `Report`."""

    def __init__(self, report: Report, internal: bool = False):
        super().__init__(report.message)
        self.report = report
        self.internal = internal


# --- parse errors -------------------------------------------------------------------------------

_UNKNOWN_OP = re.compile(r"^Operation ([\w.$-]+) is not registered$")
_UNKNOWN_ATTR = re.compile(r"^'([\w.$-]+)' is not registered$")


def _did_you_mean(name: str, candidates: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(name, candidates, n=3, cutoff=0.75)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def _dialect_names(ctx: Context, qualified: str) -> tuple[str | None, list[str], list[str]]:
    """(dialect, its op names, its attribute/type names) for a ``dialect.name`` string."""
    dialect_name = qualified.split(".", 1)[0]
    if dialect_name not in ctx.registered_dialect_names:
        return None, [], []
    dialect = ctx.get_optional_dialect(dialect_name)
    if dialect is None:
        return None, [], []
    return (dialect_name, [op.name for op in dialect.operations],
            [attr.name for attr in dialect.attributes])


OPAQUE_OPS_HINT = "pass --allow-unregistered-dialect to keep it opaque"
"""What tirx-opt suggests for an op of an unknown dialect (a tool that cannot keep it says
what it can do instead)."""


def explain_parse_message(message: str, ctx: Context | None,
                          unregistered_hint: str = OPAQUE_OPS_HINT) -> str:
    """xDSL's parse message, with what to change for unknown ops, types and attributes."""
    if message.strip() == "in block definition":  # xDSL drops the first words
        return "expected '}' to close the region (or a block label ^bb...)"
    if ctx is None:
        return message
    if (m := _UNKNOWN_OP.match(message)) is not None:
        name = m.group(1)
        dialect, ops, _ = _dialect_names(ctx, name)
        if dialect is None:
            return (f"unknown operation '{name}': no dialect '{name.split('.', 1)[0]}' is "
                    f"registered ({unregistered_hint})")
        return f"unknown operation '{name}': dialect '{dialect}' has no such op" + \
            _did_you_mean(name, ops)
    if (m := _UNKNOWN_ATTR.match(message)) is not None:
        name = m.group(1)
        dialect, _, attrs = _dialect_names(ctx, name)
        if dialect is None:
            return (f"unknown type or attribute '{name}': no dialect '{name.split('.', 1)[0]}' "
                    f"is registered")
        return f"unknown type or attribute '{name}': dialect '{dialect}' defines no such " \
               f"type or attribute" + _did_you_mean(name, attrs)
    return message


def report_parse_error(err: ParseError, ctx: Context | None = None,
                       line_offset: int = 0, unregistered_hint: str = OPAQUE_OPS_HINT) -> Report:
    """``file:line:col: error: message`` plus the source line with carets under the text."""
    span = err.span
    if line_offset and not span.line_offset:
        from dataclasses import replace

        span = replace(span, line_offset=line_offset)
    loc = span.get_location()
    context = span.print_with_context("").splitlines()[1:]  # drop xDSL's own location line
    while context and not context[-1].strip():
        context.pop()
    if len(context) > 4:  # a span over many lines: its first line is enough
        context = [*context[:2], "  ..."]
    if len(context) >= 2:
        context[:2] = _crop_source_line(context[0], context[1])
    message = explain_parse_message(err.msg, ctx, unregistered_hint)
    return Report(str(loc), message, context)


SOURCE_LINE_WIDTH = 120
"""A source line shown under an error is cut to this many characters around the carets."""


def _crop_source_line(line: str, carets: str) -> list[str]:
    """The source line and its caret line, cut to a window around the carets when long (a
    100,000-character line must not flood the terminal)."""
    if len(line) <= SOURCE_LINE_WIDTH:
        return [line, carets]
    first = len(carets) - len(carets.lstrip())
    start = max(0, first - SOURCE_LINE_WIDTH // 2)
    end = start + SOURCE_LINE_WIDTH
    head = "... " if start else ""
    tail = " ..." if end < len(line) else ""
    shown_carets = carets[start:end].rstrip() or " " * (first - start) + "^"
    return [head + line[start:end] + tail, " " * len(head) + shown_carets]


# --- op-located errors --------------------------------------------------------------------------


def op_text(op: Operation, generic: bool = True, max_lines: int = MAX_OP_LINES) -> str:
    """The op as text (generic form by default: it prints even when the op is malformed)."""
    out = StringIO()
    try:
        Printer(stream=out, print_generic_format=generic).print_op(op)
    except Exception:  # noqa: BLE001 - a broken op may not print in custom form
        if not generic:
            return op_text(op, True, max_lines)
        return f"<{op.name} (could not be printed)>"
    lines = out.getvalue().splitlines()
    if len(lines) > max_lines:
        lines = [*lines[:max_lines], f"... ({len(lines) - max_lines} more lines)"]
    return "\n  ".join(lines)


def report_op_error(op: Operation | None, message: str, default_where: str,
                    hint: str | None = None, show_op: bool = True) -> Report:
    where = format_location(op, default_where) if op is not None else default_where
    notes = [f"hint: {hint}"] if hint else []
    if op is not None and show_op:
        notes.append("note: see current operation: " + op_text(op))
    return Report(where, message, notes)


def report_tirx_error(err: TirxError, default_where: str) -> Report:
    message = f"[{err.code}] {err.message}" if err.code else err.message
    if err.op is not None:
        message = f"'{op_name(err.op)}' op {message}"
    return report_op_error(err.op, message, default_where, err.hint)


def op_name(op) -> str:
    """The op's name as the user wrote it (an opaque op's own, not 'builtin.unregistered')."""
    from xdsl.dialects.builtin import UnregisteredOp

    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


# --- verification -------------------------------------------------------------------------------


def _verify_one(op: Operation) -> None:
    """Verify ``op`` alone (its regions' ops are visited separately), including the check that
    a single-block region expecting a terminator is not empty."""
    op.verify(verify_nested_ops=False)
    if op.has_trait(NoTerminator):
        return
    for region in op.regions:
        if len(region.blocks) == 1 and region.block.first_op is None:
            raise VerifyException(f"Operation {op.name} contains empty block in single-block "
                                  f"region that expects at least a terminator")


def verify_located(module: ModuleOp, default_where: str, stage: str = "",
                   verifier: ModuleVerifier | None = None) -> None:
    """Check SSA dominance (`tirx_mlir.dominance`), then verify every op, children before
    parents as xDSL does; on the first failure raise a
    `ReportedError` located at the failing op. ``stage`` (e.g. "after pass 'cse'") says when.
    With a `ModuleVerifier` (one per pipeline run), a module it finds valid is not walked
    again; one it rejects is, for the located report."""
    suffix = f" ({stage})" if stage else ""
    try:
        if verifier is not None:  # only where the last pass reported changes, if it did
            verifier.check(module)  # dominance first: its error, else the op's, is raised
            return
        check_dominance(module)
    except DominanceError as err:
        err.message += suffix
        raise ReportedError(report_tirx_error(err, default_where)) from None
    except Exception:  # noqa: BLE001 - the walk below reports it, located
        if verifier is None:
            raise
    for op in module.walk(region_first=True):
        if op.has_trait(SymbolTable):
            _check_unique_symbols(op, default_where, suffix)
        try:
            _verify_one(op)
        except TirxError as err:
            raise ReportedError(report_tirx_error(err if err.op else _with_op(err, op),
                                                  default_where)) from None
        except DiagnosticException as err:
            message = " ".join(str(err).removeprefix("Operation does not verify: ").split())
            message = message.removeprefix(f"Operation {op.name} ")
            raise ReportedError(report_op_error(
                op, f"'{op.name}' op {message}{suffix}", default_where)) from None
        except Exception as err:  # noqa: BLE001 - a crashing verifier is a compiler bug
            if debugging():
                raise
            raise ReportedError(report_op_error(
                op, f"internal compiler error while verifying '{op.name}'{suffix}: "
                    f"{type(err).__name__}: {err}", default_where), internal=True) from err


def _check_unique_symbols(table: Operation, default_where: str, suffix: str) -> None:
    """A symbol defined twice in one symbol table, reported at the second definition (xDSL's
    SymbolTable verifier reports it at the table, often an implicit module with no location)."""
    seen: dict[str, Operation] = {}
    for region in table.regions:
        for block in region.blocks:
            for op in block.ops:
                name = op.properties.get("sym_name") or op.attributes.get("sym_name")
                if not isinstance(name, StringAttr):
                    continue
                first = seen.setdefault(name.data, op)
                if first is not op:
                    raise ReportedError(report_op_error(
                        op, f"'{op.name}' op redefines symbol @{name.data}, first defined at "
                            f"{format_location(first, default_where)}{suffix}", default_where,
                        hint="rename one of them", show_op=False))


def _with_op(err: TirxError, op: Operation) -> TirxError:
    err.op = op
    return err


def report_internal_error(stage: str, err: BaseException, where: str) -> Report:
    """``error: internal compiler error in <stage>: <exc>`` (the driver adds the reproducer)."""
    notes = ["note: this is a bug in tirx_mlir or one of its backends; set TIRX_MLIR_DEBUG=1 "
             "to see the Python traceback"]
    text = str(err) or repr(err)
    return Report(where, f"internal compiler error in {stage}: {type(err).__name__}: {text}",
                  notes)
