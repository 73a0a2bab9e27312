"""Structural equality of two tirx modules, as the front-end tests need it.

Two modules are the same structurally when their ops, in program order, have the same names,
properties, attributes and result types, and each operand is the same thing: the same kernel
parameter or block argument, the result of the same earlier op, or a constant of the same value.
SSA names, where a constant was materialised, duplicated constants, locations and how an affine
predicate's constraints are spelled do not count.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineSetAttr
from xdsl.ir import Attribute, BlockArgument, Operation

from tirx_mlir.dialects.tirx.predicate import evaluate

PREDICATE_GRID = 640
"""An affine predicate is compared by the elements it selects on a grid this wide per dim."""


def _attr(a: Attribute) -> str:
    if isinstance(a, AffineSetAttr):  # the same set, however its constraints are spelled
        mask = evaluate(a.data, (PREDICATE_GRID,) * a.data.num_dims)
        return f"affine_set/{a.data.num_dims}/{hash(mask.tobytes())}"
    return str(a)


def _signature(root: Operation) -> list[tuple]:
    index: dict[int, int] = {}
    blocks: dict[int, int] = {}
    out: list[tuple] = []
    for op in root.walk():
        if isinstance(op, arith.ConstantOp):
            continue
        for region in op.regions:
            for block in region.blocks:
                blocks[id(block)] = len(blocks)
        operands = []
        for v in op.operands:
            if isinstance(v, BlockArgument):
                operands.append(("arg", blocks.get(id(v.owner)), v.index))
            elif isinstance(v.owner, arith.ConstantOp):
                operands.append(("const", str(v.owner.value)))
            else:
                operands.append(("op", index[id(v.owner)], v.index))
        index[id(op)] = len(out)
        out.append((op.name, sorted((k, _attr(a)) for k, a in op.properties.items()),
                    sorted((k, str(a)) for k, a in op.attributes.items()),
                    [str(r.type) for r in op.results], operands,
                    [len(r.blocks) for r in op.regions]))
    return out


def structural_diff(a: Operation, b: Operation) -> str | None:
    """None when ``a`` and ``b`` are the same structurally, else the first difference."""
    sa, sb = _signature(a), _signature(b)
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y:
            return f"op {i} differs:\n  {x}\n  {y}"
    if len(sa) != len(sb):
        return f"{len(sa)} ops vs {len(sb)} ops"
    return None
