"""`FastCanonicalizePass` gives the IR xDSL's `CanonicalizePass` gives: on every trn example
kernel and some cuda ones, at every point where their pipeline canonicalizes, the two run on copies of the same
module and must print the same text."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith, builtin, func
from xdsl.transforms.canonicalize import CanonicalizePass

from tirx_mlir.located_parser import make_context
from tirx_mlir.transforms.canonicalize import FastCanonicalizePass
from tirx_testing.same_as_xdsl import checked_points

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CUDA_KERNELS = ("bias_silu", "layernorm", "reduce_2d", "softmax", "gemm_sm90a")
"""A few of examples/cuda/tile (the attention and gemm_sm80 ones take ~10-20 s each here)."""
CASES = [("trn", p) for p in sorted((EXAMPLES / "trn").glob("*.mlir"))] + \
    [("cuda", EXAMPLES / "cuda" / "tile" / f"{k}.mlir") for k in CUDA_KERNELS]


@pytest.mark.parametrize("pipeline,path", CASES, ids=[f"{b}-{p.stem}" for b, p in CASES])
def test_same_ir_as_xdsl_canonicalize(pipeline, path):
    seen, _ = checked_points(path, pipeline, FastCanonicalizePass, CanonicalizePass)
    assert seen > 0


def test_the_comparison_sees_rewrites():
    """At least one trn example's cleanup folds or erases something."""
    _, changed = checked_points(EXAMPLES / "trn" / "matmul_512.mlir", "trn",
                                FastCanonicalizePass, CanonicalizePass)
    assert changed > 0


def test_folds_erases_and_keeps_effects():
    """Constants fold, a dead pure op goes, a terminator and a symbol stay."""
    i32 = builtin.i32
    c1, c2 = arith.ConstantOp.from_int_and_width(1, 32), arith.ConstantOp.from_int_and_width(2, 32)
    total = arith.AddiOp(c1, c2)
    dead = arith.MuliOp(c1, c2)
    body = [c1, c2, total, dead, func.ReturnOp(total)]
    module = builtin.ModuleOp([func.FuncOp.from_region("f", [], [i32],
                                                       builtin.Region(builtin.Block(body)))])
    theirs = module.clone()
    ctx = make_context()
    FastCanonicalizePass().apply(ctx, module)
    CanonicalizePass().apply(ctx, theirs)
    text = str(module)
    assert text == str(theirs)
    assert "arith.addi" not in text and "arith.muli" not in text
    assert "arith.constant 3 : i32" in text and "func.return" in text



LIVENESS = """
func.func @f(%m: memref<4xi32>, %n: index) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = arith.constant 1 : i32
  %b = arith.addi %a, %a : i32
  %e1 = arith.muli %b, %b : i32
  %e2 = arith.addi %e1, %a : i32
  %d1 = arith.muli %b, %a : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (i32) {
    %s = arith.addi %acc, %d1 : i32
    scf.yield %s : i32
  }
  scf.for %j = %c0 to %n step %c1 {
    %v = arith.subi %b, %a : i32
    memref.store %v, %m[%j] : memref<4xi32>
  }
  func.return %b : i32
}
"""
BLOCKS = """
func.func @g(%x: i32) -> i32 {
  %y = arith.muli %x, %x : i32
  cf.br ^bb2
^bb1:
  %u = arith.addi %x, %y : i32
  cf.br ^bb2
^bb2:
  func.return %x : i32
}
"""


def dce_both(text: str) -> str:
    """``text`` after `FastDCEPass`, checked equal to xDSL's ``dce``."""
    from xdsl.dialects.cf import Cf
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.transforms.dce import FastDCEPass

    ctx = make_context()
    if "cf" not in ctx.registered_dialect_names:
        ctx.load_dialect(Cf)
    ours, theirs = parse_module(text, "l.mlir", ctx), parse_module(text, "l.mlir", ctx)
    FastDCEPass().apply(ctx, ours)
    DeadCodeElimination().apply(ctx, theirs)
    assert str(ours) == str(theirs)
    return str(ours)


def test_region_dce_keeps_xdsls_live_set():
    """`region_dce`'s one-walk live set (`_live_ops`) is the fixpoint's: a dead chain goes, so
    does a loop whose results nobody uses, but what its body reads stays (its ``yield``, a
    terminator, is live while the liveness runs); a loop that stores and what it reads stay."""
    text = dce_both(LIVENESS)
    assert "%e1" not in text and "%e2" not in text and "iter_args" not in text
    assert "%d1" in text and "memref.store" in text and "arith.subi" in text


def test_region_dce_of_several_blocks_is_xdsls_fixpoint():
    """With a region of several blocks xDSL's fixpoint runs: an unreachable block's ops are
    never live, and neither is what only they read."""
    text = dce_both(BLOCKS)
    assert "%u" not in text and "%y" not in text and "func.return" in text


def test_shared_facts_kept_until_a_class_gains_a_trait():
    """`FactsByClass.shared` gives the same facts to the next pass while the classes keep their
    traits, and new ones once a class it answered for has gained one (here: ``Pure``, which
    makes its unused ops dead)."""
    from xdsl.irdl import IRDLOperation, irdl_op_definition, result_def
    from xdsl.traits import Pure

    from tirx_mlir.transforms.canonicalize import FactsByClass

    @irdl_op_definition
    class Probe(IRDLOperation):
        name = "test.facts_probe"
        out = result_def(builtin.i32)

    facts = FactsByClass.shared()
    assert not facts[Probe].may_be_dead
    assert FactsByClass.shared() is facts
    Probe.traits.add_trait(Pure())
    again = FactsByClass.shared()
    assert again is not facts and again[Probe].may_be_dead
    assert again.would_be_trivially_dead(Probe.create(result_types=[builtin.i32]))


def test_region_dce_with_every_op_live_changes_nothing():
    """When the one-walk live set holds every op, `region_dce` reports no change (and skips
    xDSL's deletion walk); with one dead op it still erases it and reports it."""
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.transforms.canonicalize import FactsByClass, region_dce

    ctx = make_context()
    live = parse_module(LIVENESS, "l.mlir", ctx)
    rounds = 0  # the unused loop goes, then what only its body read
    while region_dce(live.body, None, FactsByClass.shared()):
        rounds += 1
        assert rounds < 5
    before = str(live)
    assert rounds == 2 and "%d1" not in before and "memref.store" in before
    assert region_dce(live.body, None, FactsByClass.shared()) is False
    assert str(live) == before
    dead = parse_module(LIVENESS, "l.mlir", ctx)
    assert region_dce(dead.body, None, FactsByClass.shared()) is True
    assert "%e1" not in str(dead)


@pytest.mark.parametrize("example", ["gemm_sm80", "softmax"])
def test_class_effects_are_xdsls(example):
    """`FactsByClass` answers xDSL's ``get_effects`` and ``would_be_trivially_dead`` for every op
    of a cuda kernel through the pipeline's first cleanup, and knows them per class for the
    ``Pure`` arith ops (its effect traits' ``get_effects`` are ``NoMemoryEffect``'s): only the
    loops (``RecursiveMemoryEffect``) are asked per op."""
    from xdsl.dialects import scf
    from xdsl.traits import get_effects
    from xdsl.transforms.dead_code_elimination import would_be_trivially_dead

    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.pipelines import get_pipeline
    from tirx_mlir.transforms.canonicalize import FactsByClass

    path = Path(__file__).resolve().parents[2] / "examples" / "cuda" / "tile" / f"{example}.mlir"
    ctx = make_context()
    module = parse_module(path.read_text(), str(path), ctx)
    facts = FactsByClass()
    for p in get_pipeline("cuda", arch="sm_80").passes[:6]:
        p.apply(ctx, module)
        for op in module.walk():
            assert facts.effects(op) == get_effects(op), op.name
            assert facts.would_be_trivially_dead(op) == would_be_trivially_dead(op), op.name
    asked = {type(op) for op in module.walk() if facts[type(op)].dead_if_unused is None}
    assert asked <= {scf.ForOp, scf.IfOp}, asked
    assert facts[arith.AddiOp].dead_if_unused is True
    assert facts[arith.AddiOp].fixed_effects == frozenset()


def test_the_rewriter_tells_what_xdsls_tells_and_leaves_the_same_ir():
    """`_Rewriter` (erasures without an ``ErasedSSAValue`` per unused result, uses moved by
    `replace_uses`): a replacement and an erasure give the listener the same events, in the
    same order, and leave the same IR as xDSL's `PatternRewriter`."""
    from xdsl.ir import Block
    from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener

    from tirx_mlir.transforms.canonicalize import _Rewriter

    def run(rewriter_class):
        block = Block(arg_types=[builtin.i32])
        (x,) = block.args
        c = arith.ConstantOp.from_int_and_width(0, 32)
        add = arith.AddiOp(x, c)
        dead = arith.MuliOp(x, x)
        users = [arith.MuliOp(add, add), arith.SubiOp(add, x)]
        ret = func.ReturnOp(*(u.result for u in users))
        for op in (c, add, dead, *users, ret):
            block.add_op(op)
        add.result.name_hint = "sum"
        ops = list(block.ops)
        events: list = []

        def name(op):
            return ops.index(op) if op in ops else op.name

        listener = PatternRewriterListener(
            operation_insertion_handler=[lambda op: events.append(("insert", name(op)))],
            operation_modification_handler=[lambda op: events.append(("modify", name(op)))],
            operation_replacement_handler=[lambda op, new: events.append(("replace", name(op)))],
            operation_removal_handler=[lambda op: events.append(("remove", name(op)))])
        rewriter = rewriter_class(add)
        rewriter.extend_from_listener(listener)
        rewriter.replace(add, [], [x])  # x + 0 -> x
        rewriter.erase(dead)
        text = "\n".join(str(op) for op in block.ops)
        uses = [[(name(u.operation), u.index) for u in v.uses] for v in (x, c.result)]
        return events, text, uses, rewriter.has_done_action, x.name_hint

    ours, xdsl = run(_Rewriter), run(PatternRewriter)
    assert ours == xdsl
    assert ("modify", 4) in ours[0] and ours[0][-1] == ("remove", 2) and ours[4] == "sum"


def test_the_rewriters_insertion_point_is_xdsls_made_when_read():
    """`_Rewriter.point_before(op)` stands for ``insertion_point = InsertPoint.before(op)``: the
    point read is equal to it (also when ``op`` moved after the try began: the point is where
    it was), an op in no block is refused with xDSL's error, and a point set directly is kept."""
    from xdsl.ir import Block
    from xdsl.rewriter import InsertPoint

    from tirx_mlir.transforms.canonicalize import _Rewriter

    block, other = Block(), Block()
    a, b = arith.ConstantOp.from_int_and_width(1, 32), arith.ConstantOp.from_int_and_width(2, 32)
    block.add_ops([a, b])
    rewriter = _Rewriter(a)
    assert rewriter.insertion_point == InsertPoint.before(a)
    rewriter.point_before(b)
    expected = InsertPoint.before(b)
    b.detach()
    other.add_op(b)
    assert rewriter.insertion_point == expected and rewriter.insertion_point.block is block
    with pytest.raises(ValueError, match="must have a parent block"):
        InsertPoint.before(arith.ConstantOp.from_int_and_width(3, 32))
    with pytest.raises(ValueError, match="must have a parent block"):
        rewriter.point_before(arith.ConstantOp.from_int_and_width(3, 32))
    rewriter.insertion_point = InsertPoint.at_end(other)
    assert rewriter.insertion_point == InsertPoint.at_end(other)


NESTED_CONSTANTS = """
func.func @f(%n: index, %m: memref<64xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %c2 = arith.constant 2 : index
    %a = arith.muli %i, %c2 : index
    scf.for %j = %c0 to %n step %c1 {
      %c4 = arith.constant 4 : index
      %x = arith.addi %a, %j : index
      %c8 = arith.constant 8 : index
      %y = arith.muli %x, %c4 : index
      %z = arith.addi %y, %c8 : index
      memref.store %z, %m[%j] : memref<64xindex>
    }
    %c16 = arith.constant 16 : index
    memref.store %c16, %m[%i] : memref<64xindex>
  }
  func.return
}
"""
"""Constants in two nested loops (and after the inner loop): they leave the loops one loop a
sweep."""


def test_rehoisting_moves_the_constants_and_gives_xdsls_ir():
    """The rehoisted constants are the loop bodies' own ops, moved before the loop (not clones:
    the same objects end in the function's block), and the IR is xDSL's pass's, which clones."""
    from tirx_mlir.located_parser import parse_module

    ctx = make_context()
    ours = parse_module(NESTED_CONSTANTS, "n.mlir", ctx)
    theirs = parse_module(NESTED_CONSTANTS, "n.mlir", ctx)
    inner = [op for op in ours.walk() if op.name == "arith.constant"
             and op.parent_op().name == "scf.for"]
    assert len(inner) == 4
    FastCanonicalizePass().apply(ctx, ours)
    CanonicalizePass().apply(ctx, theirs)
    assert str(ours) == str(theirs)
    function = next(op for op in ours.walk() if op.name == "func.func")
    top = list(function.body.block.ops)
    assert all(op in top for op in inner)
    assert not any(op.name == "arith.constant" and op.parent_op().name == "scf.for"
                   for op in ours.walk())


def _rehoist_once(move: bool):
    """The outer loop of NESTED_CONSTANTS rehoisted by `_RehoistConstInLoops` under the
    canonicalize driver (the worklist populated, ops popped up to the loop), by moving the
    constants (``move``) or by xDSL's clone and replacement: the IR, the worklist's ops as
    positions in the module, the `Settled` marks as positions, and the change report."""
    from tirx_mlir.changes import ChangeLog
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.transforms import canonicalize as C
    from xdsl.folder import Folder

    ctx = make_context()
    module = parse_module(NESTED_CONSTANTS, "n.mlir", ctx)
    facts = C.FactsByClass.shared()
    settled = C.run_knowledge(facts)
    settled.after_dce(True)
    log = ChangeLog()
    walker = C._Walker(C._CanonicalizeOp(Folder(ctx), facts, settled), listener=log.listener())
    walker.settled = settled
    walker._worklist = C._ActiveWorklist(facts)
    walker._populate_worklist(module.body)
    loop = next(op for op in module.walk() if op.name == "scf.for")
    for op in module.walk():  # as if an earlier sweep had tried them all
        if op is not loop:
            settled.tried(op)
    while walker._worklist.pop() is not loop:
        pass
    old_block = loop.body.block
    users = [use.operation for op in old_block.ops if op.name == "arith.constant"
             for use in op.results[0].uses]  # %a (of %c2) and a store (of %c16)
    rewriter = C._Rewriter(loop)
    rewriter.extend_from_listener(walker._get_rewriter_listener())
    rewriter.walker = walker if move else None
    rewriter.point_before(loop)
    C._RehoistConstInLoops().match_and_rewrite(loop, rewriter)
    position = {id(op): i for i, op in enumerate(module.walk())}
    stack = [position.get(id(op), "gone") for op in walker._worklist._stack
             if op is not C._MISSING]
    clean = sorted(position[k] for k in settled.clean if k in position)
    reported = [position[id(op)] for op in log.ops + log.moved]
    return (str(module), stack, clean, rewriter.has_done_action,
            old_block in log.blocks, reported, [position[id(op)] for op in users],
            [position[id(op)] for op in log.moved], [position[id(op)] for op in log.users])


def test_a_rehoisting_move_leaves_the_worklist_as_xdsls_clone_does():
    """`_Rewriter.hoist_leaf`: the same IR, the same worklist (the moved op pushed on top, its
    users after it, its old slot empty) as the clone's insertion, the replacement and the
    erasure; the moved op's users stay settled where the clone's replacement unsettles them;
    the change report names the loop's body block and the moved ops."""
    moved, cloned = _rehoist_once(True), _rehoist_once(False)
    assert moved[0] == cloned[0] and "arith.constant 2" in moved[0]
    assert moved[1] == cloned[1] and "gone" not in moved[1]
    assert set(moved[2]) - set(cloned[2]) == set(moved[6]) and len(moved[6]) == 2
    assert set(cloned[2]) <= set(moved[2])
    assert moved[3] is cloned[3] is True
    assert moved[4] and cloned[4]
    assert moved[5] == cloned[5] and len(moved[5]) == 2  # c2 and c16, now before the loop
    assert moved[7] == moved[5] and cloned[7] == []  # reported as moves (`ChangeLog.moving`)
    assert moved[8] == [] and set(cloned[8]) == set(moved[6])  # their users not redirected
