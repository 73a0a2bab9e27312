"""``cuda-strength-reduce``: remainders of a loop's induction variable counted, not divided.

A software-pipelined K loop picks its ring slot as ``(k / BK + s) % stages`` (a cp.async ring)
or ``k % stages`` (a TMA ring) in every iteration; for a stage count that is not a power of two
each remainder is a ``mul.hi`` division sequence (5 SASS instructions on sm_80, 7 with the
quotient's scaling) on the loop's critical path. LLVM's loop strength reduction and Triton's
pipeliner carry such a slot in a loop-carried register instead (Triton's ``insertIdx`` /
``extractIdx`` iter_args, incremented and wrapped per iteration). This pass does the same for
the ``scf.for`` loops of a CUDA-level kernel:

* a value of the loop body is *affine* when it changes by the same constant ``a`` every
  iteration, as exact integers: the induction variable (``a = step``), and ``addi``/``subi``
  of an affine value and a loop-invariant one, ``muli``/``shli`` of an affine value by a
  constant, ``divui``/``divsi`` of a non-negative affine value by a constant ``d`` dividing
  ``a`` (``floor((y + t*a) / d) = floor(y / d) + t*a/d``), and index casts (i32 <-> index);
* ``remui``/``remsi`` of a non-negative affine value ``y`` (by its range, `index_ranges`) by a
  constant ``m`` that is not a power of two (those are an ``and``) becomes a new iter_arg
  ``r``: ``r_0 = y_0 % m`` computed before the loop (the chain of ``y`` evaluated at the lower
  bound), and at the end of each iteration ``r + (a mod m)``, minus ``m`` when that reaches
  ``m`` (``s - m * (s >= m)``: no branch).

Every value is what it was: ``r_t`` equals ``y_t % m`` in every iteration by induction
(``0 <= r_t < m``), so the interpreter agrees before and after. The chain evaluated before the
loop is pure arithmetic that cannot fault (the divisors are non-zero constants); when the loop
does not run, its values are unused.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.backends.cuda.transforms.index_ranges import (Range, fits_signed, int_bits,
                                                           value_ranges)
from tirx_mlir.changes import current_changes
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dominance import defined_in
from tirx_mlir.ir_walk import walk_region_ops
from tirx_mlir.ir_uses import erase_op, replace_uses
from tirx_mlir.type_tests import IsInstance, find_ops

_REMAINDERS = (arith.RemUIOp, arith.RemSIOp)
_IS_REMAINDER = IsInstance(*_REMAINDERS)
_IS_FOR = IsInstance(scf.ForOp)
_DIVISIONS = (arith.DivUIOp, arith.DivSIOp)


class _Loop:
    """The affine values of one ``scf.for`` body (see the module docstring)."""

    def __init__(self, loop: scf.ForOp, ranges: dict[SSAValue, Range]):
        self.loop = loop
        self.ranges = ranges
        self.iv = loop.body.block.args[0]
        self.memo: dict[SSAValue, int | None] = {}

    def invariant(self, v: SSAValue) -> bool:
        owner = v.owner
        op = owner.parent_op() if isinstance(owner, Block) else owner
        return op is not None and op is not self.loop and not defined_in(self.loop, v)

    def slope(self, v: SSAValue) -> int | None:
        """The constant ``a`` by which ``v`` grows per iteration, None when not affine."""
        if v in self.memo:
            return self.memo[v]
        self.memo[v] = got = self._slope(v)
        return got

    def _slope(self, v: SSAValue) -> int | None:
        if v is self.iv:
            step = constant_value(self.loop.step)
            return step if isinstance(step, int) else None
        if self.invariant(v):
            return 0
        op = v.owner
        if isinstance(op, arith.IndexCastOp | arith.ExtSIOp):
            return self.slope(op.input)
        if not isinstance(op, Operation) or len(op.operands) != 2:
            return None
        a, b = (self.slope(x) for x in op.operands)
        if a is None or b is None:
            return None
        if isinstance(op, arith.AddiOp):
            return a + b
        if isinstance(op, arith.SubiOp):
            return a - b
        c = constant_value(op.rhs)
        if not isinstance(c, int) or b != 0:
            return None
        if isinstance(op, arith.MuliOp):
            return a * c
        if isinstance(op, arith.ShLIOp) and 0 <= c < 32:
            return a << c
        if isinstance(op, _DIVISIONS) and c > 0 and a % c == 0 and self.nonneg(op.lhs):
            return a // c
        return None

    def nonneg(self, v: SSAValue) -> bool:
        r = self.ranges.get(v)
        return r is not None and r.nonneg

    def at_start(self, v: SSAValue, b: Builder, done: dict[SSAValue, SSAValue]) -> SSAValue:
        """``v``'s value in the first iteration, computed by ``b`` (before the loop)."""
        if v is self.iv:
            return self.loop.lb
        if self.invariant(v):
            return v
        got = done.get(v)
        if got is None:
            op = v.owner
            assert isinstance(op, Operation)
            operands = [self.at_start(x, b, done) for x in op.operands]
            clone = b.insert(op.clone(value_mapper=dict(zip(op.operands, operands))))
            got = done[v] = clone.results[0]
        return got


def _remainder_by(op: Operation) -> int | None:
    """``m`` when ``op`` is an integer remainder by a constant ``m > 1`` that is not a power of
    two (what the pass may count, whatever the ranges), else None."""
    if not isinstance(op, _REMAINDERS) or int_bits(op.result.type) is None:
        return None
    m = constant_value(op.rhs)
    return m if isinstance(m, int) and m > 1 and m & (m - 1) else None


def _reducible(op: Operation, lp: _Loop) -> tuple[int, int] | None:
    """``(slope, m)`` when ``op`` is a remainder the pass counts instead."""
    m = _remainder_by(op)
    if m is None or not lp.nonneg(op.lhs):
        return None
    a = lp.slope(op.lhs)
    return None if a is None or a % m == 0 else (a, m)


def _split_constant(v: SSAValue) -> tuple[SSAValue, int]:
    """``(x, c)`` with ``v = x + c`` through a chain of ``arith.addi`` of constants (``(v, 0)``
    when there is none)."""
    total = 0
    while isinstance(op := v.owner, arith.AddiOp):
        for x, k in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            c = constant_value(k)
            if isinstance(c, int) and constant_value(x) is None:
                v, total = x, total + c
                break
        else:
            break
    return v, total


def _scale(rem: Operation) -> int:
    """``C`` when every user of ``rem`` is ``arith.muli rem, C`` for one constant ``C > 0``
    (a ring slot scaled to its offset), else 1."""
    scales = set()
    for use in rem.results[0].uses:
        user = use.operation
        if _dead_cast(user):
            continue
        c = constant_value(user.operands[1]) if isinstance(user, arith.MuliOp) and \
            user.operands[0] is rem.results[0] else None
        if not isinstance(c, int) or c <= 0:
            return 1
        scales.add(c)
    return scales.pop() if len(scales) == 1 else 1


def _dead_cast(op: Operation) -> bool:
    """An unused index cast (``cuda-narrow-index`` leaves one per narrowed value)."""
    return isinstance(op, arith.IndexCastOp) and not op.result.uses


def _wrap_add(b: Builder, r: SSAValue, step: int, m: int) -> SSAValue:
    """``(r + step) % m`` for ``0 <= r < m`` and ``0 <= step < m``: ``r + step``, less ``m``
    where that reaches ``m``."""
    if not step:
        return r

    def const(value: int) -> SSAValue:
        return b.insert(arith.ConstantOp(IntegerAttr(value, r.type))).result

    bumped = b.insert(arith.AddiOp(r, const(step))).result
    wraps = b.insert(arith.CmpiOp(bumped, const(m), "uge")).result
    # bumped - m * wraps, not a select: nvcc turned the select into a branch that made it
    # serialize a warpgroup's wgmma (ptxas advisory C7520)
    if isinstance(r.type, IndexType):  # extui makes integers only: through i64 (0 or 1)
        wide = b.insert(arith.ExtUIOp(wraps, i64)).result
        flag = b.insert(arith.IndexCastOp(wide, r.type)).result
    else:
        flag = b.insert(arith.ExtUIOp(wraps, r.type)).result
    back = b.insert(arith.MuliOp(flag, const(m))).result
    return b.insert(arith.SubiOp(bumped, back)).result


def reduce_loop(loop: scf.ForOp, ranges: dict[SSAValue, Range]) -> scf.ForOp:
    """``loop`` with its reducible remainders carried (a new loop when any was).

    A remainder used only scaled by one constant ``C`` (``slot * stage_size``) is carried
    scaled: ``C * r`` counts by ``C * (a mod m)`` and wraps at ``C * m`` (its range fits
    where the product's did). Remainders by the same ``m`` of values that differ by a
    constant share one carried register: the others are that register plus the difference,
    wrapped (``(k/BK + 2) % 3`` and ``(k/BK + 3) % 3`` of a 3-stage ring: one register)."""
    lp = _Loop(loop, ranges)
    found = [(op, got) for op in walk_region_ops(loop.body) if (got := _reducible(op, lp)) is not None]
    if not found:
        return loop
    # the loop is replaced (its users and block; the new loop holds its body, each change in
    # it reported: `ChangeLog.rebuilt`) and the remainder's start is computed before it, in
    # that block
    log = current_changes()
    log.removed(loop)
    block = loop.body.block
    before = Builder(InsertPoint.before(loop))
    done: dict[SSAValue, SSAValue] = {}
    inits, nexts = [], []
    last = block.last_op
    assert isinstance(last, scf.YieldOp)
    at_end = Builder(InsertPoint.before(last))
    at_top = Builder(InsertPoint.at_start(block))
    carried: dict[tuple, tuple[SSAValue, int]] = {}
    for op, (a, m) in found:
        t = op.result.type
        x, c = _split_constant(op.lhs)
        scale = _scale(op)
        if not fits_signed(Range(0, 2 * m * scale), int_bits(t) or 64):
            scale = 1  # the scaled count's bump must not wrap
        key = (x, m, a, t, scale)
        got = carried.get(key)
        if got is not None:
            arg, c0 = got
            value = _wrap_add(at_top, arg, (c - c0) % m * scale, m * scale)
        else:
            start = before.insert(type(op)(lp.at_start(op.lhs, before, done), op.rhs)).result
            if scale != 1:
                k = before.insert(arith.ConstantOp(IntegerAttr(scale, t))).result
                start = before.insert(arith.MuliOp(start, k)).result
            arg = value = block.insert_arg(t, len(block.args))
            arg.name_hint = op.result.name_hint
            carried[key] = (arg, c)
            nexts.append(_wrap_add(at_end, arg, a % m * scale, m * scale))
            inits.append(start)
        if scale != 1:
            for use in list(op.result.uses):
                product = use.operation
                log.removed(product)
                if not _dead_cast(product):
                    replace_uses(product.results[0], value)
                erase_op(product)
        log.removed(op)
        replace_uses(op.result, value)
        erase_op(op)
    last.operands = [*last.operands, *nexts]
    log.changed(last)
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *inits],
                    loop.detach_region(loop.body))
    new.attributes.update(loop.attributes)  # hints (loop_hints)
    Rewriter.insert_op(new, InsertPoint.before(loop))
    log.rebuilt(new, loop)
    for old, res in zip(loop.results, new.results):
        replace_uses(old, res)
    erase_op(loop)
    return new


def reduce_kernel(kernel: KernelOp) -> int:
    """Carry the reducible remainders of every loop of ``kernel``; the loops rebuilt. A kernel
    without a remainder `_remainder_by` accepts is left at once, its value ranges not computed
    (most kernels but the pipelined K loops' rings)."""
    if not any(_remainder_by(op) is not None for op in find_ops(kernel, _IS_REMAINDER)):
        return 0
    ranges = value_ranges(kernel)
    loops = find_ops(kernel, _IS_FOR)
    return sum(reduce_loop(loop, ranges) is not loop for loop in loops)


@dataclass(frozen=True)
class CudaStrengthReducePass(ModulePass):
    """Remainders of affine loop values carried as iter_args (see the module docstring)."""

    name = "cuda-strength-reduce"
    REPORTS_CHANGES = True  # each rebuilt loop (`reduce_loop`)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            reduce_kernel(kernel)
