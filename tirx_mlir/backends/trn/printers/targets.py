"""The xDSL ``-t`` targets ``nki`` and ``nki-legacy`` (registered in registry.printers).

Each API's printer module is imported when that API is first printed: ``-t nki`` does not load
the legacy printer.

``-t nki`` without options makes the target without xDSL's option parsing (`_NkiOptions`):
xDSL's ``from_spec`` evaluates the class's type hints (``typing.get_type_hints``, compiling
each string annotation of the class and its bases) to convert option values, ~0.1-0.25 ms, and
``tirx-opt`` asks it twice per run (checking ``-t`` before reading the input, then printing).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.arg_spec import ArgSpec
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


class _NkiOptions(Target):
    """A target whose options all have defaults: a spec without options (``-t nki``) is made
    as ``cls()``, what xDSL's ``from_spec`` makes of it (every field not named in the spec
    takes its default); a spec with options, or naming another target, goes to xDSL's."""

    @classmethod
    def from_spec(cls, spec: ArgSpec):
        if not spec.parameters and spec.name == cls.name and all(
                f.default is not MISSING or f.default_factory is not MISSING
                for f in fields(cls) if f.init):  # type: ignore[arg-type]
            return cls()
        return super().from_spec(spec)


@dataclass(frozen=True)
class NkiTarget(_NkiOptions):
    """``-t nki``: NKI Python for the current API (NKI 0.3 - 0.6)."""

    name: ClassVar[str] = "nki"
    check: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit(module, "current", self.check))


@dataclass(frozen=True)
class NkiLegacyTarget(_NkiOptions):
    """``-t nki-legacy``: neuronxcc.nki Python, as TIRx emits for trn1."""

    name: ClassVar[str] = "nki-legacy"
    check: bool = True

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(emit(module, "legacy", self.check))
