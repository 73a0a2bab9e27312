"""``cse`` and ``dce``: xDSL's passes, reporting what they change (`tirx_mlir.verification`).

The IR they make is xDSL's; each also states ``REPORTS_CHANGES``, so the verification after it
visits only the blocks it touched (`ModuleVerifier.run_pass`). CSE replaces an op's uses by an
equal op's results (``existing``: its users are the ones redirected) and erases ops; DCE erases
ops through a rewriter listener.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.transforms.common_subexpression_elimination import (CommonSubexpressionElimination,
                                                              CSEDriver)
from xdsl.transforms.dead_code_elimination import DeadCodeElimination, region_dce

from tirx_mlir.changes import ChangeLog, change_listener, current_changes


@dataclass
class _ReportingCSEDriver(CSEDriver):
    log: ChangeLog = field(default_factory=ChangeLog)

    def _mark_erasure(self, op: Operation) -> None:
        self.log.removed(op)
        super()._mark_erasure(op)

    def _replace_and_delete(self, op: Operation, existing: Operation) -> None:
        self.log.removed(op)  # its block and its users
        self.log.changed(existing)
        super()._replace_and_delete(op, existing)


class ReportingCSE(CommonSubexpressionElimination):
    """xDSL's ``cse``, reporting the ops it redirects and erases."""

    REPORTS_CHANGES = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _ReportingCSEDriver(log=current_changes()).simplify(op)


class ReportingDCE(DeadCodeElimination):
    """xDSL's ``dce``, reporting the ops it erases (a block erased whole is found by the
    verifier: it verifies in full after IR with a region of several blocks)."""

    REPORTS_CHANGES = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        region_dce(op.body, change_listener())
