"""bench/verify_designs.py and verify_floor.py: every design verifies after the same passes, the
hybrids verify the ops the memo would key plainly (no key, no memo check) and still reject a bad
new op with the plain verifier's error, an unknown design is refused; verify_floor.py times its
parts on the IR after the pass it names."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntegerType
from xdsl.utils.exceptions import VerifyException

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import verify_designs  # noqa: E402

from tirx_mlir.dominance import check_dominance  # noqa: E402
from tirx_mlir.located_parser import make_context, parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline, preserves_ir  # noqa: E402
from tirx_mlir.verification import ModuleVerifier  # noqa: E402
from tirx_testing.reports import ReportingPass  # noqa: E402


@pytest.mark.parametrize("spec,backend", [("cuda:softmax_row", "cuda"),
                                          ("trn:softmax_128x512", "trn")])
def test_each_design_verifies_after_every_changing_pass(spec, backend):
    names, passes, verifies = verify_designs.measure(spec, list(verify_designs.DESIGNS), 0, 1,
                                                     check=True)
    pipeline = get_pipeline(backend)
    assert names == pipeline.pass_names()
    changing = {k for k, p in enumerate(pipeline.passes) if not preserves_ir(p)}
    for design in verify_designs.DESIGNS:
        assert set(passes[design]) == set(range(len(names)))
        assert set(verifies[design]) == changing
        assert verifies[design][names.index("tirx-dispatch")] > 0


def _lowered(design: str):
    ctx = make_context()
    text = verify_share_text("softmax_row")
    module = parse_module(text, "softmax_row", ctx)
    verifier = verify_designs.CLASSES[design]()
    get_pipeline("cuda").apply(module, ctx, verifier=verifier)
    return module, verifier


def verify_share_text(name: str) -> str:
    return verify_designs.verify_share.kernel_text("cuda", name)


@pytest.mark.parametrize("design", ["hybrid", "hybrid-fp"])
def test_the_hybrids_check_new_ops_plainly_and_catch_a_bad_one(monkeypatch, design):
    module, verifier = _lowered(design)
    keyed: list[str] = []
    check = ModuleVerifier._check  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_check", lambda self, op, *a, **k: (
        keyed.append(op.name), check(self, op, *a, **k))[1])
    add = next(op for op in module.walk() if op.name == "arith.addi")

    def edit(module, log):
        copy = add.clone()
        copy.result._type = IntegerType(7)  # noqa: SLF001 - not its operands' type
        add.parent.insert_op_before(copy, add)
        log.changed(add, inside=False)

    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    with pytest.raises(VerifyException) as plain:
        check_dominance(module)
        module.verify()
    assert str(err.value) == str(plain.value)
    assert keyed == []  # decided by `op.verify`, not by the memo's keyed check


def test_an_unknown_design_is_refused(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["verify_designs.py", "--designs", "memo,nope"])
    with pytest.raises(SystemExit):
        verify_designs.main()
    assert "'nope' is not one of memo, plain, hybrid, hybrid-fp" in capsys.readouterr().err


def test_the_floor_parts_are_timed_on_the_ir_after_the_pass():
    import verify_floor

    module = verify_floor.lowered("cuda:softmax_row", "tirx-dispatch")
    assert module.attributes.get("tirx.dispatched") is not None  # dispatched, not verified
    figures = verify_floor.parts(module, 1)
    assert figures["ops"] == len(list(module.walk())) and 0 < figures["leaf ops"] <= figures["ops"]
    assert all(figures[k] > 0 for k in ("fresh", "keys known", "all known", "leaf parts", "plain"))
    with pytest.raises(ValueError, match="'nope' is not a pass"):
        verify_floor.lowered("cuda:softmax_row", "nope")
