"""What ``tirx-opt`` prints between passes: MLIR's ``--mlir-print-ir-*`` flags and ``--diff-passes``.

    tirx-opt k.mlir -p cse,dce --mlir-print-ir-after-all        # the IR after every pass
    tirx-opt k.mlir -p cse,dce --mlir-print-ir-before=dce       # before the passes named
    tirx-opt k.mlir -p cse,dce --mlir-print-ir-after-change     # only after a pass changed it
    tirx-opt k.mlir -p cse,dce --mlir-print-ir-after-failure    # the IR a failing pass left
    tirx-opt k.mlir --pass-pipeline=trn --diff-passes           # a unified diff per pass

Everything goes to stderr (stdout keeps the output IR), with MLIR's headers::

    // -----// IR Dump Before cse //----- //
    // -----// IR Dump After cse //----- //
    // -----// IR Dump After cse Failed //----- //

``--diff-passes`` prints, for every pass that changed the IR, ``diff -u`` of its text before and
after (``--- before cse`` / ``+++ after cse``); a pass that changed nothing prints nothing.
"Changed" compares the printed IR, as MLIR's ``-after-change`` compares an IR fingerprint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from io import StringIO
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.printer import Printer


def module_text(module: ModuleOp) -> str:
    """The module in custom form, or in generic form when a broken op cannot print custom."""
    out = StringIO()
    try:
        Printer(stream=out).print_op(module)
    except Exception:  # noqa: BLE001 - a pass may leave an op its custom printer rejects
        out = StringIO()
        Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


@dataclass
class IRPrinting:
    """The printing flags of one run; `before`/`after`/`failed` are called around each pass."""

    stream: IO[str]
    before_all: bool = False
    after_all: bool = False
    after_change: bool = False
    after_failure: bool = False
    diff: bool = False
    before_passes: frozenset[str] = frozenset()
    after_passes: frozenset[str] = frozenset()
    _previous: str | None = field(default=None, repr=False)

    @property
    def active(self) -> bool:
        return any((self.before_all, self.after_all, self.after_change, self.after_failure,
                    self.diff, self.before_passes, self.after_passes))

    @property
    def _keeps_previous(self) -> bool:
        return self.after_change or self.diff

    def _dump(self, when: str, p: ModulePass, text: str, suffix: str = "") -> None:
        self.stream.write(f"// -----// IR Dump {when} {p.pipeline_pass_spec()}{suffix} "
                          f"//----- //\n{text}\n\n")

    def start(self) -> None:
        """A new module (a ``--split-input-file`` chunk) is about to run its passes."""
        self._previous = None

    def before(self, p: ModulePass, module: ModuleOp) -> None:
        if not self.active:
            return
        text = self._previous  # the IR after the pass before (nothing ran in between)
        if self.before_all or p.name in self.before_passes:
            text = text if text is not None else module_text(module)
            self._dump("Before", p, text)
        if self._keeps_previous and text is None:
            text = module_text(module)
        self._previous = text

    def after(self, p: ModulePass, module: ModuleOp) -> None:
        if not self.active:
            return
        text = module_text(module)
        changed = self._previous is None or text != self._previous
        if self.after_all or p.name in self.after_passes or (self.after_change and changed):
            self._dump("After", p, text)
        if self.diff and changed and self._previous is not None:
            import difflib

            self.stream.writelines(difflib.unified_diff(
                self._previous.splitlines(keepends=True), text.splitlines(keepends=True),
                f"before {p.pipeline_pass_spec()}", f"after {p.pipeline_pass_spec()}"))
            self.stream.write("\n")
        self._previous = text

    def failed(self, p: ModulePass, module: ModuleOp) -> None:
        if self.after_failure:
            self._dump("After", p, module_text(module), " Failed")
