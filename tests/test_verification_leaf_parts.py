"""`ModuleVerifier._visit_new_leaf`: an op new to the memo is keyed in one pass over it
(`_leaf_parts`), with the same fingerprint and key as `_fingerprint` and `_local_key` build apart,
and a new op built wrongly, or a known op changed in place, is still caught after the pass with
the plain verifier's error (the memo full after a whole cuda pipeline)."""

from __future__ import annotations


import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dominance import DominanceError, check_dominance
from tirx_mlir.verification import ModuleVerifier, VerdictMismatch, _plan_of
from tirx_testing.reports import ReportingPass, compared_lowering

KERNELS = ["softmax_row", "gemm_sm80", "flash_attention_sm80", "gemm_sm90a"]


class ComparingVerifier(ModuleVerifier):
    """Before each verification, `_leaf_parts` of every op it may key is compared with
    `_fingerprint` and `_local_key` (the verifier's own serials: equal values, equal keys)."""

    compared = 0

    def check(self, module) -> None:
        from tirx_mlir.dialects.tirx.access import shared_views
        from tirx_mlir.target.target import Target

        current = Target.current()  # what `_verify` sets before keying
        self._current_target = None if current is None else self._serial(str(current))
        self._constant_class = arith.ConstantOp
        self._contexts, self._targets = {}, {}
        with shared_views():
            for op in module.walk():
                plan = _plan_of(op)
                if op.regions or op.successors or plan is None or \
                        plan.reads not in ("local", "kernel"):
                    continue
                for constant in (self._constant_class, None):  # arith loaded, or not
                    self._constant_class, kept = constant, self._constant_class
                    parts = self._leaf_parts(op, plan)
                    assert parts == (self._fingerprint(op, plan), self._local_key(op, plan)), op
                    self._constant_class = kept
                ComparingVerifier.compared += 1
        self._contexts, self._targets = {}, {}
        super().check(module)


def lowered(name: str, verifier: ModuleVerifier | None = None):
    return compared_lowering(name, verifier=verifier)


@pytest.mark.parametrize("name", KERNELS)
def test_leaf_parts_are_the_fingerprint_and_key_built_apart(name):
    verifier = ComparingVerifier()
    before = ComparingVerifier.compared
    lowered(name, verifier)
    assert ComparingVerifier.compared - before > 500  # every op of each verification


def test_new_ops_of_known_keys_run_no_check(monkeypatch):
    """Copies of ops the memo found valid, inserted by a pass, are keyed (`_visit_new_leaf`)
    and find their verdicts: no check runs."""
    module, verifier = lowered("gemm_sm80")
    keyed: list[str] = []
    checked: list[str] = []
    new_leaf, check = ModuleVerifier._visit_new_leaf, ModuleVerifier._check  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_visit_new_leaf", lambda self, op, plan: (
        keyed.append(op.name), new_leaf(self, op, plan))[1])
    monkeypatch.setattr(ModuleVerifier, "_check", lambda self, op, *a, **k: (
        checked.append(op.name), check(self, op, *a, **k))[1])

    def edit(module, log):
        for name in ("cuda.load", "ptx.mma_sync", "arith.addi"):
            op = first(module, name)
            op.parent.insert_op_before(op.clone(), op)
            log.changed(op, inside=False)  # names the block

    verifier.run_pass(ReportingPass(edit), None, module)
    verifier.check(module)
    assert sorted(keyed) == ["arith.addi", "cuda.load", "ptx.mma_sync"]
    assert checked == []


def first(module, name: str):
    return next(op for op in module.walk() if op.name == name)


def plain_error(module) -> str:
    with pytest.raises(VerifyException) as err:
        check_dominance(module)
        module.verify()
    return str(err.value)


def caught_after(module, verifier, edit) -> str:
    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)
    return str(err.value)


def test_a_new_load_at_a_bad_constant_index_is_caught():
    """The copy's key (without its constants) is known: the rules reading its constant index
    (`VERIFY_CONSTANT_RULES`) still run, and refuse a misaligned or out-of-bounds index."""
    module, verifier = lowered("gemm_sm80")

    def edit(module, log):
        load = next(op for op in module.walk() if op.name == "cuda.load" and
                    op.operands[1].owner.name == "arith.constant")
        bad = arith.ConstantOp(IntegerAttr(1 << 30, load.operands[1].type))
        copy = load.clone()
        load.parent.insert_op_before(bad, load)
        load.parent.insert_op_before(copy, load)
        copy.operands = [copy.operands[0], bad.result]
        log.changed(load, inside=False)

    caught_after(module, verifier, edit)


def test_a_new_op_of_a_known_key_ending_a_block_is_caught():
    module, verifier = lowered("softmax_row")

    def edit(module, log):
        kernel = first(module, "tirx.kernel")
        add = first(module, "arith.addi")
        kernel.body.block.add_op(add.clone())  # after the kernel's terminator
        log.changed(add, inside=False)

    assert "last operation" in caught_after(module, verifier, edit)  # the return's trait


def test_a_new_op_with_a_new_key_is_checked():
    module, verifier = lowered("softmax_row")

    def edit(module, log):
        add = first(module, "arith.addi")
        copy = add.clone()
        copy.result._type = IntegerType(7)  # noqa: SLF001 - not its operands' type
        add.parent.insert_op_before(copy, add)
        log.changed(add, inside=False)

    caught_after(module, verifier, edit)


def test_a_new_op_using_an_erased_value_is_caught():
    module, verifier = lowered("softmax_row")

    def edit(module, log):
        add = first(module, "arith.addi")
        doomed = arith.ConstantOp(IntegerAttr(1, IndexType()))
        add.parent.insert_op_before(doomed, add)
        user = arith.AddiOp(doomed.result, doomed.result)
        add.parent.insert_op_before(user, add)
        doomed.detach()
        doomed.erase(safe_erase=False)
        log.changed(add, inside=False)

    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(DominanceError) as err:  # the dominance check runs first, as plainly
        verifier.check(module)
    with pytest.raises(DominanceError) as plain:
        check_dominance(module)
    assert str(err.value) == str(plain.value)


@pytest.mark.parametrize("name", KERNELS)
def test_known_ops_changed_in_place_are_caught_on_each_kernel(name):
    """After the whole pipeline (the memo full): a cuda op's property replaced, an arith op's
    operand retyped and an operand redirected to a value of another type, each reported, are
    caught with the plain verifier's error."""
    module, verifier = lowered(name)

    def replace_property(module, log):
        store = first(module, "ptx.st")
        store.properties["space"] = StringAttr("no-such-space")
        log.changed(store)

    def retype_operand(module, log):
        value = next(o for op in module.walk() if op.name == "arith.addi"
                     for o in op.operands if isinstance(o.owner, arith.ConstantOp))
        value._type = IntegerType(7)  # noqa: SLF001 - its constant's value is not an i7
        log.changed(value.owner)

    def redirect(module, log):
        add = first(module, "arith.addi")
        other = arith.ConstantOp(IntegerAttr(1, IntegerType(5)))
        add.parent.insert_op_before(other, add)
        add.operands = [other.result, add.operands[1]]
        log.changed(add)

    for edit in (replace_property, retype_operand, redirect):
        module, verifier = lowered(name) if edit is not replace_property else (module, verifier)
        caught_after(module, verifier, edit)
