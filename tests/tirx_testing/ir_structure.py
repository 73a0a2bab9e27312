"""Structural equality of two tirx modules, as the front-end tests need it.

Two modules are the same structurally when their ops, in program order, have the same names,
properties, attributes and result types, and each operand is the same thing: the same kernel
parameter or block argument, the result of the same earlier op, or a constant of the same value.
SSA names, where a constant was materialised, duplicated constants, locations, how an affine
predicate's constraints are spelled, and whether a slice's constant offset is static or a
constant operand (``%X[0, %k]`` or ``%X[%c0, %k]``) do not count.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineSetAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from tirx_mlir.dialects.tirx.buffer_ops import SliceOp

from tirx_mlir.dialects.tirx.predicate import evaluate

PREDICATE_GRID = 640
"""An affine predicate is compared by the elements it selects on a grid this wide per dim."""
SYMBOL_SAMPLES = (0, 1, 3, 7)
"""... with each of its symbols bound to each of these values."""


def _attr(a: Attribute) -> str:
    if isinstance(a, AffineSetAttr):  # the same set, however its constraints are spelled
        n = a.data.num_symbols
        masks = [evaluate(a.data, (PREDICATE_GRID,) * a.data.num_dims, (v,) * n).tobytes()
                 for v in (SYMBOL_SAMPLES if n else (0,))]
        return f"affine_set/{a.data.num_dims}/{n}/{hash(tuple(masks))}"
    return str(a)


def _signature(root: Operation) -> list[tuple]:
    index: dict[int, int] = {}
    blocks: dict[int, int] = {}
    out: list[tuple] = []

    def _operand(v) -> tuple:
        if isinstance(v, BlockArgument):
            return ("arg", blocks.get(id(v.owner)), v.index)
        if isinstance(v.owner, arith.ConstantOp):
            return ("const", str(v.owner.value))
        return ("op", index[id(v.owner)], v.index)

    for op in root.walk():
        if isinstance(op, arith.ConstantOp):
            continue
        for region in op.regions:
            for block in region.blocks:
                blocks[id(block)] = len(blocks)
        if isinstance(op, SliceOp):
            out.append(_slice_signature(op, _operand))
            index[id(op)] = len(out) - 1
            continue
        operands = []
        operands = [_operand(v) for v in op.operands]
        index[id(op)] = len(out)
        out.append((op.name, sorted((k, _attr(a)) for k, a in op.properties.items()),
                    sorted((k, str(a)) for k, a in op.attributes.items()),
                    [str(r.type) for r in op.results], operands,
                    [len(r.blocks) for r in op.regions]))
    return out


def _slice_signature(op: SliceOp, operand) -> tuple:
    """A slice by its offsets, sizes and strides, a constant operand read as its value."""
    def part(v) -> object:
        if not isinstance(v, SSAValue):
            return ("const", str(v))
        if isinstance(v.owner, arith.ConstantOp):
            return ("const", str(v.owner.value.value.data))
        return operand(v)

    return (op.name, [("offsets", [part(v) for v in op.mixed_offsets()]),
                      ("sizes", [part(v) for v in op.mixed_sizes()]),
                      ("strides", list(op.strides()))],
            sorted((k, str(a)) for k, a in op.attributes.items()),
            [str(r.type) for r in op.results], [operand(op.source)], [])


def structural_diff(a: Operation, b: Operation) -> str | None:
    """None when ``a`` and ``b`` are the same structurally, else the first difference."""
    sa, sb = _signature(a), _signature(b)
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y:
            return f"op {i} differs:\n  {x}\n  {y}"
    if len(sa) != len(sb):
        return f"{len(sa)} ops vs {len(sb)} ops"
    return None
