"""Edit a lowered kernel's mbarrier init counts, to test what a count short of its arrivals does."""

from __future__ import annotations

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IntegerAttr


def init_count_constants(module, count: int) -> list[ConstantOp]:
    """The distinct constants of value ``count`` that ``ptx.mbarrier_init`` ops take as their
    count, in program order (one per ring of barriers, as the CUDA lowering builds them)."""
    found: list[ConstantOp] = []
    for op in module.walk():
        if op.name != "ptx.mbarrier_init":
            continue
        const = op.operands[1].owner
        if isinstance(const, ConstantOp) and const.value.value.data == count and \
                const not in found:
            found.append(const)
    return found


def set_init_count(module, count: int, new: int, which: int = 0) -> None:
    """Give the ``which``-th ring of mbarriers initialised with ``count`` the count ``new``."""
    const = init_count_constants(module, count)[which]
    const.value = IntegerAttr(new, const.value.type)
