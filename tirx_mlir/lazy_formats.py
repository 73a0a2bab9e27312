"""Declarative assembly formats parsed on first use, not when the op class is defined.

xDSL 0.74's ``irdl_op_definition`` parses an op's ``assembly_format`` (``"$lhs `,` $rhs
attr-dict `:` type($result)"``) into a ``FormatProgram`` when the class is created: importing
``xdsl.dialects.arith`` parses 45 of them, about half of that import's time, although a compile
reads or prints a handful of arith ops (usually ``arith.constant``, which has its own parser).
`install()` replaces the module function ``irdl_op_definition`` calls
(``xdsl.irdl.operations.get_accessors_from_op_def``) by one that gives the op ``parse`` and
``print`` methods parsing the format the first time either runs, then reusing the program. What
an op parses and prints is unchanged; only a malformed format (a bug in a dialect's definition,
not in the user's input) is reported at the first parse or print of that op instead of at import.

The three simplest formats (``attr-dict``, ``attr-dict `:` type($result)``, ``attr-dict $value``)
run through `tirx_mlir.simple_formats`, which does what xDSL's program does for them without
importing xDSL's format machinery (~5 ms a compile); any other format is xDSL's program.

`install` is idempotent and runs before the tools' context is built (`tirx_mlir.located_parser`
imports this module), so the dialects a compile loads lazily (arith, scf, the project's) get the
lazy formats; a class defined before it keeps xDSL's eager program.
"""

from __future__ import annotations

from typing import Any

from tirx_mlir import simple_formats

parsed: list[str] = []
"""The ops whose format has been parsed in this process, in order (what a run needed)."""


def install() -> None:
    """Make every op defined from now on parse its assembly format on first use."""
    from xdsl.irdl import operations

    if getattr(operations.get_accessors_from_op_def, "lazy_formats", False):
        return
    eager = operations.get_accessors_from_op_def

    def get_accessors_from_op_def(op_def: operations.OpDef, custom_verify: Any | None
                                  ) -> dict[str, Any]:
        text = op_def.assembly_format
        if text is None:
            return eager(op_def, custom_verify)
        op_def.assembly_format = None  # xDSL's accessors without the format
        try:
            accessors = eager(op_def, custom_verify)
        finally:
            op_def.assembly_format = text
        accessors.update(_format_methods(op_def, text))
        return accessors

    get_accessors_from_op_def.lazy_formats = True  # type: ignore[attr-defined]
    operations.get_accessors_from_op_def = get_accessors_from_op_def


def _format_methods(op_def: Any, text: str) -> dict[str, Any]:
    """``parse`` and ``print`` running the format ``text`` of ``op_def``, parsed when first
    needed (errors as xDSL raises them at definition: ``PyRDLOpDefinitionError``)."""
    program: list[Any] = []

    def format_program() -> Any:
        if not program:
            simple = simple_formats.program(text, op_def)
            if simple is not None:
                program.append(simple)
            else:
                from xdsl.irdl.declarative_assembly_format import FormatProgram
                from xdsl.utils.exceptions import ParseError, PyRDLOpDefinitionError

                try:
                    program.append(FormatProgram.from_str(text, op_def))
                except ParseError as e:
                    raise PyRDLOpDefinitionError(
                        "Error during the parsing of the assembly format: ", e.args) from e
            parsed.append(op_def.name)
        return program[0]

    @classmethod  # type: ignore[misc]
    def parse_with_format(cls, parser):
        return format_program().parse(parser, cls)

    def print_with_format(self, printer):
        return format_program().print(printer, self)

    return {"parse": parse_with_format, "print": print_with_format}
