"""cuda-split-roles reports what it changes (``REPORTS_CHANGES``, `tirx_mlir.changes`): the audit
(`tirx_mlir.verification`) finds its reports whole on gemm_sm90a (a loop split) and on a loop it
refuses (its tags dropped), finds the change when the reports are dropped, and on a kernel
without tagged loops the verification after the pass enters no op of the kernel's body."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects import scf

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dispatch.wgmma_in_flight import ROLE, SPLIT
from tirx_mlir.backends.cuda.transforms.split_roles import CudaSplitRolesPass
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

EXAMPLE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" / "gemm_sm90a.mlir"


def _before_split(path: Path = EXAMPLE):
    """The example after the passes before cuda-split-roles."""
    shots = get_pipeline("cuda").snapshots(parse_module(path.read_text(), path.stem))
    names = [name for name, _ in shots]
    return shots[names.index("cuda-split-roles") - 1][1]


def test_the_split_is_reported(monkeypatch):
    """The pass states ``REPORTS_CHANGES``: on gemm_sm90a (one loop split) the audit
    (`tirx_mlir.verification`) finds every change reported, and with the reports dropped it
    finds the change."""
    from tirx_testing.reports import reported_points, silenced_is_caught

    example = "examples/cuda/tile/gemm_sm90a.mlir"
    assert reported_points(example, "cuda", "cuda-split-roles") == 1
    assert silenced_is_caught(monkeypatch, example, "cuda", "cuda-split-roles")


def _audited_split(module, silence=None):
    """Verify ``module``, run the pass through an auditing `ModuleVerifier` (with ``silence``, a
    monkeypatch context, its reports dropped) and check; the ops visited after it."""
    from tirx_mlir.changes import ChangeLog
    from tirx_mlir.verification import ModuleVerifier

    visited = []

    class Counting(ModuleVerifier):
        def _visit(self, op, fingerprint=None):
            visited.append(op)
            return super()._visit(op, fingerprint)

    verifier = Counting()
    verifier.audit = True
    verifier.check(module)
    if silence is not None:
        for method in ("changed", "removed", "replaced"):
            silence.setattr(ChangeLog, method, lambda self, *args, **kwargs: None)
    verifier.run_pass(CudaSplitRolesPass(), Context(), module)
    if silence is not None:
        silence.undo()
    visited.clear()
    verifier._auditing = False  # noqa: SLF001 - count the verification from the report only
    verifier.audit = False
    verifier.check(module)
    from_report = list(visited)
    verifier.audit = True
    verifier._audit(module)  # noqa: SLF001 - then the full one, finding what was not reported
    return from_report


def test_a_loop_left_whole_reports_its_tags_dropped(monkeypatch):
    """A loop the pass refuses loses its tags (`_untag`): reported, the audit passes; with the
    reports dropped, the tags' removal is found."""
    from tirx_mlir.verification import UnreportedChange

    module = _before_split()
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp) and SPLIT in op.attributes)
    loop.body.block.insert_op_before(cuda.SyncThreadsOp(), loop.body.block.first_op)
    _audited_split(module)
    assert not any(ROLE in op.attributes or SPLIT in op.attributes for op in module.walk())

    module = _before_split()
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp) and SPLIT in op.attributes)
    loop.body.block.insert_op_before(cuda.SyncThreadsOp(), loop.body.block.first_op)
    with monkeypatch.context() as patch, pytest.raises(UnreportedChange):
        _audited_split(module, patch)


def test_a_kernel_without_tagged_loops_is_not_visited_again():
    """gemm_sm80 has no tagged loop: the pass reports nothing and the verification after it
    enters the module and its kernel only (which holds ops verified at every visit), not the
    ~900 ops of the kernel, whose fingerprints it built when the pass did not report."""
    module = _before_split(EXAMPLE.parent / "gemm_sm80.mlir")
    visited = _audited_split(module)
    assert [op.name for op in visited] == ["builtin.module", "tirx.kernel"]
