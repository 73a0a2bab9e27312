"""`canonicalize_settled.Settled`: canonicalize skips only tries that would do nothing and only
region DCE walks that would find nothing, and still gives xDSL's IR."""

from __future__ import annotations

from xdsl.transforms.canonicalize import CanonicalizePass

from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.transforms import canonicalize as C
from tirx_mlir.transforms.canonicalize import FactsByClass, FastCanonicalizePass, run_knowledge
from tirx_mlir.transforms.canonicalize_settled import Settled

NESTED = """
func.func @f(%n: index, %m: memref<64xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = arith.addi %i, %n : index
    scf.for %j = %c0 to %n step %c1 {
      %x = arith.muli %a, %j : index
      scf.for %k = %c0 to %n step %c1 {
        %c4 = arith.constant 4 : index
        %c8 = arith.constant 8 : index
        %y = arith.addi %x, %c4 : index
        %z = arith.muli %y, %c8 : index
        %u = arith.addi %z, %c0 : index
        memref.store %u, %m[%k] : memref<64xindex>
      }
    }
  }
  func.return
}
"""
"""Three nested loops: their constants move out one loop per sweep (four sweeps)."""

INLINED = """
func.func @g(%n: index, %m: memref<64xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.constant true
  scf.for %i = %c0 to %n step %c1 {
    %s = arith.addi %i, %c1 : index
    scf.if %t {
      %c7 = arith.constant 7 : index
      %v = arith.muli %s, %c7 : index
      memref.store %v, %m[%i] : memref<64xindex>
    }
  }
  func.return
}
"""
"""An ``scf.if`` on a constant inlined into a loop body (ops moved without the listener)."""


def _both(text: str) -> str:
    ctx = make_context()
    ours, theirs = parse_module(text, "s.mlir", ctx), parse_module(text, "s.mlir", ctx)
    FastCanonicalizePass().apply(ctx, ours)
    CanonicalizePass().apply(ctx, theirs)
    assert str(ours) == str(theirs)
    return str(ours)


def test_nested_loops_need_sweeps_and_skipped_tries_change_nothing(monkeypatch):
    """The sweeps that confirm the fixpoint pop settled ops without trying them, and region DCE
    after a sweep of no deaths walks nothing; the IR is xDSL's."""
    tries, walks = [0], [0]
    match, live_ops = C._CanonicalizeOp.match_and_rewrite, C._live_ops

    def counted_match(self, op, rewriter):
        tries[0] += 1
        return match(self, op, rewriter)

    def counted_walk(region, facts):
        walks[0] += 1
        return live_ops(region, facts)

    monkeypatch.setattr(C._CanonicalizeOp, "match_and_rewrite", counted_match)
    monkeypatch.setattr(C, "_live_ops", counted_walk)
    text = _both(NESTED)
    assert "arith.constant 4" in text and text.index("arith.constant 4") < text.index("scf.for")
    with_settled = tries[0], walks[0]
    tries[0] = walks[0] = 0
    monkeypatch.setattr(C, "Settled", _Forgetful)
    assert _both(NESTED) == text
    without = tries[0], walks[0]
    assert with_settled[0] < without[0]  # tries skipped
    assert with_settled[1] == 1 < without[1]  # only the first DCE walked the module


class _Forgetful(Settled):
    """A `Settled` that never knows anything (every try made, every DCE walks)."""

    def tried(self, op) -> None:
        pass

    def nothing_dead(self, region) -> bool:
        return False


def test_an_untracked_action_forgets_everything():
    """Inlining an ``scf.if`` moves ops without telling the listener: what was settled is
    forgotten, and the loop the ops moved into is tried again (its new constant rehoisted, as
    xDSL does)."""
    text = _both(INLINED)
    assert "scf.if" not in text
    assert text.index("arith.constant 7") < text.index("scf.for")
    ctx = make_context()
    module = parse_module(INLINED, "s.mlir", ctx)
    settled = run_knowledge(FactsByClass.shared())
    loop = next(op for op in module.walk() if op.name == "scf.for")
    settled.tried(loop)
    settled.after_dce(True)
    assert settled.is_clean(loop)
    settled.forget()
    assert not settled.is_clean(loop) and not settled.nothing_dead(module.body)


def test_changes_unsettle_what_they_touch():
    """A removed op's operands' definers and ancestors, a replaced op's users, a new op's
    ancestors are tried again; an op of a class whose try reads more (``arith.cmpi``'s
    pattern) is never kept."""
    ctx = make_context()
    module = parse_module(NESTED, "s.mlir", ctx)
    ops = {op.results[0].name_hint: op for op in module.walk()
           if len(op.results) == 1 and op.results[0].name_hint}
    loops = [op for op in module.walk() if op.name == "scf.for"]
    settled = run_knowledge(FactsByClass.shared())
    for op in [*ops.values(), *loops]:
        settled.tried(op)
    assert all(settled.is_clean(op) for op in [*ops.values(), *loops])
    settled.removed(ops["u"])  # reads z and c0; inside the three loops
    assert not settled.is_clean(ops["z"]) and not settled.is_clean(ops["c0"])
    assert not any(settled.is_clean(loop) for loop in loops)
    assert settled.is_clean(ops["y"]) and settled.is_clean(ops["x"])
    settled.replaced(ops["x"], (ops["a"].results[0],))  # x's user y, the new value's a
    assert not settled.is_clean(ops["y"]) and not settled.is_clean(ops["a"])
    cmp = parse_module("func.func @h(%a: i32) -> i1 {\n  %b = arith.cmpi eq, %a, %a : i32\n"
                       "  func.return %b : i1\n}", "c.mlir", ctx)
    settled.tried(next(op for op in cmp.walk() if op.name == "arith.cmpi"))
    assert not any(op.name == "arith.cmpi" for op in settled.clean.values())


def test_nothing_dead_only_when_every_marked_op_reaches_a_live_one():
    """After a DCE every op is live; an op that loses its only user is found possibly dead (the
    DCE walks), an op that keeps a user reaching a store is not."""
    ctx = make_context()
    module = parse_module(NESTED, "s.mlir", ctx)
    ops = {op.results[0].name_hint: op for op in module.walk()
           if len(op.results) == 1 and op.results[0].name_hint}
    settled = run_knowledge(FactsByClass.shared())
    settled.after_dce(True)
    settled.modified(ops["y"])  # y -> z -> u -> store: live
    assert settled.nothing_dead(module.body)
    store = next(op for op in module.walk() if op.name == "memref.store")
    settled.removed(store)  # u loses its only user
    store.detach()
    store.erase()
    assert not settled.nothing_dead(module.body)


def test_a_region_of_several_blocks_forgets_what_was_settled():
    """Region DCE of a region with several blocks runs xDSL's deletions (a block erased whole,
    no listener told): nothing stays settled, and the next DCE walks."""
    from xdsl.dialects.cf import Cf

    from tirx_mlir.transforms.canonicalize import region_dce

    ctx = make_context()
    if "cf" not in ctx.registered_dialect_names:
        ctx.load_dialect(Cf)
    module = parse_module("""
func.func @g(%x: i32) -> i32 {
  %y = arith.muli %x, %x : i32
  cf.br ^bb2
^bb1:
  %u = arith.addi %x, %y : i32
  cf.br ^bb2
^bb2:
  func.return %x : i32
}""", "b.mlir", ctx)
    settled = run_knowledge(FactsByClass.shared())
    mul = next(op for op in module.walk() if op.name == "arith.muli")
    settled.tried(mul)
    assert settled.is_clean(mul)
    assert region_dce(module.body, None, FactsByClass.shared(), settled)
    assert not settled.clean and not settled.nothing_dead(module.body)


def test_a_moved_constant_unsettles_its_new_loops_not_its_users():
    """`Settled.moved` (canonicalize's rehoisting moves a constant): the op and the loops
    around its new place are tried again (their rehoisting reads their bodies' constants); its
    users, which read only its value, stay settled, and no liveness changed."""
    ctx = make_context()
    module = parse_module(NESTED, "s.mlir", ctx)
    ops = {op.results[0].name_hint: op for op in module.walk()
           if len(op.results) == 1 and op.results[0].name_hint}
    loop_i, loop_j, loop_k = (op for op in module.walk() if op.name == "scf.for")
    settled = run_knowledge(FactsByClass.shared())
    settled.after_dce(True)
    for op in [*ops.values(), loop_i, loop_j, loop_k]:
        settled.tried(op)
    c4 = ops["c4"]
    c4.detach()
    loop_j.body.block.insert_op_before(c4, loop_k)  # out of the k loop, into the j loop
    settled.moved(c4)
    assert not settled.is_clean(loop_j) and not settled.is_clean(loop_i)
    assert settled.is_clean(loop_k) and settled.is_clean(ops["y"]) and settled.is_clean(ops["x"])
    function = loop_i.parent_op()
    assert set(settled.marked) == {id(c4), id(loop_j), id(loop_i), id(function), id(module)}
    assert settled.nothing_dead(module.body)
