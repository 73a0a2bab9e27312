"""`op_build.build_op` makes the op xDSL's `irdl_op_init` makes: every op of a dispatched trn
and cuda kernel that `build_op` can build directly is rebuilt through xDSL's builder from the same
operand groups, properties and result types, and the two agree on operands, result types and
properties (key order included: it is the printed order)."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.irdl import IRDLOperation

from tirx_mlir.dialects.tirx import op_build
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _groups(op: IRDLOperation, kinds: tuple[str, ...]) -> list:
    """The operand groups of ``op``, as its builder takes them."""
    sizes = op.properties.get("operandSegmentSizes")
    counts = list(sizes.get_values()) if sizes is not None else [1] * len(kinds)
    groups, pos = [], 0
    for kind, size in zip(kinds, counts):
        values = list(op.operands[pos:pos + size])
        groups.append(values[0] if kind == "single" else values)
        pos += size
    return groups


@pytest.mark.parametrize("pipeline,path,views", [
    ("trn", EXAMPLES / "trn" / "softmax_128x512.mlir", False),
    ("trn", EXAMPLES / "trn" / "matmul_512.mlir", True),
    ("cuda", EXAMPLES / "cuda" / "tile" / "softmax.mlir", False)])
def test_direct_build_equals_xdsl_builder(pipeline, path, views):
    ctx = make_context()
    module = parse_module(path.read_text(), str(path), ctx)
    for p in get_pipeline(pipeline).passes:  # up to dispatch, which builds ops and views
        p.apply(ctx, module)
        if p.name == "tirx-dispatch":
            break
    built = set()
    for op in module.walk():
        plan = op_build._plan(type(op)) if isinstance(op, IRDLOperation) else None
        if plan is None:
            continue
        properties = {k: v for k, v in op.properties.items() if k != "operandSegmentSizes"}
        result_types = [r.type for r in op.results]
        groups = _groups(op, plan[0])
        ours = type(op).__new__(type(op))
        op_build.build_op(ours, groups, properties, result_types)
        theirs = type(op).__new__(type(op))
        IRDLOperation.__init__(theirs, operands=groups, properties=properties,
                               result_types=result_types)
        for a, b in ((ours, theirs), (op, theirs)):
            assert list(a.operands) == list(b.operands), op.name
            assert [r.type for r in a.results] == [r.type for r in b.results], op.name
            assert list(a.properties.items()) == list(b.properties.items()), op.name
        built.add(op.name)
    assert len(built) > 2, built
    assert not views or built & {"tirx.slice", "tirx.reshape", "tirx.transpose"}, built


def test_what_it_leaves_to_xdsl():
    """Ops with regions and anything not given as SSA values go to xDSL's builder, which
    reports a bad argument as before."""
    from tirx_mlir.dialects.tirx import tile_ops as T
    from tirx_mlir.dialects.tirx.kernel import KernelOp

    assert op_build._plan(KernelOp) is None
    assert op_build._plan(SliceOp) is not None
    with pytest.raises(Exception):
        T.CopyOp("not a value", "nor this")


def _same_op(fast, slow) -> None:
    assert type(fast) is type(slow)
    assert list(fast.operands) == list(slow.operands)
    assert [r.type for r in fast.results] == [r.type for r in slow.results]
    assert list(fast.properties.items()) == list(slow.properties.items())
    assert fast.attributes == slow.attributes


def test_arith_builders_equal_xdsl_constructors():
    """Every integer binary op of arith (with and without an overflow flag), constants of index
    and of i32/i64, and index casts: the same operands, result types and properties (in
    order) as the xDSL constructor gives."""
    from xdsl.dialects import arith, builtin
    from xdsl.dialects.arith import IntegerOverflowAttr, IntegerOverflowFlag

    from tirx_mlir.dialects.tirx.op_build import arith_binary, arith_constant, arith_index_cast

    for ty in (builtin.IndexType(), builtin.i32, builtin.i64):
        for value in (0, 7, -3, 1 << 30, 5000000):
            _same_op(arith_constant(value, ty), arith.ConstantOp(builtin.IntegerAttr(value, ty)))
        a, b = (arith.ConstantOp(builtin.IntegerAttr(v, ty)).result for v in (3, 4))
        nsw = IntegerOverflowAttr([IntegerOverflowFlag.NSW])
        for cls in (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.ShLIOp):
            _same_op(arith_binary(cls, a, b), cls(a, b))
            _same_op(arith_binary(cls, a, b, nsw), cls(a, b, overflow=nsw))
        for cls in (arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.ShRUIOp, arith.ShRSIOp,
                    arith.DivUIOp, arith.DivSIOp, arith.RemUIOp, arith.RemSIOp, arith.MinSIOp,
                    arith.MaxUIOp, arith.CeilDivUIOp, arith.FloorDivSIOp):
            _same_op(arith_binary(cls, a, b), cls(a, b))
    x = arith.ConstantOp(builtin.IntegerAttr(3, builtin.IndexType())).result
    _same_op(arith_index_cast(x, builtin.i32), arith.IndexCastOp(x, builtin.i32))


def test_arith_binary_float_ops_equal_xdsl_constructors():
    """Every floating-point binary op of arith (``fastmath`` left to its default, which the
    direct path fills in) on f16, f32 and f64, built directly (not by xDSL's ``__init__``),
    is the op its constructor makes."""
    from unittest import mock

    from xdsl.dialects import arith, builtin
    from xdsl.irdl import IRDLOperation

    from tirx_mlir.dialects.tirx.op_build import arith_binary

    for ty in (builtin.f16, builtin.f32, builtin.f64):
        f, g = (arith.ConstantOp(builtin.FloatAttr(v, ty)).result for v in (1.0, 2.0))
        for cls in (arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.MaximumfOp,
                    arith.MinimumfOp, arith.MaxnumfOp, arith.MinnumfOp):
            theirs = cls(f, g)
            with mock.patch.object(IRDLOperation, "__init__", side_effect=AssertionError):
                ours = arith_binary(cls, f, g)  # not through xDSL's constructor
            _same_op(ours, theirs)
            assert ours.fastmath == arith.FastMathFlagsAttr("none")


def test_alloc_is_built_directly_as_xdsl_builds_it():
    """`tirx.alloc` (a compile makes one per buffer and per scratch tile) goes through
    `build_op`: the op xDSL's builder makes, without its general argument handling."""
    from xdsl.dialects import builtin

    from tirx_mlir.dialects.tirx.attributes import BufferType
    from tirx_mlir.dialects.tirx.buffer_ops import AllocOp

    buffer = BufferType([128, 512], builtin.f32, "shared")
    theirs = AllocOp.__new__(AllocOp)
    IRDLOperation.__init__(theirs, result_types=[buffer])
    _same_op(AllocOp(buffer), theirs)
    assert op_build._plan(AllocOp) == ((), 1, False)
    assert str(AllocOp(buffer)) == "%0 = tirx.alloc : !tirx.buffer<128x512xf32, shared>"


def _fields(op) -> dict:
    """Every field ``Operation.__init__`` sets, with the uses and results as plain data (their
    identity replaced by what they name)."""
    return {
        "class": type(op), "operands": list(op._operands),
        "uses": [(u._operation is op, u._index) for u in op._operand_uses],
        "results": [(r._type, r.op is op, r.index, r.first_use, r._name) for r in op.results],
        "properties": list(op.properties.items()), "attributes": list(op.attributes.items()),
        "location": op.location, "successors": (op._successors, op._successor_uses),
        "regions": op.regions, "links": (op.parent, op._next_op, op._prev_op),
        "extra": sorted(set(vars(op)) - {
            "_operands", "_operand_uses", "results", "properties", "attributes", "location",
            "_successors", "_successor_uses", "regions", "parent", "_next_op", "_prev_op"})}


def test_new_op_sets_the_fields_operation_init_sets():
    """`new_op` (`init_fields`) against xDSL's ``create``: the same fields, the defaults of
    `IRDLOperation.__post_init__` filled (an add without ``overflowFlags``), and each use put
    first in its value's use list in operand order (a value used twice: both uses, the
    second first), so a later walk of the uses sees them as it would."""
    from xdsl.dialects import arith, builtin

    from tirx_mlir.dialects.tirx.op_build import new_op

    x = arith.ConstantOp(builtin.IntegerAttr(3, builtin.i32)).result
    y = arith.ConstantOp(builtin.IntegerAttr(4, builtin.i32)).result
    cases = [(arith.AddiOp, (x, y), (builtin.i32,), {}),
             (arith.MuliOp, (x, x), (builtin.i32,), {}),
             (arith.ConstantOp, (), (builtin.i32,), {"value": builtin.IntegerAttr(5, builtin.i32)}),
             (arith.IndexCastOp, (y,), (builtin.IndexType(),), {})]
    for cls, operands, types, props in cases:
        fast = new_op(cls, operands, types, props)
        fast_uses = [[(u.operation, u.index) for u in v.uses] for v in operands]
        fast.drop_all_references()
        slow = cls.create(operands=operands, result_types=types, properties=props)
        slow_uses = [[(u.operation, u.index) for u in v.uses] for v in operands]
        slow.drop_all_references()
        assert _fields(fast) == _fields(slow), cls.name
        assert [[i for _, i in us] for us in fast_uses] == [[i for _, i in us] for us in slow_uses]
    assert new_op(arith.AddiOp, (x, y), (builtin.i32,)).properties["overflowFlags"] == \
        arith.IntegerOverflowAttr("none")


def test_new_op_inside_an_implicit_builder_is_inserted():
    """Inside an ImplicitBuilder xDSL inserts every new op where the builder points (from
    ``Operation.__post_init__``): the arith builders still do."""
    from xdsl.builder import ImplicitBuilder
    from xdsl.dialects import builtin
    from xdsl.ir import Block

    from tirx_mlir.dialects.tirx.op_build import arith_binary, arith_constant, direct_fields
    from xdsl.dialects import arith

    block = Block()
    with ImplicitBuilder(block):
        assert not direct_fields(arith.ConstantOp)
        c = arith_constant(2, builtin.i32)
        s = arith_binary(arith.AddiOp, c.result, c.result)
    assert list(block.ops) == [c, s]
    assert direct_fields(arith.ConstantOp)
    assert arith_constant(2, builtin.i32).parent is None


def test_clone_leaf_is_xdsl_clone():
    """`clone_leaf` (canonicalize's rehoisted constants) against ``op.clone()``: the same
    fields, name hints, attributes and location; an op with operands or regions is xDSL's
    clone itself."""
    from xdsl.dialects import arith, builtin, scf

    from xdsl.ir import Block

    from tirx_mlir.dialects.tirx.op_build import clone_leaf

    loc = builtin.FileLineColLoc(builtin.StringAttr("k.mlir"), builtin.IntAttr(3),
                                 builtin.IntAttr(7))
    const = arith.ConstantOp(builtin.IntegerAttr(9, builtin.IndexType()))
    const.results[0].name_hint = "c9"
    const.attributes["tag"] = builtin.StringAttr("x")
    const.location = loc
    fast, slow = clone_leaf(const), const.clone()
    assert _fields(fast) == _fields(slow) and fast.results[0].name_hint == "c9"
    assert fast is not const and fast.attributes is not const.attributes
    add = arith.AddiOp(const.result, const.result)
    assert _fields(clone_leaf(add)) == _fields(add.clone())
    body = Block(arg_types=[builtin.IndexType()])
    body.add_op(scf.YieldOp())
    loop = scf.ForOp(const.result, const.result, const.result, [], body)
    copy = clone_leaf(loop)
    assert len(copy.regions) == 1 and copy.body.block is not body and len(copy.body.block.ops) == 1
