"""`ModuleVerifier`'s verdicts are the plain verifiers' (`tirx_mlir.verification.COMPARE_ENV`).

Two things are checked: on every trn example and on CUDA examples covering each reporting pass,
the memoised verification after each pass of the pipeline decides as ``module.verify()`` and
the full dominance check do on the same IR (``compare``); and a pass that breaks an op it changed
(and reports it) in an IR the verifier has memoised through a whole pipeline is caught right
after that pass, with the plain verifier's error.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import (DenseArrayBase, IndexType, IntegerAttr, IntegerType, UnitAttr,
                                   i64)
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dominance import DominanceError, check_dominance
from tirx_mlir.pipelines import get_pipeline, preserves_ir
from tirx_mlir.verification import ModuleVerifier, VerdictMismatch
from tirx_testing.reports import ReportingPass, compared_lowering

ROOT = Path(__file__).resolve().parents[1]
TRN = sorted(p.stem for p in (ROOT / "examples" / "trn").glob("*.mlir"))
CUDA = ["softmax", "gemm_sm80", "gemm_sm90a", "reduce_2d"]


def lowered(backend: str, name: str):
    """The example ``name`` after the ``backend`` pipeline, and the verifier that verified it
    after each pass with ``compare`` and the audit on (its memo full)."""
    return compared_lowering(name, backend)


@pytest.mark.parametrize("name", TRN)
def test_verdicts_equal_the_plain_verifiers_on_each_trn_example(name, monkeypatch):
    plain: list = []
    original = ModuleVerifier._compare  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_compare",
                        lambda self, *args, **kw: (plain.append(1), original(self, *args, **kw))[1])
    lowered("trn", name)
    assert len(plain) == sum(not preserves_ir(p) for p in get_pipeline("trn").passes)


@pytest.mark.parametrize("name", CUDA)
def test_verdicts_equal_the_plain_verifiers_on_cuda_examples(name):
    lowered("cuda", name)


def plain_error(module, dominance: bool = True) -> str:
    with pytest.raises(VerifyException) as err:
        if dominance:
            check_dominance(module)
        module.verify()
    return str(err.value)


def caught_after(module, verifier, edit) -> str:
    """Run ``edit`` as a reporting pass, then `check`: the error, which must be the plain
    verifiers' (and ``compare`` raises `VerdictMismatch` when their verdicts differ)."""
    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)
    return str(err.value)


def other_int(t):
    """An integer type other than ``t``."""
    return IntegerType(64) if t != IntegerType(64) else IntegerType(32)


def first(module, name: str, nth: int = 0):
    return [op for op in module.walk() if op.name == name][nth]


def test_a_pass_breaking_a_psum_address_it_changed_is_caught():
    module, verifier = lowered("trn", "matmul_512")

    def edit(module, log):
        matmul = first(module, "nki.matmul")
        psum = matmul.operands[0].owner
        while psum.name != "tirx.alloc":
            psum = psum.operands[0].owner
        psum.attributes["trn.addr"] = IntegerAttr(1792, i64)  # past the PSUM bank
        log.changed(psum)

    assert "bank" in caught_after(module, verifier, edit)


def test_an_address_reported_as_an_attribute_change_is_caught_where_it_is_read():
    """``changed(alloc, inside=False)`` (trn-allocate's report): only the allocation's own
    attributes changed; the matmul reading its address through its views is reached."""
    module, verifier = lowered("trn", "matmul_512")

    def edit(module, log):
        matmul = first(module, "nki.matmul")
        psum = matmul.operands[0].owner
        while psum.name != "tirx.alloc":
            psum = psum.operands[0].owner
        psum.attributes["trn.addr"] = IntegerAttr(1792, i64)  # past the PSUM bank
        log.changed(psum, inside=False)

    assert "bank" in caught_after(module, verifier, edit)


def test_an_attribute_change_of_an_allocation_reaches_only_the_ops_reading_it(monkeypatch):
    """A new address for an SBUF buffer the matmul and the loads read (through views): of the
    ops using it, only the matmul (``VERIFY_ALLOC_ATTRS``) is looked at again, beside the
    allocation itself; the loads, the views and the copy read no allocation attribute."""
    module, verifier = lowered("trn", "matmul_512")
    verifier.audit = verifier.compare = False  # their full verifications look at every op
    looked: list[str] = []
    original = ModuleVerifier._fingerprint  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_fingerprint", lambda self, op, plan: (
        looked.append(op.name), original(self, op, plan))[1])

    def edit(module, log):
        matmul = first(module, "nki.matmul")
        sbuf = matmul.operands[1].owner
        while sbuf.name != "tirx.alloc":
            sbuf = sbuf.operands[0].owner
        assert len(list(sbuf.result.uses)) == 2  # a slice (the matmul) and a reshape (a load)
        sbuf.attributes["trn.addr"] = IntegerAttr(sbuf.attributes["trn.addr"].value.data, i64)
        log.changed(sbuf, inside=False)

    verifier.run_pass(ReportingPass(edit), None, module)
    verifier.check(module)
    # beside the ends of the blocks walked (whose checks read where they sit)
    assert sorted(set(looked)) == ["nki.matmul", "scf.yield", "tirx.alloc", "tirx.return"]
    assert looked.count("nki.matmul") == looked.count("tirx.alloc") == 1


def test_a_pass_moving_a_slice_out_of_bounds_is_caught():
    module, verifier = lowered("trn", "softmax_1000x1000")

    def edit(module, log):
        view = first(module, "tirx.slice")
        offsets = list(DenseArrayBase.get_values(view.static_offsets))
        offsets[-1] = 100_000
        view.properties["static_offsets"] = DenseArrayBase.from_list(IntegerType(64), offsets)
        log.changed(view)

    assert "out of bounds" in caught_after(module, verifier, edit)


def test_a_pass_moving_an_op_before_its_operand_is_caught():
    module, verifier = lowered("trn", "layernorm_affine_rows")

    def edit(module, log):
        user = next(op for op in module.walk() if op.name.startswith("nki.") and
                    any(o.owner.parent is op.parent and o.owner.name == "tirx.slice"
                        for o in op.operands))
        block = user.parent
        user.detach()
        block.insert_op_before(user, block.first_op)
        log.changed(user)

    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(DominanceError):
        verifier.check(module)


def test_a_new_op_in_the_middle_of_a_reported_block_is_caught():
    """A new op need not be named when its block is: one placed after a long run of ops the
    report does not reach (which the verification passes over) is still verified."""
    module, verifier = lowered("cuda", "softmax")

    def edit(module, log):
        kernel = first(module, "tirx.kernel")
        ops = list(kernel.body.block.ops)
        anchor = ops[len(ops) // 2]
        index = arith.ConstantOp(IntegerAttr(1, IndexType()))
        word = arith.ConstantOp(IntegerAttr(1, IntegerType(32)))
        bad = arith.AddiOp(index.result, word.result)  # operands of two types
        for new in (index, word, bad):
            anchor.parent.insert_op_before(new, anchor)
        log.changed(ops[0], inside=False)  # names the block only

    caught_after(module, verifier, edit)


def test_a_pass_retyping_a_result_it_changed_is_caught():
    module, verifier = lowered("cuda", "softmax")

    def edit(module, log):
        add = next(op for op in module.walk() if op.name == "arith.addi" and
                   any(True for _ in op.result.uses))
        add.result._type = other_int(add.result.type)  # noqa: SLF001 - not its operands' type
        log.changed(add)

    caught_after(module, verifier, edit)


def test_a_pass_redirecting_uses_to_a_value_of_another_type_is_caught():
    module, verifier = lowered("cuda", "softmax")

    def edit(module, log):
        old = next(op for op in module.walk() if op.name == "arith.constant" and
                   isinstance(op.result.type, (IndexType, IntegerType)) and
                   len(list(op.result.uses)) > 1)
        new = arith.ConstantOp(IntegerAttr(3, other_int(old.result.type)))
        old.parent.insert_op_before(new, old)
        log.removed(old)
        old.result.replace_all_uses_with(new.result)
        old.detach()
        old.erase()

    caught_after(module, verifier, edit)


def test_a_pass_giving_a_loop_a_wrong_yield_is_caught():
    """A loop's own check is memoised on what it reads (`verification.REGION_CHECK_READS`):
    after a pipeline of loops whose check passed, one whose ``scf.yield`` now yields a value
    it does not carry is caught."""
    module, verifier = lowered("cuda", "gemm_sm80")

    def edit(module, log):
        loop = next(op for op in module.walk() if op.name == "scf.for" and not op.results)
        value = next(op for op in loop.body.block.ops if op.results).results[0]
        loop.body.block.last_op.operands = [value]
        log.changed(loop.body.block.last_op)

    assert "expected 0 args" in caught_after(module, verifier, edit)


def test_compare_catches_a_verdict_the_memo_got_wrong():
    """An error a pass makes without reporting it is not seen by a verification from the
    report (that is what the audit is for); ``compare`` sees the plain verifier disagree."""
    module, verifier = lowered("trn", "matmul_512")
    verifier.audit = False

    def edit(module, log):
        matmul = first(module, "nki.matmul")
        psum = matmul.operands[0].owner
        while psum.name != "tirx.alloc":
            psum = psum.operands[0].owner
        psum.attributes["trn.addr"] = IntegerAttr(1792, i64)
        other = first(module, "tirx.return")
        other.attributes["test.mark"] = UnitAttr()
        log.changed(other, inside=False)  # reports another op

    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(VerdictMismatch, match="bank"):
        verifier.check(module)


def test_an_unreported_change_stays_the_audits_finding_when_verdicts_are_compared(monkeypatch):
    """With the comparison on, a pass that changes ops without reporting them still raises the
    audit's `UnreportedChange`, not a `VerdictMismatch` (the memo and the plain verifiers
    disagree there only because the report is missing)."""
    from tirx_mlir.verification import COMPARE_ENV
    from tirx_testing.reports import silenced_is_caught

    monkeypatch.setenv(COMPARE_ENV, "1")
    assert silenced_is_caught(monkeypatch, "examples/trn/layernorm_affine_rows.mlir", "trn",
                              "trn-default-layout")
