"""Helpers shared by the Trainium transforms: the target limits of a kernel, the allocations of a
kernel, replacing an allocation, and bounding an affine `IndexExpr`.

(Which kernels a module holds is `dialects.tirx.kernel.kernels`; index arithmetic is built by
`dialects.tirx.access.materialize`.)"""

from __future__ import annotations

from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.tirx.access import IndexExpr
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.target.target import kernel_target


def kernel_limits(kernel: KernelOp, option: str | None) -> TrnLimits:
    """The Trainium limits of a kernel's target (`tirx_mlir.target.kernel_target`); the default
    NeuronCore-v2 limits when it has none."""
    return TrnLimits.from_target(kernel_target(kernel, option, required=False))


def allocs(kernel: KernelOp) -> list[AllocOp]:
    return [o for o in kernel.walk() if isinstance(o, AllocOp)]


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

