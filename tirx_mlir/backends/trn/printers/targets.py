"""The xDSL ``-t`` targets ``nki`` and ``nki-legacy`` (registered in registry.printers).

Each API's printer module is imported when that API is first printed: ``-t nki`` does not load
the legacy printer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from tirx_mlir.backends.trn.printers.check import check_source
from tirx_mlir.printers import PrintError

PRINTERS = {"current": ("tirx_mlir.backends.trn.printers.current", "NkiPrinter"),
            "legacy": ("tirx_mlir.backends.trn.printers.legacy", "NkiLegacyPrinter")}
"""API -> (module, class) of its printer."""


def printer_class(api: str) -> type:
    """The printer class of NKI API ``api`` (its module imported now)."""
    import importlib

    if api not in PRINTERS:
        raise ValueError(f"unknown NKI API '{api}'; use 'current' or 'legacy'")
    module, name = PRINTERS[api]
    return getattr(importlib.import_module(module), name)


def emit(module: ModuleOp, api: str = "current", check: bool = True) -> str:
    text = printer_class(api)(module).emit()
    if check:
        problems = check_source(text, api)
        if problems:
            raise PrintError(f"internal error: the {api} NKI printer emitted calls that do not "
                             f"match the NKI signature table:\n  " + "\n  ".join(problems),
                             module, code="nki-print")
    return text


@dataclass(frozen=True)
class NkiTarget(Target):
    """``-t nki``: NKI Python for the current API (NKI 0.3 - 0.6)."""

    name: ClassVar[str] = "nki"
    check: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit(module, "current", self.check))


@dataclass(frozen=True)
class NkiLegacyTarget(Target):
    """``-t nki-legacy``: neuronxcc.nki Python, as TIRx emits for trn1."""

    name: ClassVar[str] = "nki-legacy"
    check: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit(module, "legacy", self.check))
