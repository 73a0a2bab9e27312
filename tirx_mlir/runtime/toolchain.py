"""`Toolchain`: what ``tirx_mlir.compile`` makes from lowered IR for one target kind.

A backend registers one per target kind (``registry.register_toolchain(kind, factory)``) to
add a binary (e.g. a cubin from the PTX), statistics from its tools and the signature details
its device needs (parameters passed by value, dynamic shared memory). A kind without one gets
this base class: ``.sources`` from every printer the kind's backend registered (in registration
order; the first is ``.source``), no binary, and the instruction counts of the lowered IR.

Every method works without the device: a toolchain runs on any machine where its tools are.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tirx_mlir import registry
from tirx_mlir.diagnostics import TirxError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from tirx_mlir.runtime.signature import KernelSignature
    from tirx_mlir.target import Target


@dataclass
class Build:
    """A toolchain's output for one module."""

    sources: dict[str, str] = field(default_factory=dict)
    binary: bytes | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """Why a source or the binary is missing (a printer that refused the IR, a tool that is not
    installed)."""
    primary: str | None = None
    failed: dict[str, str] = field(default_factory=dict)
    """printer -> its error, for each printer that refused the IR (``Artifact.source`` raises
    the primary's)."""


class Toolchain:
    """The default toolchain (see the module docstring); backends subclass it."""

    def __init__(self, kind: str):
        self.kind = kind

    def printers(self, target: "Target") -> list[str]:
        """Printer names, the primary first: those the kind's backend registered."""
        from tirx_mlir.target import target_kinds

        owner = target_kinds.owner_of(self.kind)
        return [name for name in registry.printers.keys()
                if owner is not None and registry.printers.owner_of(name) == owner]

    def versions(self) -> dict[str, str]:
        """Versions of the tools the build runs (part of the compile-cache key)."""
        return {}

    def build(self, lowered: "ModuleOp", target: "Target", source: str | None = None) -> Build:
        """Print every source (``source`` names the primary), then `binary`. A printer that
        refuses the IR (a `TirxError`, e.g. tile ops not lowered) leaves a note and its error
        in ``failed``; a printer that crashes raises."""
        names = self.printers(target)
        if source is not None:
            if source not in registry.printers:
                registry.printers.lookup(source)  # raises with the candidates
            names = [source, *(n for n in names if n != source)]
        out = Build(stats={"instructions": instruction_counts(lowered)},
                    primary=names[0] if names else None)
        for name in names:
            try:
                out.sources[name] = print_with(name, lowered)
            except TirxError as err:  # IR a printer cannot print (e.g. not lowered yet)
                out.failed[name] = str(err)
                out.notes.append(f"-t {name}: {one_line(err)}")
        self.binary(out, lowered, target)
        return out

    def binary(self, out: Build, lowered: "ModuleOp", target: "Target") -> None:
        """Add ``out.binary`` and its statistics (none by default)."""

    def signature(self, kernel: Any) -> "KernelSignature":
        """The launch signature of a lowered kernel."""
        from tirx_mlir.runtime.signature import KernelSignature

        return KernelSignature.from_kernel(kernel)


def toolchain_for(kind: str) -> Toolchain:
    """The registered toolchain of target kind ``kind``, else the default one."""
    factory = registry.toolchains.get(kind)
    if factory is None:
        return Toolchain(kind)
    made = factory()  # a Toolchain subclass (a registry.Lazy of it), or an instance
    return made(kind) if isinstance(made, type) else made


def print_with(printer: str, module: "ModuleOp") -> str:
    """The text the ``-t printer`` target emits for ``module`` (`tirx_mlir.emit`)."""
    from tirx_mlir.printers.emit import emit

    return emit(module, printer)


def instruction_counts(module: "ModuleOp") -> dict[str, int]:
    """How many ops of each name the lowered IR holds (static counts, module and kernel ops
    excluded), most frequent first."""
    counts = Counter(op.name for op in module.walk() if op is not module)
    counts.pop("tirx.kernel", None)
    counts.pop("tirx.return", None)
    return dict(counts.most_common())


def one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0] if text else type(err).__name__
