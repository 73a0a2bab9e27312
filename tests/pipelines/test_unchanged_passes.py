"""`Pipeline.apply` and the passes that leave the IR as it was (`pipelines._Unchanged`): a pass
that reports nothing is not verified after, a deterministic pass is not run again on the IR it
left as it was, and neither shortcut is taken after a pass without a report, while the module
holds a region of several blocks, before the run's first verification, or under the verifier's
audit."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest
from xdsl.dialects.builtin import UnitAttr
from xdsl.dialects.cf import Cf
from xdsl.passes import ModulePass

import tirx_mlir
from tirx_mlir.changes import current_changes, last_closed
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import Pipeline
from tirx_mlir.verification import AUDIT_ENV, ModuleVerifier

KERNEL = """tirx.kernel @k() -> () grid [1] threads [1] {
  %c = arith.constant 3 : index
  tirx.return
}"""
BRANCHES = """func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %x = arith.constant 1 : i32
  func.return %x : i32
^b:
  %y = arith.constant 2 : i32
  func.return %y : i32
}"""
RUNS: list[str] = []


@dataclass(frozen=True)
class Idle(ModulePass):
    """Reports, changes nothing; deterministic with an option."""

    name = "test-idle"
    REPORTS_CHANGES: ClassVar[bool] = True
    DETERMINISTIC: ClassVar[bool] = True
    tag: str = "a"

    def apply(self, ctx, op) -> None:
        RUNS.append(f"{self.name}:{self.tag}")


@dataclass(frozen=True)
class Quiet(Idle):
    """Reports, changes nothing; not stated deterministic."""

    name = "test-quiet"
    DETERMINISTIC: ClassVar[bool] = False


@dataclass(frozen=True)
class Silent(ModulePass):
    """Changes nothing but does not report (so it may have changed anything)."""

    name = "test-silent"

    def apply(self, ctx, op) -> None:
        RUNS.append(self.name)


@dataclass(frozen=True)
class Mark(ModulePass):
    """Sets a unit attribute on the first op of the module, and reports it."""

    name = "test-mark"
    REPORTS_CHANGES: ClassVar[bool] = True

    def apply(self, ctx, op) -> None:
        RUNS.append(self.name)
        first = op.body.block.first_op
        first.attributes[f"test.mark{len(RUNS)}"] = UnitAttr()
        current_changes().changed(first, inside=False)


class Counting(ModuleVerifier):
    def __init__(self, checked: list[int]) -> None:
        super().__init__()
        self.checked = checked

    def check(self, module) -> None:
        self.checked.append(len(RUNS))
        super().check(module)


def run(passes, text: str = KERNEL, ctx=None) -> tuple[list[str], list[int], list[str]]:
    """The passes run, the number of runs before each verification, the callback's passes."""
    RUNS.clear()
    checked: list[int] = []
    seen: list[str] = []
    ctx = ctx or make_context()
    Pipeline.from_passes(*passes).apply(parse_module(text, "t", ctx), ctx,
                                        callback=lambda p, m: seen.append(p.name),
                                        verifier=Counting(checked))
    return list(RUNS), checked, seen


@pytest.fixture(autouse=True)
def _no_audit(monkeypatch):
    monkeypatch.setenv(AUDIT_ENV, "0")  # the suite audits every verification (conftest)


def test_a_pass_that_reports_nothing_is_not_verified_after():
    runs, checked, seen = run([Mark(), Quiet(), Silent(), Quiet()])
    assert runs == ["test-mark", "test-quiet:a", "test-silent", "test-quiet:a"]
    assert checked == [1, 3]  # after the mark and after the pass without a report
    assert seen == ["test-mark", "test-quiet", "test-silent", "test-quiet"]


def test_a_deterministic_pass_is_not_run_again_on_the_ir_it_left():
    runs, checked, seen = run([Idle(), Quiet(), Idle(), Idle("b"), Idle()])
    assert runs == ["test-idle:a", "test-quiet:a", "test-idle:b"]
    assert seen == ["test-idle", "test-quiet", "test-idle", "test-idle", "test-idle"]
    assert checked == [1]  # the input, once: nothing verified it before


def test_a_change_or_a_pass_without_a_report_runs_it_again():
    assert run([Idle(), Mark(), Idle()])[0] == ["test-idle:a", "test-mark", "test-idle:a"]
    assert run([Idle(), Silent(), Idle()])[0] == ["test-idle:a", "test-silent", "test-idle:a"]


def test_nothing_is_skipped_where_a_region_has_several_blocks():
    ctx = make_context()
    ctx.load_dialect(Cf)
    runs, checked, _ = run([Idle(), Idle(), Quiet()], BRANCHES, ctx)
    assert runs == ["test-idle:a", "test-idle:a", "test-quiet:a"] and checked == [1, 2, 3]


def test_nothing_is_skipped_under_the_audit(monkeypatch):
    monkeypatch.setenv(AUDIT_ENV, "1")
    runs, checked, _ = run([Idle(), Quiet(), Idle()])
    assert runs == ["test-idle:a", "test-quiet:a", "test-idle:a"] and checked == [1, 2, 3]


def test_the_last_report_is_not_kept_after_the_run():
    run([Mark(), Idle()])
    assert last_closed() is None


def test_the_cuda_pipeline_skips_its_dce_runs_on_softmax_row(monkeypatch):
    """softmax_row: each dce follows a canonicalize and a cse (no dead op: `_Unchanged.
    dead_free`; tests/pipelines/test_dead_free.py), so none runs; the IR out is the IR of a
    pipeline that runs every pass (the verifier's audit makes it run all)."""
    from tirx_mlir.pipelines import get_pipeline
    from tirx_mlir.transforms.dce import FastDCEPass

    path = tirx_mlir.__path__[0] + "/../examples/cuda/tile/softmax_row.mlir"
    text = open(path).read()
    ran = []
    original = FastDCEPass.apply
    monkeypatch.setattr(FastDCEPass, "apply",
                        lambda self, ctx, op: (ran.append(1), original(self, ctx, op))[1])
    fast = get_pipeline("cuda").apply(parse_module(text, path))
    assert len(ran) == 0  # of three
    ran.clear()
    every = ModuleVerifier()
    every.audit = True
    full = get_pipeline("cuda").apply(parse_module(text, path), verifier=every)
    assert len(ran) == 3
    assert str(fast) == str(full)


WRONG_RETURN = """func.func @f() -> i32 {
  %x = arith.constant 1 : i64
  func.return %x : i64
}"""


@pytest.mark.parametrize("passes", [[Idle()], [Quiet(), Idle()]])
def test_invalid_input_is_caught_when_no_pass_changes_it(passes):
    """The input is not known to be valid: the first pass that reports nothing is verified."""
    with pytest.raises(Exception, match="function output types"):
        run(passes, WRONG_RETURN)
