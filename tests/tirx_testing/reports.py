"""The check that a pass stating ``REPORTS_CHANGES`` reports what it changes
(`tirx_mlir.verification`): run a pipeline on an example under an auditing verifier (a full
verification after each one from a report, `UnreportedChange` for an op changed unreported), and
at each point where the pass runs, once as it is (the audit finds nothing) and once with its
reports dropped (the audit must catch the change: the report is what lets the verifier skip)."""

from __future__ import annotations

from pathlib import Path

from tirx_mlir.changes import ChangeLog, reports_changes
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_mlir.verification import ModuleVerifier, UnreportedChange, current_changes

ROOT = Path(__file__).resolve().parents[2]


def _audited(path: Path, pipeline: str, options: dict):
    ctx = make_context()
    module = parse_module((ROOT / path).read_text(), str(path), ctx)
    verifier = ModuleVerifier()
    verifier.audit = True
    return ctx, module, verifier, get_pipeline(pipeline, **options).passes


def reported_points(path: str, pipeline: str, pass_name: str, **options) -> int:
    """Run ``pipeline`` on ``path`` audited; the number of times ``pass_name`` ran (it must
    state ``REPORTS_CHANGES``; an unreported change raises)."""
    ctx, module, verifier, passes = _audited(Path(path), pipeline, options)
    seen = 0
    for p in passes:
        if p.name == pass_name:
            assert reports_changes(p)
            seen += 1
        verifier.run_pass(p, ctx, module)
        verifier.check(module)
    return seen


def silenced_is_caught(monkeypatch, path: str, pipeline: str, pass_name: str,
                       **options) -> bool:
    """Run ``pipeline`` on ``path`` audited up to ``pass_name``, then that pass with its
    reports dropped (`ChangeLog`'s calls do nothing); whether the audit raised
    `UnreportedChange` after it."""
    ctx, module, verifier, passes = _audited(Path(path), pipeline, options)
    for p in passes:
        if p.name != pass_name:
            verifier.run_pass(p, ctx, module)
            verifier.check(module)
            continue
        with monkeypatch.context() as patch:
            for method in ("changed", "removed", "replaced"):
                patch.setattr(ChangeLog, method, lambda self, *args, **kwargs: None)
            verifier.run_pass(p, ctx, module)
        try:
            verifier.check(module)
        except UnreportedChange:
            return True
        return False
    raise AssertionError(f"{pass_name} is not in pipeline {pipeline}")


class ReportingPass:
    """A pass stating ``REPORTS_CHANGES``: ``edit(module, log)`` makes (and reports) its
    change."""

    name = "test-edit"
    REPORTS_CHANGES = True

    def __init__(self, edit):
        self.edit = edit

    def apply(self, ctx, module) -> None:
        self.edit(module, current_changes())


def compared_lowering(name: str, backend: str = "cuda", verifier: ModuleVerifier | None = None):
    """Example ``name`` (examples/trn, or examples/cuda/tile for ``cuda``) after the ``backend``
    pipeline, and the verifier (``verifier`` or a new one) that verified it after each pass
    with ``compare`` and the audit on (its memo full)."""
    folder = ROOT / "examples" / ("trn" if backend == "trn" else "cuda/tile")
    ctx = make_context()
    module = parse_module((folder / f"{name}.mlir").read_text(), name, ctx)
    verifier = verifier or ModuleVerifier()
    verifier.compare = verifier.audit = True
    get_pipeline(backend).apply(module, ctx, verifier=verifier)
    return module, verifier
