"""tirx_mlir.transforms.arith_effects: arith.remui and arith.extsi state MLIR's NoMemoryEffect
once the passes are imported, so ``cse`` merges equal remainders and ``dce`` erases an unused
one (xDSL 0.74 declares no effects for them: both passes left them alone)."""

from __future__ import annotations

from xdsl.dialects import arith, builtin, func
from xdsl.traits import MemoryEffect, get_effects

from tirx_mlir.located_parser import make_context
from tirx_mlir.transforms.arith_effects import WITHOUT_EFFECTS, complete_arith_effects
from tirx_mlir.transforms.cse import FastCSEPass
from tirx_mlir.transforms.dce import FastDCEPass


def _function(body_ops, result_types) -> builtin.ModuleOp:
    f = func.FuncOp.from_region("f", [], list(result_types),
                                builtin.Region(builtin.Block(body_ops)))
    return builtin.ModuleOp([f])


def _ops(module):
    return list(module.body.block.ops.first.body.block.ops)


def test_the_classes_have_no_memory_effects():
    complete_arith_effects()  # idempotent: a second call adds nothing
    for op_class in WITHOUT_EFFECTS:
        assert len(op_class.get_traits_of_type(MemoryEffect)) == 1
    c = arith.ConstantOp.from_int_and_width(37, 32)
    assert get_effects(arith.RemUIOp(c, c)) == set()
    assert get_effects(arith.ExtSIOp(c, builtin.i64)) == set()


def test_cse_merges_equal_remainders_and_dce_erases_an_unused_one():
    x, m = (arith.ConstantOp.from_int_and_width(v, 32) for v in (37, 32))
    r1, r2, dead = arith.RemUIOp(x, m), arith.RemUIOp(x, m), arith.RemUIOp(m, x)
    module = _function([x, m, r1, r2, dead, func.ReturnOp(r1, r2)], [builtin.i32] * 2)
    FastCSEPass().apply(make_context(), module)
    ret = _ops(module)[-1]
    assert ret.operands[0] is ret.operands[1] is r1.result
    assert r2 not in _ops(module)
    FastDCEPass().apply(make_context(), module)
    assert dead not in _ops(module) and r1 in _ops(module)


def test_a_lazily_completed_class_gets_the_trait_when_completed():
    # the tools complete op classes on first use (lazy_op_definitions): loading the passes must
    # not complete arith.remui, and its first use must see the trait
    import subprocess
    import sys

    code = (
        "from tirx_mlir import lazy_op_definitions as L\n"
        "L.install()\n"
        "from xdsl.dialects import arith\n"
        "import tirx_mlir.transforms.cse\n"
        "assert L.is_pending(arith.RemUIOp), 'completed by the passes import'\n"
        "from xdsl.traits import get_effects\n"
        "c = arith.ConstantOp.from_int_and_width(3, 32)\n"
        "assert get_effects(arith.RemUIOp(c, c)) == set()\n"
        "print('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_the_bases_keep_their_traits():
    """arith.remui declares no traits, so it shares its OpTraits object with its bases; the
    effect must go on the class alone, else any op mixing in HasFolderInterface is pure."""
    from xdsl.interfaces import HasFolderInterface
    from xdsl.irdl import IRDLOperation, irdl_op_definition

    complete_arith_effects()
    assert not any(isinstance(t, MemoryEffect) for t in HasFolderInterface.traits)
    for op_class in WITHOUT_EFFECTS:
        assert op_class.get_irdl_definition().traits is op_class.traits

    @irdl_op_definition
    class FoldingOp(IRDLOperation, HasFolderInterface):
        name = "test.folding"

        def fold(self):
            return None

    assert get_effects(FoldingOp.create()) is None  # unknown, as before the passes' import
