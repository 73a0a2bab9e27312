"""A user whose operands were only redirected keeps its key's serial (`ModuleVerifier._same_key`)
but is not accepted when what its check reads of its operands changed (a constant index's
value): the verdicts are the plain verifiers' (``compare``) and the audit finds the reports
whole (canonicalize's, whose users are redirected). The guard for any shortcut that skips more
of a redirected user (bench/README.md, "fourteenth round")."""

from __future__ import annotations


import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dominance import check_dominance
from tirx_mlir.verification import ModuleVerifier, VerdictMismatch
from tirx_testing.reports import compared_lowering as lowered
from tirx_testing.reports import ReportingPass, reported_points, silenced_is_caught


def replace_by(old, new) -> None:
    """Insert ``new`` before ``old`` and replace ``old`` by it, reported as a removal."""
    from tirx_mlir.changes import current_changes

    old.parent.insert_op_before(new, old)
    current_changes().removed(old)
    old.results[0].replace_all_uses_with(new.results[0])
    old.detach()
    old.erase()


def index_def_with_users(module):
    """An index op (not a constant) whose result is used by two ops or more, none a region
    op."""
    for op in module.walk():
        if op.name in ("arith.muli", "arith.addi", "arith.index_cast"):
            users = [use.operation for use in op.results[0].uses]
            if len(users) >= 2 and not any(u.regions for u in users):
                return op, users
    raise AssertionError("no index op with two users")


def test_users_redirected_to_an_equal_op_keep_their_key_serials(monkeypatch):
    """Replaced by an equal op (its clone): its users keep their keys' serials, and the
    comparison and the audit (both on) find the memo right."""
    module, verifier = lowered("softmax")
    old, users = index_def_with_users(module)
    kept: list = []
    same_key = ModuleVerifier._same_key  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_same_key", lambda self, op, *args: (
        (answer := same_key(self, op, *args)) and kept.append(op), answer)[1])
    verifier.run_pass(ReportingPass(lambda module, log: replace_by(old, old.clone())), None,
                      module)
    verifier.check(module)
    assert set(map(id, users)) <= set(map(id, kept))


def plain_error(module) -> str:
    with pytest.raises(VerifyException) as err:
        check_dominance(module)
        module.verify()
    return str(err.value)


@pytest.mark.parametrize("start", [False, True])
def test_a_load_redirected_to_a_constant_index_out_of_bounds_is_caught(start):
    """A load's index redirected to a constant past its buffer (its constant rules read the
    value): a user reached only as redirected must still have its operands' constants compared
    (`ModuleVerifier._same_key` through the fingerprint), so the load is checked again.
    ``start``: the index was a constant 0 already (a constant redirected to another one)."""
    module, verifier = lowered("gemm_sm80")
    load = next(op for op in module.walk() if op.name == "cuda.load" and
                op.operands[1].owner.name != "arith.constant")
    if start:
        zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
        load.parent.insert_op_before(zero, load)
        load.operands = [load.operands[0], zero.result]
        verifier.run_pass(ReportingPass(lambda module, log: log.changed(load)), None, module)
        verifier.check(module)
        index = zero
    else:
        index = load.operands[1].owner

    def edit(module, log):
        far = arith.ConstantOp(IntegerAttr(1 << 30, IndexType()))
        load.parent.insert_op_before(far, load)
        log.removed(index)
        index.results[0].replace_all_uses_with(far.result)
        index.detach()
        index.erase()

    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)
    assert "lies outside" in str(err.value)


def test_canonicalizes_reports_are_whole_and_needed(monkeypatch):
    example = "examples/cuda/tile/softmax.mlir"
    assert reported_points(example, "cuda", "canonicalize") >= 1
    assert silenced_is_caught(monkeypatch, example, "cuda", "canonicalize")
