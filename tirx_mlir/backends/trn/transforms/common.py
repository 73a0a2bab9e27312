"""Helpers shared by the Trainium transforms and dispatch: the target limits of a kernel, and
building index arithmetic for an affine `IndexExpr`."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.tirx.access import IndexExpr
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp


def kernel_target(module: ModuleOp, kernel: KernelOp, option: str | None):
    """The kernel's Target (pass option > kernel > module attribute), or None when none is
    given (then the default NeuronCore-v2 limits apply)."""
    from tirx_mlir.transforms.tile_dispatch import resolve_target
    from tirx_mlir.diagnostics import PassError

    try:
        return resolve_target(module, kernel, option)
    except PassError:
        if option is None and kernel.target is None:
            return None
        raise


def kernel_limits(module: ModuleOp, kernel: KernelOp, option: str | None) -> TrnLimits:
    return TrnLimits.from_target(kernel_target(module, kernel, option))


def kernels(module: ModuleOp) -> list[KernelOp]:
    return [k for k in module.walk() if isinstance(k, KernelOp)]


def allocs(kernel: KernelOp) -> list[AllocOp]:
    return [o for o in kernel.walk() if isinstance(o, AllocOp)]


def const_index(builder: Builder, value: int) -> SSAValue:
    return builder.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def materialize(builder: Builder, expr: IndexExpr) -> int | SSAValue:
    """An int for a constant expression, else index arithmetic computing it."""
    if expr.is_const():
        return expr.const
    acc: SSAValue | None = None
    for value, coeff in expr.terms:
        term = value
        if coeff != 1:
            term = builder.insert(arith.MuliOp(value, const_index(builder, coeff))).result
        acc = term if acc is None else builder.insert(arith.AddiOp(acc, term)).result
    assert acc is not None
    if expr.const:
        acc = builder.insert(arith.AddiOp(acc, const_index(builder, expr.const))).result
    return acc


def place_like(new: AllocOp, old: AllocOp) -> None:
    """Insert ``new`` before ``old`` with its name, attributes and source location."""
    block = old.parent_block()
    assert block is not None
    block.insert_op_before(new, old)
    new.result.name_hint = old.result.name_hint
    new.attributes.update(old.attributes)
    new.location = old.location


def replace_alloc(old: AllocOp, new: AllocOp) -> None:
    """Put ``new`` in place of ``old`` (keeping its name and attributes) and erase ``old``."""
    place_like(new, old)
    old.result.replace_all_uses_with(new.result)
    old.detach()
    old.erase()


def max_value(expr: IndexExpr, ranges) -> int | None:
    """Largest value of a non-negative-coefficient expression over the value ranges."""
    total = expr.const
    for value, coeff in expr.terms:
        rng = ranges(value)
        if rng is None:
            return None
        total += coeff * (rng[1] if coeff >= 0 else rng[0])
    return total


_ = Operation
