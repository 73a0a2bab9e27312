"""The Python pipeline API: named pipelines with options, pipelines from pass classes and
text, running with verification, callbacks and snapshots between passes."""

from __future__ import annotations

import io

import pytest
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

import tirx_mlir
from tirx_mlir.transforms.tile_dispatch import TileDispatchPass
from tirx_mlir.pipelines import (Pipeline, PipelineError, get_pipeline, list_pipelines,
                                 pipeline_options)

BUF = "!tirx.buffer<16x4xf32, global>"
KERNEL = (f"tirx.kernel @k(%X: {BUF}) -> (%Y: {BUF}) grid [1] threads [1] {{\n"
          f"  %c = arith.constant 3 : index\n"
          f"  tirx.copy %Y, %X : {BUF}, {BUF}\n  tirx.return\n}}")


@pytest.fixture(autouse=True)
def _backend(tirx_test):
    return tirx_test


def test_named_pipeline_with_options():
    assert "tirx_test" in list_pipelines() and "cleanup" in list_pipelines()
    assert list_pipelines()["tirx_test"] == "dispatch for the test backend, then dce"
    assert pipeline_options("tirx_test") == {"target": "test/small"}
    pipeline = get_pipeline("tirx_test", target="test/wide")
    assert pipeline.spec() == 'tirx-dispatch{target="test/wide"},dce'
    module = pipeline.apply(tirx_mlir.parse_module(KERNEL))
    assert "arith.constant" not in str(module)  # dce ran
    assert "variant = \"alpha\"" in str(module)


def test_unknown_pipeline_and_option_list_the_candidates():
    with pytest.raises(PipelineError, match="unknown pipeline 'nope'; candidates are: .*cleanup"):
        get_pipeline("nope")
    with pytest.raises(PipelineError, match="pipeline 'tirx_test' has no option 'targte'; its "
                                            "options are: target='test/small'"):
        get_pipeline("tirx_test", targte="x")


def test_pipeline_from_pass_classes_instances_and_text():
    pipeline = Pipeline.from_passes(TileDispatchPass(target="test/small"), "cse",
                                    (DeadCodeElimination, {}))
    assert pipeline.spec() == 'tirx-dispatch{target="test/small"},cse,dce'
    same = Pipeline.parse(pipeline.spec())
    assert same.spec() == pipeline.spec() and same.pass_names() == ["tirx-dispatch", "cse", "dce"]
    assert (same + Pipeline.parse("canonicalize")).pass_names()[-1] == "canonicalize"
    with pytest.raises(PipelineError, match="rejects options .*its options are: target"):
        Pipeline.from_passes((TileDispatchPass, {"targt": "x"}))
    with pytest.raises(PipelineError, match="bad pass pipeline"):
        Pipeline.parse("no-such-pass")
    with pytest.raises(PipelineError, match="malformed pass pipeline"):
        Pipeline.parse("tirx-dispatch{target=a/b}")


def test_inspecting_the_ir_between_passes():
    pipeline = Pipeline.parse('tirx-dispatch{target="test/small"},dce')
    seen = []
    trace = io.StringIO()
    pipeline.apply(tirx_mlir.parse_module(KERNEL),
                   callback=lambda p, m: seen.append((p.name, "tirx.copy" in str(m))),
                   print_between=trace)
    assert seen == [("tirx-dispatch", False), ("dce", False)]
    assert "// -----// IR after tirx-dispatch //----- //" in trace.getvalue()
    shots = pipeline.snapshots(tirx_mlir.parse_module(KERNEL))
    assert [name for name, _ in shots] == ["input", "tirx-dispatch", "dce"]
    assert "tirx.copy" in str(shots[0][1]) and "arith.constant" in str(shots[1][1])
    assert "arith.constant" not in str(shots[2][1])


def test_the_collector_is_paused_while_passes_run_then_as_it_was():
    """`collector_paused`: passes run with the cyclic collector off; after the run (or a failed
    one) it is on again, and one turned off by the caller stays off."""
    import gc

    pipeline = Pipeline.parse('tirx-dispatch{target="test/small"},dce')
    seen = []
    assert gc.isenabled()
    pipeline.apply(tirx_mlir.parse_module(KERNEL), callback=lambda p, m: seen.append(gc.isenabled()))
    assert seen == [False, False] and gc.isenabled()
    with pytest.raises(tirx_mlir.diagnostics.PassError):
        Pipeline.parse("dce,tirx-dispatch").apply(tirx_mlir.parse_module(KERNEL))
    assert gc.isenabled()
    gc.disable()
    try:
        pipeline.apply(tirx_mlir.parse_module(KERNEL))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_verifier_made_by_apply_is_freed_before_the_collector_resumes(monkeypatch):
    """A verifier `Pipeline.apply` makes is gone (freed by reference counting) by the time the
    collector is on again, so the collection after the pause does not scan its memos; a
    verifier the caller gives stays the caller's."""
    import gc
    import weakref

    import tirx_mlir.verification as verification

    made = []

    class Recorded(verification.ModuleVerifier):
        def __init__(self) -> None:
            super().__init__()
            made.append(weakref.ref(self))

    monkeypatch.setattr(verification, "ModuleVerifier", Recorded)
    alive_when_resumed = []
    real_enable = gc.enable

    def enable() -> None:
        alive_when_resumed.append([ref() is not None for ref in made])
        real_enable()

    monkeypatch.setattr(gc, "enable", enable)
    pipeline = Pipeline.parse('tirx-dispatch{target="test/small"},dce')
    pipeline.apply(tirx_mlir.parse_module(KERNEL))
    assert len(made) == 1 and alive_when_resumed == [[False]]
    given = Recorded()
    pipeline.apply(tirx_mlir.parse_module(KERNEL), verifier=given)
    assert alive_when_resumed[-1] == [False, True] and made[-1]() is given


def test_a_failing_pass_is_named_in_the_error():
    pipeline = Pipeline.parse("dce,tirx-dispatch")
    with pytest.raises(tirx_mlir.diagnostics.PassError) as err:
        pipeline.apply(tirx_mlir.parse_module(KERNEL))
    assert "has no target" in err.value.message
    assert any("in pass 'tirx-dispatch' (#2 of pipeline" in n for n in err.value.__notes__)


def test_on_error_sees_the_failing_pass_and_may_replace_the_error():
    pipeline = Pipeline.parse("dce,tirx-dispatch,dce")
    seen = []

    def report(p, err):
        seen.append((p.name, type(err).__name__))
        raise RuntimeError(f"reported: {p.name}")

    with pytest.raises(RuntimeError, match="reported: tirx-dispatch"):
        pipeline.apply(tirx_mlir.parse_module(KERNEL), on_error=report)
    assert seen == [("tirx-dispatch", "PassError")]
    with pytest.raises(tirx_mlir.diagnostics.PassError):  # returning re-raises the pass's error
        pipeline.apply(tirx_mlir.parse_module(KERNEL), on_error=lambda p, err: None)


def test_the_ir_is_verified_after_a_pass_unless_the_pass_only_reads_it():
    from dataclasses import dataclass
    from typing import ClassVar

    from xdsl.passes import ModulePass
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.pipelines import preserves_ir
    from tirx_mlir.transforms.check_bounds import CheckBoundsPass

    @dataclass(frozen=True)
    class Corrupt(ModulePass):  # breaks the IR: a kernel without its terminator
        name = "test-corrupt"

        def apply(self, ctx, op):
            op.body.block.first_op.body.block.last_op.detach()

    @dataclass(frozen=True)
    class CorruptClaimingToRead(Corrupt):
        name = "test-corrupt-reader"
        PRESERVES_IR: ClassVar[bool] = True

    assert preserves_ir(CheckBoundsPass()) and not preserves_ir(DeadCodeElimination())
    with pytest.raises(VerifyException):
        Pipeline.from_passes(Corrupt()).apply(tirx_mlir.parse_module(KERNEL))
    # not verified after a reader (whose claim is trusted), but after the next writer
    Pipeline.from_passes(CorruptClaimingToRead()).apply(tirx_mlir.parse_module(KERNEL))
    with pytest.raises(VerifyException):
        Pipeline.from_passes(CorruptClaimingToRead(), DeadCodeElimination()).apply(
            tirx_mlir.parse_module(KERNEL))


def test_a_pass_option_given_twice_is_refused_by_the_text_parser():
    with pytest.raises(PipelineError, match="option 'target' is given twice"):
        Pipeline.parse("tirx-dispatch{target=trn target=cuda}")
    assert len(Pipeline.parse("tirx-dispatch{target=trn},tirx-dispatch{target=trn}")) == 2


def test_a_factorys_signature_is_read_once(monkeypatch):
    """`PipelineEntry.options` and `takes_any_option` read the factory's signature once per
    factory; the options returned are the caller's copy."""
    import inspect

    from tirx_mlir.pipelines import PipelineEntry

    def factory(target="t/x", depth=2):
        return []

    calls = []
    real = inspect.signature
    monkeypatch.setattr(inspect, "signature", lambda f: (calls.append(f), real(f))[1])
    entry = PipelineEntry(factory)
    for _ in range(3):
        options = entry.options()
        assert options == {"target": "t/x", "depth": 2} and not entry.takes_any_option()
        options["target"] = "changed"
    assert calls == [factory]
    assert PipelineEntry(lambda **kw: []).takes_any_option()
