"""`Pipeline.apply` skips a pass that only erases dead ops (``dce``) where the IR holds none
(`pipelines._Unchanged.dead_free`): after a pass that leaves none (``canonicalize``), through
passes that make none (``cse``) or change nothing, and not after any other change or under the
verifier's audit. On every cuda and trn example the skipped ``dce`` would have changed nothing
and the IR out is that of running every pass."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from xdsl.passes import ModulePass

import tirx_mlir
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import Pipeline, get_pipeline
from tirx_mlir.transforms.canonicalize import FastCanonicalizePass
from tirx_mlir.transforms.cse import FastCSEPass
from tirx_mlir.transforms.dce import FastDCEPass
from tirx_mlir.verification import AUDIT_ENV, ModuleVerifier

from tests.pipelines.test_unchanged_passes import KERNEL, RUNS, Mark, Quiet, Silent

ROOT = Path(tirx_mlir.__path__[0]).parent
CUDA = sorted((ROOT / "examples" / "cuda" / "tile").glob("*.mlir"))
TRN = sorted((ROOT / "examples" / "trn").glob("*.mlir"))


@dataclass(frozen=True)
class Leaves(Quiet):
    """Changes nothing, states it leaves no dead op."""

    name = "test-leaves"
    LEAVES_NO_DEAD_OPS: ClassVar[bool] = True


@dataclass(frozen=True)
class Keeps(Mark):
    """Changes the IR (a mark), states it makes no dead op."""

    name = "test-keeps"
    KEEPS_NO_DEAD_OPS: ClassVar[bool] = True


@dataclass(frozen=True)
class Sweep(Quiet):
    """Stands for dce: only erases dead ops."""

    name = "test-sweep"
    ONLY_ERASES_DEAD_OPS: ClassVar[bool] = True


def run(passes: list[ModulePass]) -> list[str]:
    RUNS.clear()
    ctx = make_context()
    Pipeline.from_passes(*passes).apply(parse_module(KERNEL, "t", ctx), ctx)
    return [r.split(":")[0] for r in RUNS]


@pytest.fixture(autouse=True)
def _no_audit(monkeypatch):
    monkeypatch.setenv(AUDIT_ENV, "0")  # the suite audits every verification (conftest)


def test_dce_is_skipped_after_a_pass_that_leaves_no_dead_op():
    assert run([Leaves(), Sweep()]) == ["test-leaves"]
    assert run([Leaves(), Keeps(), Quiet(), Sweep()]) == ["test-leaves", "test-keeps",
                                                          "test-quiet"]


def test_dce_runs_after_any_other_change():
    assert run([Sweep()]) == ["test-sweep"]
    assert run([Leaves(), Mark(), Sweep()]) == ["test-leaves", "test-mark", "test-sweep"]
    assert run([Leaves(), Silent(), Sweep()]) == ["test-leaves", "test-silent", "test-sweep"]
    assert run([Keeps(), Sweep()]) == ["test-keeps", "test-sweep"]


def test_dce_runs_under_the_audit(monkeypatch):
    monkeypatch.setenv(AUDIT_ENV, "1")
    assert run([Leaves(), Sweep()]) == ["test-leaves", "test-sweep"]


def test_the_cleanup_passes_state_it():
    assert FastCanonicalizePass.LEAVES_NO_DEAD_OPS and FastCSEPass.KEEPS_NO_DEAD_OPS
    assert FastDCEPass.ONLY_ERASES_DEAD_OPS


def _pipeline(path: Path):
    text = path.read_text()
    if path.parent.name == "trn":
        return text, get_pipeline("trn")
    return text, get_pipeline("cuda")


@pytest.mark.parametrize("path", CUDA + TRN, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_skipped_dce_would_change_nothing(monkeypatch, path):
    """Every pass run (the audit): each dce after which `dead_free` held finds nothing, and the
    IR out equals the IR of the pipeline that skips it."""
    text, pipe = _pipeline(path)
    if not any(isinstance(p, FastDCEPass) for p in pipe.passes):
        pytest.skip("no dce in this pipeline")
    changed: list[bool] = []
    original = FastDCEPass.apply

    def watched(self, ctx, op):
        before = str(op)
        original(self, ctx, op)
        changed.append(str(op) != before)

    monkeypatch.setattr(FastDCEPass, "apply", watched)
    every = ModuleVerifier()
    every.audit = True
    full = pipe.apply(parse_module(text, str(path)), verifier=every)
    assert changed and not any(changed)
    changed.clear()
    fast = pipe.apply(parse_module(text, str(path)))
    assert not changed  # each dce of these pipelines follows a canonicalize and a cse: skipped
    assert str(fast) == str(full)
