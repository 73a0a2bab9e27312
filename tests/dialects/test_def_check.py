"""The compiled IRDL definition checks (tirx_mlir/dialects/def_check.py) give xDSL's verdicts
and messages: on every op of the examples, and on ops built to break each kind of rule (operand
and result counts and constraints, regions, properties, attributes, traits)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
    f32,
    i1,
    i32,
)
from xdsl.ir import Block, Region

from tirx_mlir.backends.cuda.dialects.cuda import LoadOp, StoreOp, SyncThreadsOp
from tirx_mlir.backends.cuda.dialects.ptx.ops import OPS_BY_ROW
from tirx_mlir.dialects.def_check import compile_def_check, install_def_check
from tirx_mlir.located_parser import make_context, parse_module

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "cuda").glob("*.mlir"))


def _verdict(fn, op) -> str | None:
    try:
        fn(op)
    except Exception as err:  # noqa: BLE001 - compared as text
        return f"{type(err).__name__}: {err}"
    return None


def _generic(op) -> str | None:
    return _verdict(type(op).get_irdl_definition().verify, op)


def _compiled(op) -> str | None:
    check = compile_def_check(type(op).get_irdl_definition())
    assert check is not None, f"{op.name}'s definition is not compiled"
    return _verdict(check, op)


def test_the_dialects_use_the_compiled_check():
    ctx = make_context()
    for name in ("arith.addi", "scf.yield"):  # loads the dialects through tirx_mlir's registry
        ctx.get_op(name)
    for cls in (arith.AddiOp, arith.ConstantOp, scf.YieldOp, StoreOp, LoadOp, SyncThreadsOp,
                OPS_BY_ROW["mma_sync"]):
        cls.get_irdl_definition()  # a class left lazy (tools' mode, another test) completes here
        assert getattr(cls.verify_, "__wrapped_def_check__", False), cls.name
    assert not install_def_check(arith.AddiOp)  # once only
    assert compile_def_check(memref.LoadOp.get_irdl_definition()) is None  # not covered


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_op_passes_both(path):
    module = parse_module(path.read_text())
    for op in module.walk():
        if compile_def_check(type(op).get_irdl_definition()) is None:
            continue
        assert _compiled(op) is None and _generic(op) is None, op.name


def _index_values(n: int):
    block = Block(arg_types=[IndexType()] * n + [i32, f32])
    return block, list(block.args)


def _broken_ops():
    block, (a, b, w, x) = _index_values(2)
    add = arith.AddiOp(a, b)
    yield "operand count", arith.AddiOp.create(operands=[a], result_types=[IndexType()])
    yield "operand types differ", arith.AddiOp.create(operands=[a, w],
                                                      result_types=[IndexType()])
    yield "float operand", arith.AddiOp.create(operands=[x, x], result_types=[f32])
    yield "result count", arith.AddiOp.create(operands=[a, b], result_types=[])
    yield "result type", arith.AddiOp.create(operands=[a, b], result_types=[i32])
    yield "a region", arith.AddiOp.create(operands=[a, b], result_types=[IndexType()],
                                          regions=[Region(Block())])
    yield "a successor", arith.AddiOp.create(operands=[a, b], result_types=[IndexType()],
                                             successors=[block])
    yield "missing property", arith.ConstantOp.create(result_types=[IndexType()])
    yield "unknown property", arith.AddiOp.create(
        operands=[a, b], result_types=[IndexType()],
        properties={**add.properties, "bogus": UnitAttr()})
    yield "property of the wrong kind", arith.ConstantOp.create(
        result_types=[IndexType()], properties={"value": StringAttr("1")})
    yield "constant type mismatch (trait/custom)", arith.ConstantOp.create(
        result_types=[i32], properties={"value": IntegerAttr(1, IndexType())})
    yield "cmpi result", arith.CmpiOp.create(
        operands=[a, b], result_types=[IndexType()],
        properties={"predicate": IntegerAttr(0, 64)})
    yield "a yield outside a loop (its parent trait checks only a parent it has)", \
        scf.YieldOp.create(operands=[a])
    yield "ptx op with an unknown modifier", OPS_BY_ROW["ld"].create(
        operands=[w], result_types=[f32], properties={"nonsense": StringAttr("x")})
    yield "cuda op with a result it has not", SyncThreadsOp.create(result_types=[i1])
    yield "cuda store missing an operand", StoreOp.create(operands=[a, b])


@pytest.mark.parametrize("what,op", list(_broken_ops()), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_broken_ops_get_xdsls_verdict_and_message(what, op):
    generic = _generic(op)
    assert _compiled(op) is not None or generic is None
    # the installed verify_ (compiled check, xDSL's on failure, then the op's own verifier)
    # reports what xDSL's generated verify_ reports
    assert _verdict(lambda o: o.verify_(), op) == _xdsl_verify_(op)
    if "trait" not in what and "ptx" not in what and "cuda" not in what:
        assert generic is not None, what  # each case breaks a rule of the definition


def _xdsl_verify_(op) -> str | None:
    """What xDSL's generated verify_ gives: OpDef.verify, then the class's own verifier."""
    def run(o):
        type(o).get_irdl_definition().verify(o)
        own = _own_verifier(type(o))
        if own is not None:
            own(o)
    return _verdict(run, op)


def _own_verifier(cls):
    """The class's own verifier: the function the installed verify_ calls after the check."""
    cells = dict(zip(cls.verify_.__code__.co_freevars,
                     (c.cell_contents for c in cls.verify_.__closure__)))
    return cells.get("own")


def test_a_module_verifies_as_before():
    text = (ROOT / "examples" / "cuda" / "gemm_mma_sync.mlir").read_text()
    module = parse_module(text)
    module.verify()
    assert isinstance(module, ModuleOp)


def test_isolated_from_above_gives_xdsls_verdict():
    """A kernel (IsolatedFromAbove) using a value defined outside it: the one-walk check fails
    as xDSL's trait does, with xDSL's message; a well-formed kernel passes both."""
    from xdsl.traits import IsolatedFromAbove

    from tirx_mlir.dialects.def_check import isolated_from_above

    text = ('%c = "test.op"() : () -> index\n'
            'tirx.kernel @k(%G: !tirx.buffer<64xi32, global>) grid [1] threads [32] '
            'target "cuda -arch=sm_80" {\n  %x = arith.addi %c, %c : index\n  tirx.return\n}\n')
    module = parse_module(text, ctx=make_context(allow_unregistered=True))
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    assert _verdict(isolated_from_above, kernel) == \
        _verdict(IsolatedFromAbove().verify, kernel) is not None
    good = parse_module(EXAMPLES[0].read_text())
    for op in good.walk():
        if op.has_trait(IsolatedFromAbove):
            assert _verdict(isolated_from_above, op) is None
            assert _verdict(IsolatedFromAbove().verify, op) is None


# --- operand segment sizes (the nki ops, the tile primitives with optional operands) ------------

TRN_EXAMPLES = sorted((ROOT / "examples" / "trn").glob("*.mlir"))
TRN_OPS = 'target "aws/trn1/trn1.2xlarge"'
PS = "!tirx.buffer<128x128xf32, trn.psum>"
SB = "!tirx.buffer<128x128xf32, trn.sbuf>"
MATMUL = f"""
tirx.kernel @mm() grid [1] threads [1] {TRN_OPS} {{
  %a = tirx.alloc : {SB}
  %b = tirx.alloc : {SB}
  %p = tirx.alloc : {PS}
  %t = arith.constant true
  nki.matmul %p, %a, %b accumulate_if %t : {PS}, {SB}, {SB}, i1
  tirx.return
}}
"""


def test_the_nki_ops_use_the_compiled_check():
    from tirx_mlir.backends.trn.dialects.nki import NKI_OPS

    for cls in NKI_OPS:
        definition = cls.get_irdl_definition()
        if compile_def_check(definition) is not None:
            assert getattr(cls.verify_, "__wrapped_def_check__", False), cls.name
    from tirx_mlir.backends.trn.dialects.nki.tensor_engine import MatmulOp

    assert compile_def_check(MatmulOp.get_irdl_definition()) is not None  # segment sizes


@pytest.mark.parametrize("path", TRN_EXAMPLES, ids=lambda p: p.stem)
def test_every_lowered_trn_op_passes_both(path):
    from tirx_mlir.pipelines import get_pipeline

    ctx = make_context()
    module = parse_module(path.read_text(), ctx=ctx)
    get_pipeline("trn").apply(module, ctx)
    for op in module.walk():
        if compile_def_check(type(op).get_irdl_definition()) is None:
            continue
        assert _compiled(op) is None and _generic(op) is None, op.name


def _matmul():
    module = parse_module(MATMUL)
    return next(op for op in module.walk() if op.name == "nki.matmul")


def _broken_segments():
    from xdsl.dialects.builtin import DenseArrayBase, i64

    def with_sizes(sizes, kind=i32, operands=None):
        op = _matmul()
        return type(op).create(operands=list(op.operands if operands is None else operands),
                               properties={"operandSegmentSizes":
                                           DenseArrayBase.from_list(kind, sizes)})
    op = _matmul()
    a, b, p, t = op.operands[1], op.operands[2], op.operands[0], op.operands[3]
    yield "segment sizes of i64", with_sizes([1, 1, 1, 1], i64)
    yield "too few segments", with_sizes([1, 1, 1])
    yield "sizes sum to more than the operands", with_sizes([1, 1, 1, 1], operands=[p, a, b])
    yield "a single operand given twice", with_sizes([2, 1, 0, 1], operands=[p, a, b, t])
    yield "a single operand left out", with_sizes([0, 1, 1, 1], operands=[a, b, t])
    yield "an optional operand given twice", with_sizes([1, 1, 1, 2], operands=[p, a, b, t, t])
    yield "a negative size", with_sizes([1, 1, 2, -1], operands=[p, a, b])
    yield "an operand of the wrong type in its segment", with_sizes([1, 1, 1, 1],
                                                                  operands=[p, a, b, a])
    yield "no segment sizes", type(op).create(operands=[p, a, b, t])


@pytest.mark.parametrize("what,op", list(_broken_segments()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_broken_segments_get_xdsls_verdict_and_message(what, op):
    assert _generic(op) is not None, what  # each case breaks a rule of the definition
    assert _compiled(op) is not None, what
    assert _verdict(lambda o: o.verify_(), op) == _xdsl_verify_(op)


def test_a_well_formed_segmented_op_passes_both():
    op = _matmul()
    assert _compiled(op) is None and _generic(op) is None


def test_segment_operands_read_what_xdsls_accessors_read():
    from tirx_mlir.dialects.def_check import SegmentOperand
    from tirx_mlir.pipelines import get_pipeline

    seen = 0
    for path in TRN_EXAMPLES:
        ctx = make_context()
        module = parse_module(path.read_text(), ctx=ctx)
        get_pipeline("trn").apply(module, ctx)
        for op in module.walk():
            for name, _ in type(op).get_irdl_definition().operands:
                accessor = type(op).__dict__.get(name)
                if isinstance(accessor, SegmentOperand):
                    ours, theirs = getattr(op, name), accessor.original.__get__(op, type(op))
                    assert ours == theirs or (ours is theirs is None), (path.stem, op.name, name)
                    seen += 1
    assert seen > 50


def test_segment_operands_of_a_malformed_op_answer_as_xdsl():
    from xdsl.dialects.builtin import DenseArrayBase

    op = _matmul()
    p, a, b, t = op.operands
    good = type(op).create(operands=[p, a, b], properties={
        "operandSegmentSizes": DenseArrayBase.from_list(i32, [1, 1, 1, 0])})
    assert good.accumulate_if is None and good.moving is b and good.dst is p
    missing = type(op).create(operands=[p, a, b, t])
    for name in ("dst", "accumulate_if"):
        with pytest.raises(KeyError):
            getattr(missing, name)  # xDSL's accessor: the property is looked up by name
    with pytest.raises(NotImplementedError):
        good.dst = a


# --- one variadic or optional definition among single ones ------------------------------------


def _one_variadic_op(optional: bool):
    """A test op ``a: index, xs: variadic (or optional) i32, b: f32``: the variadic between
    two single operands."""
    from xdsl.irdl import (IRDLOperation, irdl_op_definition, operand_def, opt_operand_def,
                           var_operand_def)

    class Mid(IRDLOperation):
        name = "test.mid_optional" if optional else "test.mid_variadic"
        a = operand_def(IndexType)
        xs = (opt_operand_def if optional else var_operand_def)(i32)
        b = operand_def(f32)

    return irdl_op_definition(Mid)


@pytest.mark.parametrize("optional", [False, True])
def test_one_variadic_among_single_operands_gets_xdsls_verdict(optional):
    """The compiled check of a definition with one variadic (or optional) operand among single
    ones accepts and rejects what xDSL's does: counts (too few; an optional given two) and the
    constraint of each operand before, inside and after the variadic span."""
    cls = _one_variadic_op(optional)
    assert compile_def_check(cls.get_irdl_definition()) is not None
    block = Block(arg_types=[IndexType(), i32, i32, f32, IndexType()])
    a, w, v, x, i = block.args
    lists = [[a, x], [a, w, x], [a, w, v, x], [a], [x], [a, x, x], [w, x], [a, w, a],
             [a, a, x], [a, w, v], [a, i, x], [a, w, i, x], []]
    for operands in lists:
        op = cls.create(operands=operands)
        assert (_compiled(op) is None) == (_generic(op) is None), [o.type for o in operands]
    # both kinds of verdict occur
    assert _generic(cls.create(operands=[a, w, x])) is None
    assert _generic(cls.create(operands=[a, x, x])) is not None


def test_a_tile_primitive_and_a_loop_use_the_compiled_check():
    """tirx.copy (its workspace a trailing variadic) and scf.for (its loop-carried values) are
    covered; a loop with a missing bound or bounds of two types is rejected as by xDSL."""
    from tirx_mlir.dialects.tirx.tile_ops import CopyOp

    assert compile_def_check(CopyOp.get_irdl_definition()) is not None
    assert compile_def_check(scf.ForOp.get_irdl_definition()) is not None
    block = Block(arg_types=[IndexType(), IndexType(), i32])
    a, b, w = block.args
    body = Region(Block([scf.YieldOp()], arg_types=[IndexType()]))
    for operands in ([a, b], [a, b, w], [a, w, b]):
        loop = scf.ForOp.create(operands=operands, regions=[body.clone()])
        assert _compiled(loop) is not None and _generic(loop) is not None
    good = scf.ForOp.create(operands=[a, b, a], regions=[body.clone()])
    assert _compiled(good) is None and _generic(good) is None
