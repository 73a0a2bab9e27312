"""An op only moved (`ChangeLog.moving`): the verification after the pass checks the dominance of
its users' uses of it and its own place, not their keys (`ModuleVerifier._path_of`'s
``uses_moved``), and a move that breaks dominance or a kernel's isolation is still caught with
the plain verifiers' error and verdict (``compare`` and the audit on)."""

from __future__ import annotations


import pytest
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.changes import ChangeLog
from tirx_mlir.dominance import DominanceError, check_dominance
from tirx_mlir.verification import ModuleVerifier, VerdictMismatch
from tirx_testing.reports import compared_lowering as lowered
from tirx_testing.reports import ReportingPass, reported_points, silenced_is_caught


def move(op, before) -> ReportingPass:
    """A pass moving ``op`` before op ``before`` (or to the end of block ``before``), reported
    as a move."""
    def edit(module, log: ChangeLog) -> None:
        log.moving(op)
        log.removed(op)
        op.detach()
        if hasattr(before, "ops"):
            before.add_op(op)
        else:
            before.parent.insert_op_before(op, before)
        log.changed(op)

    return ReportingPass(edit)


def plain_error(module) -> str:
    with pytest.raises((VerifyException, DominanceError)) as err:
        check_dominance(module)
        module.verify()
    return str(err.value)


def constant_with_leaf_user(module):
    """An ``arith.constant`` and a user in its own block that is neither a region op nor its
    block's last op."""
    for op in module.walk():
        if op.name != "arith.constant":
            continue
        for use in op.results[0].uses:
            user = use.operation
            if user.parent is op.parent and not user.regions and user.next_op is not None:
                return op, user
    raise AssertionError("no constant with a leaf user in its block")


def test_a_moved_constants_users_are_not_keyed_again(monkeypatch):
    """Moved within its block, before its first op: neither the constant nor its users have
    their fingerprints built again (the memo keeps their entries), and the comparison and the
    audit (both on) find the memo right."""
    module, verifier = lowered("softmax")
    const, user = constant_with_leaf_user(module)
    users = {id(use.operation) for use in const.results[0].uses}
    built: list = []
    fingerprint = ModuleVerifier._fingerprint  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_fingerprint", lambda self, op, plan: (
        built.append(op), fingerprint(self, op, plan))[1])
    verifier.run_pass(move(const, const.parent.first_op), None, module)
    verifier._audit = lambda module: None  # noqa: SLF001 - count the verification alone
    verifier.check(module)
    assert const.parent.first_op is const
    assert not [op for op in built if id(op) in users or op is const]


def test_a_move_after_its_user_is_caught():
    """A constant moved after a user in its block: the dominance error the plain check gives
    (the user is visited for its dominance)."""
    module, verifier = lowered("softmax")
    verifier.audit = False  # the verdict alone, compared with the plain one
    const, user = constant_with_leaf_user(module)
    verifier.run_pass(move(const, user.next_op), None, module)
    with pytest.raises(DominanceError) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)


def test_a_move_into_a_loop_after_its_users_outside_is_caught():
    """A constant moved into a loop's body while users outside the loop read it."""
    module, verifier = lowered("gemm_sm80")
    verifier.audit = False  # the verdict alone, compared with the plain one
    loop = next(op for op in module.walk() if op.name == "scf.for")
    const = next(op for op in loop.parent.ops if op.name == "arith.constant" and
                 any(not use.operation.regions and use.operation.parent is loop.parent
                     for use in op.results[0].uses))
    verifier.run_pass(move(const, loop.body.block.first_op), None, module)
    with pytest.raises(DominanceError) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)


def test_a_move_out_of_an_isolated_kernel_is_caught():
    """A constant moved from a kernel's body to the module's, before the kernel: its users
    dominate as before (the module is a graph region), but the kernel is no longer isolated
    from above; the values its users read are taken into its free values (`_free_after_report`)."""
    module, verifier = lowered("softmax")
    verifier.audit = False  # the verdict alone, compared with the plain one
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    const, _ = constant_with_leaf_user(kernel)
    verifier.run_pass(move(const, kernel), None, module)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)


def test_a_move_that_changes_the_op_unreported_is_caught_by_the_audit():
    """A pass stating a move but also changing the op (a constant's value): the audit finds the
    change the report let the verification skip."""
    from xdsl.dialects.builtin import IntegerAttr

    from tirx_mlir.verification import UnreportedChange

    module, verifier = lowered("softmax")
    const, _ = constant_with_leaf_user(module)
    moved = move(const, const.parent.first_op)

    def edit(module, log):
        moved.edit(module, log)
        value = const.properties["value"]
        const.properties["value"] = IntegerAttr(value.value.data + 1, value.type)

    verifier.compare = False
    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(UnreportedChange):
        verifier.check(module)


@pytest.mark.parametrize("name", ["cuda-hoist-invariants", "canonicalize"])
def test_the_passes_reporting_moves_report_whole_and_are_needed(monkeypatch, name):
    example = "examples/cuda/tile/gemm_sm80.mlir"
    assert reported_points(example, "cuda", name) >= 1
    assert silenced_is_caught(monkeypatch, example, "cuda", name)


def test_the_pipelines_report_moves(monkeypatch):
    """canonicalize's hoisted constants and cuda-hoist-invariants' moved ops are reported as
    moves on flash_attention_sm80 (the users they spare are most of canonicalize's)."""
    moved: dict[str, int] = {}
    run_pass = ModuleVerifier.run_pass

    def counting(self, p, ctx, module):
        run_pass(self, p, ctx, module)
        if self._pending is not None:  # noqa: SLF001
            moved[p.name] = moved.get(p.name, 0) + len(self._pending.moved)  # noqa: SLF001

    monkeypatch.setattr(ModuleVerifier, "run_pass", counting)
    lowered("flash_attention_sm80")
    assert moved["canonicalize"] > 100
    assert moved["cuda-hoist-invariants"] > 10


@pytest.mark.parametrize("in_loop", [False, True])
def test_a_new_op_reading_a_value_from_outside_the_kernel_is_caught(in_loop):
    """A pass adds, in the kernel's body (or in a loop of it), an op reading a constant it puts
    in the module's body: the kernel is no longer isolated from above (the free values of the
    region ops around the new op are what `_dominated` recorded of its operands)."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType, IntegerAttr

    module, verifier = lowered("gemm_sm80" if in_loop else "softmax")
    verifier.audit = False  # the verdict alone, compared with the plain one
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    loop = next((op for op in kernel.walk() if op.name == "scf.for"), None)
    block = loop.body.block if in_loop else kernel.regions[0].blocks[0]

    def edit(module, log):
        outside = arith.ConstantOp(IntegerAttr(3, IndexType()))
        kernel.parent.insert_op_before(outside, kernel)
        log.changed(outside)
        inside = arith.AddiOp(outside.result, outside.result)
        block.insert_op_before(inside, block.first_op)
        log.changed(inside)

    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)


def rebuild(loop, first: bool = False) -> ReportingPass:
    """A pass rebuilding scf.for ``loop`` around its body (a new loop of the same bounds holding
    the old region), reported as `ChangeLog.rebuilt`; ``first``: the new loop put first in the
    block instead of where the old one was."""
    from xdsl.dialects import scf

    def edit(module, log: ChangeLog) -> None:
        log.removed(loop)
        block = loop.parent
        bounds = [loop.lb, loop.ub, loop.step]
        if first:  # its bounds (constants) first too: only its body's reads come too early
            bounds = [v.owner.clone() for v in bounds]
            for const in reversed(bounds):
                block.insert_op_before(const, block.first_op)
            bounds = [const.result for const in bounds]
        new = scf.ForOp(*bounds, list(loop.iter_args), loop.detach_region(loop.body))
        block.insert_op_before(new, bounds[-1].owner.next_op if first else loop)
        log.rebuilt(new, loop)
        for old, res in zip(loop.results, new.results):
            old.replace_all_uses_with(res)
        loop.detach()
        loop.erase()

    return ReportingPass(edit)


def outer_loop(module):
    """An scf.for of constant bounds and no loop-carried value, whose body reads values defined
    before it in its block only in ops without regions that do not end their block."""
    for loop in module.walk():
        if loop.name != "scf.for" or loop.iter_args or \
                any(v.owner.name != "arith.constant" for v in loop.operands):
            continue
        defined = {id(r) for op in loop.parent.ops if op is not loop for r in op.results}
        readers = [op for op in loop.body.walk() if any(id(v) in defined for v in op.operands)]
        if readers and all(not op.regions and op.next_op is not None for op in readers):
            return loop
    raise AssertionError("no loop whose body reads values from its block in leaf ops")


def test_a_loop_rebuilt_around_its_body_is_not_keyed_again(monkeypatch):
    """The ops of the old body keep their entries (no fingerprint built but the terminators'),
    and the comparison and the audit (both on) find the memo right."""
    module, verifier = lowered("gemm_sm80")
    loop = outer_loop(module)
    inside = {id(op) for op in loop.body.walk() if not op.regions and op.next_op is not None}
    built: list = []
    fingerprint = ModuleVerifier._fingerprint  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_fingerprint", lambda self, op, plan: (
        built.append(op), fingerprint(self, op, plan))[1])
    verifier.run_pass(rebuild(loop), None, module)
    verifier._audit = lambda module: None  # noqa: SLF001 - count the verification alone
    verifier.check(module)
    assert inside and not [op for op in built if id(op) in inside]


def test_a_loop_rebuilt_before_what_its_body_reads_is_caught():
    """The rebuilt loop put first in its block (after copies of its constant bounds), before
    the definition of a value its body reads: the dominance error the plain check gives (the
    ops of the body are checked for their dominance)."""
    module, verifier = lowered("gemm_sm80")
    verifier.audit = False  # the verdict alone, compared with the plain one
    verifier.run_pass(rebuild(outer_loop(module), first=True), None, module)
    with pytest.raises(DominanceError) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)


def test_a_change_in_a_rebuilt_loop_not_reported_is_caught_by_the_audit():
    """A rebuilt loop whose body the pass also changed unreported (an op's two operands
    swapped)."""
    from tirx_mlir.verification import UnreportedChange

    module, verifier = lowered("gemm_sm80")
    loop = outer_loop(module)
    op = next(op for op in loop.body.walk() if op.name == "arith.addi" and
              op.operands[0] is not op.operands[1])
    rebuilt = rebuild(loop)

    def edit(module, log):
        rebuilt.edit(module, log)
        op.operands = [op.operands[1], op.operands[0]]

    verifier.compare = False
    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(UnreportedChange):
        verifier.check(module)


def test_only_a_rebuild_of_the_same_class_in_the_same_block_is_recorded():
    module, _ = lowered("gemm_sm80")
    loop = outer_loop(module)
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    log = ChangeLog()
    log.rebuilt(kernel, loop)  # another class
    inner = next(op for op in loop.body.walk() if op.name == "scf.for" and op is not loop)
    log.rebuilt(inner, loop)  # another block
    assert log.rebuilds == []
    log.rebuilt(loop, loop)
    assert log.rebuilds == [loop]
