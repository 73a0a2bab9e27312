"""``cuda-narrow-index``: index arithmetic in 32 bits where its ranges prove it fits.

``index`` is 64-bit in CUDA-level code (the PTX printer's ``%rd`` registers, ``int64_t`` in
CUDA C++), so every address computation costs two 32-bit instructions per add, a 64-bit shift
pair per shift and ``mul.wide`` chains per product, where Triton's ``i32`` offsets cost one
(its ``tt.addptr`` offsets are ``i32``; the final pointer add is the 64-bit one). LLVM's NVPTX
backend narrows the same way (``-nvptx-short-ptr``, and InstCombine's shrinking of ``zext``'d
arithmetic). With the proven ranges of `index_ranges.value_ranges`:

1. folds: ``remui x, c`` -> ``x`` and ``divui x, c`` -> ``0`` (and the signed forms) when
   ``0 <= x < c`` for every value ``x`` and ``c`` take (the thread-id decompositions of the
   layouts leave many: ``(tx / 4 + 32) % 128``);
2. narrows: an ``arith`` integer op on ``index`` whose operands and result all lie in the signed
   32-bit range (unsigned ops: non-negative operands) is rebuilt on ``i32``; its ``index`` users
   that stay 64-bit (``cuda.address``, ``scf.for`` bounds, loads and stores) read it through
   ``arith.index_cast`` (a sign extension: exact, since the value fits; a constant keeps its
   ``index`` twin for them instead); the adds, subtractions, products and left shifts carry
   ``nsw`` (they do not wrap), so a global address is
   ``base + sext(offset32) * size`` and a shared one never leaves 32 bits;
3. narrows an ``scf.for`` counting on ``index`` whose bounds, step and last increment (below
   ``ub + step``) fit 32 bits to an i32 induction variable (`narrowable_loop`): the loop's
   compare and increment become 32-bit (Triton's loops count on i32), the narrowed users read
   it directly and the remaining ``index`` users through one cast.

The pass reports what it changes (`tirx_mlir.changes`): each op it replaces or folds, each op
it adds (casts, i32 constants) and each loop it narrows, with its body.
Whether it states so (``REPORTS_CHANGES``): `index_ranges.REPORTS_CUDA_INDEX_CHANGES`.

Every value keeps its meaning (each op's result is exact in 32 bits, by the ranges), so the
interpreter agrees before and after. Ops whose ranges are not proven stay 64-bit, which is
always correct; a kernel with a global buffer of 2^31 bytes or more keeps its offsets into that
buffer 64-bit because their ranges do not fit.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from tirx_mlir.backends.cuda.transforms.index_ranges import (REPORTS_CUDA_INDEX_CHANGES, Range,
                                                           fits_signed, value_ranges)
from tirx_mlir.changes import ChangeLog, current_changes
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dialects.tirx.op_build import arith_binary, arith_constant, arith_index_cast
from tirx_mlir.ir_walk import walk_ops
from tirx_mlir.ir_insert import InsertBefore, insert_after, insert_at_start, insert_before
from tirx_mlir.ir_uses import erase_op, replace_uses

I32 = IntegerType(32)
_INDEX = IndexType()  # made once: each attribute built is verified by xDSL

_FOLDABLE = {"arith.remui": "rem", "arith.remsi": "rem", "arith.divui": "div",
             "arith.divsi": "div"}
_SIGNED = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.AndIOp, arith.OrIOp, arith.XOrIOp,
           arith.ShLIOp, arith.MinSIOp, arith.MaxSIOp, arith.DivSIOp, arith.RemSIOp,
           arith.ShRSIOp)
"""Ops exact in 32 bits whenever their operands and result fit the signed 32-bit range."""
_NO_SIGNED_WRAP = (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.ShLIOp)
NSW = arith.IntegerOverflowAttr([arith.IntegerOverflowFlag.NSW])
"""The narrowed ops that carry arith's ``nsw`` flag: their results are proven exact, so
``sext(a + b) == sext(a) + sext(b)`` and the PTX printer folds a constant term of a global
offset into the address (an immediate of the load) instead of sign-extending each sum."""
_UNSIGNED = (arith.DivUIOp, arith.RemUIOp, arith.ShRUIOp, arith.MinUIOp, arith.MaxUIOp)
"""Ops that read their operands as unsigned: narrowed for non-negative operands only."""
_SHIFTS = (arith.ShLIOp, arith.ShRSIOp, arith.ShRUIOp)
"""Narrowed only when the shift amount is below 32 (arith: a shift by the width or more is
poison)."""
_CANDIDATES = frozenset({arith.ConstantOp, arith.CmpiOp, arith.SelectOp, *_SIGNED, *_UNSIGNED})
"""The classes `narrowable` may accept (matched by exact class before it is asked)."""
_FIRST_UNSIGNED_CMP = 6
"""arith.cmpi's predicates: eq ne slt sle sgt sge (0-5), then ult ule ugt uge (6-9)."""


def fold_by_ranges(kernel: KernelOp, ranges: dict[SSAValue, Range],
                   log: ChangeLog | None = None) -> int:
    """Step 1 of the module docstring; the number of ops folded."""
    folded = 0
    log = log or ChangeLog()
    for op in walk_ops(kernel):
        kind = _FOLDABLE.get(op.name)
        if kind is None or not isinstance(op.results[0].type, IndexType | IntegerType):
            continue
        x, c = (ranges.get(v) for v in op.operands)
        if x is None or c is None or not x.nonneg or x.hi >= c.lo:
            continue
        log.removed(op)  # its block (where a zero goes) and its users
        if kind == "rem":
            replace_uses(op.results[0], op.operands[0])
        else:
            zero = arith.ConstantOp(IntegerAttr(0, op.results[0].type))
            insert_before(zero, op)
            ranges[zero.result] = Range(0, 0)
            replace_uses(op.results[0], zero.result)
        erase_op(op)
        folded += 1
    return folded


def _fits(v: SSAValue, ranges: dict[SSAValue, Range], unsigned: bool) -> bool:
    r = ranges.get(v)
    return r is not None and fits_signed(r, 32) and (r.nonneg or not unsigned)


def _is_index(t) -> bool:
    return type(t) is IndexType or isinstance(t, IndexType)


def narrowable(op: Operation, ranges: dict[SSAValue, Range]) -> bool:
    """Whether ``op`` computes the same values on i32 (step 2 of the module docstring). ``op``
    is of a `_CANDIDATES` class (the classes are told apart by exact class: a set lookup, not
    an ABC `isinstance` per class of a tuple)."""
    kind = type(op)
    if kind is arith.ConstantOp:
        return _is_index(op.results[0].type) and _fits(op.results[0], ranges, False)
    if kind is arith.CmpiOp:
        unsigned = op.predicate.value.data >= _FIRST_UNSIGNED_CMP
        operands = op._operands  # noqa: SLF001
        return all(_is_index(v.type) and _fits(v, ranges, unsigned) for v in operands)
    if kind is arith.SelectOp:
        _, lhs, rhs = op._operands  # noqa: SLF001
        (result,) = op.results
        return _is_index(result.type) and _fits(lhs, ranges, False) and \
            _fits(rhs, ranges, False) and _fits(result, ranges, False)
    unsigned = kind in _UNSIGNED_CLASSES
    if not unsigned and kind not in _SIGNED_CLASSES:
        return False
    operands = op._operands  # noqa: SLF001
    if kind in _SHIFT_CLASSES:  # a shift by >= 32 is poison on i32 (exact on index)
        amount = ranges.get(operands[1])
        if amount is None or not amount.within(0, 31):
            return False
    (result,) = op.results
    return _is_index(result.type) and all(_fits(v, ranges, unsigned) for v in operands) and \
        _fits(result, ranges, unsigned)


_SIGNED_CLASSES = frozenset(_SIGNED)
_UNSIGNED_CLASSES = frozenset(_UNSIGNED)
_SHIFT_CLASSES = frozenset(_SHIFTS)
_NO_SIGNED_WRAP_CLASSES = frozenset(_NO_SIGNED_WRAP)


class _Narrower:
    """Rebuilds the narrowable ops of one kernel on i32 (program order)."""

    def __init__(self, ranges: dict[SSAValue, Range], log: ChangeLog):
        self.ranges = ranges
        self.narrow: dict[SSAValue, SSAValue] = {}
        self.log = log
        self.replaced: list[Operation] = []
        """The rebuilt ops of `rebuild` not erased yet, in program order (`finish`)."""

    def finish(self) -> None:
        """Erase the rebuilt ops, last first (a rebuilt user goes before what it read); one
        whose result is still read (by an ``index`` user that stays 64-bit) leaves it an
        ``arith.index_cast`` of its i32 twin, right after the twin, where `rebuild` put it:
        the narrowed users read the twin, so a cast for them would be dead (it was built and
        left for ``cse`` to erase: ~440 casts on flash_attention_sm80)."""
        for op in reversed(self.replaced):
            old = op.results[0]
            if old.first_use is not None:
                new = self.narrow[old]
                wide = insert_after(arith_index_cast(new, _INDEX), new.owner)
                replace_uses(old, wide.result)
                self.narrow[wide.result] = new
            erase_op(op)
        self.replaced.clear()

    def as_i32(self, v: SSAValue) -> SSAValue:
        """``v`` (index, its range fits) as an i32 value: the narrowed twin or a cast."""
        got = self.narrow.get(v)
        if got is None:
            cast = arith_index_cast(v, I32)
            owner = v.owner
            if isinstance(owner, Block):
                insert_at_start(cast, owner)
            else:
                insert_after(cast, owner)
            self.log.changed(cast)  # new: its block
            got = self.narrow[v] = cast.result
        return got

    def rebuild(self, op: Operation) -> None:
        b = InsertBefore(op)
        kind = type(op)  # a `_CANDIDATES` class: told apart by exact class
        if kind is arith.ConstantOp:
            value = op.value
            assert isinstance(value, IntegerAttr)
            new = b.insert(arith_constant(value.value.data, I32))
            self.log.changed(new)  # new: its block
            self.narrow[op.result] = new.result  # its index users keep the index constant
            return
        self.log.removed(op)  # replaced: its block (where the new ops go) and its users
        if kind is arith.CmpiOp:
            lhs, rhs = (self.as_i32(v) for v in op.operands)
            new = b.insert(arith.CmpiOp(lhs, rhs, op.predicate.value.data))
            replace_uses(op.result, new.result)
            erase_op(op)
            return
        elif kind is arith.SelectOp:
            new = b.insert(arith.SelectOp(op.cond, self.as_i32(op.lhs),
                                          self.as_i32(op.rhs)))
        elif kind in _NO_SIGNED_WRAP_CLASSES:
            lhs, rhs = (self.as_i32(v) for v in op.operands)
            new = b.insert(arith_binary(kind, lhs, rhs, NSW))
        else:
            lhs, rhs = (self.as_i32(v) for v in op.operands)
            new = b.insert(arith_binary(kind, lhs, rhs))
        old = op.results[0]
        new.results[0].name_hint = old.name_hint
        self.narrow[old] = new.results[0]  # narrowed users read ``new`` (`as_i32`)
        self.replaced.append(op)  # erased by `finish`, once every user is rebuilt


def narrowable_loop(loop: scf.ForOp, ranges: dict[SSAValue, Range]) -> bool:
    """Whether ``loop``'s ``index`` induction variable counts exactly on i32: its bounds and
    step fit, and so does the last increment (the value that ends the loop, below
    ``ub + step``)."""
    if not isinstance(loop.body.block.args[0].type, IndexType):
        return False
    lb, ub, step = (ranges.get(v) for v in (loop.lb, loop.ub, loop.step))
    return lb is not None and ub is not None and step is not None and step.lo > 0 and \
        fits_signed(lb, 32) and fits_signed(Range(ub.lo, ub.hi + step.hi), 32)


def narrow_loop(loop: scf.ForOp, n: _Narrower) -> None:
    """Rebuild ``loop``'s induction variable on i32 (step 3 of the module docstring); reported
    as a change of the loop itself (its bounds and its block's argument: its body is walked for
    the new cast), the removed twin cast and the users of the old induction variable (now
    reading the new cast): the body's other ops read neither."""
    block = loop.body.block
    old = block.args[0]
    lb, ub, step = (n.as_i32(v) for v in (loop.lb, loop.ub, loop.step))
    iv = block.insert_arg(I32, 0)
    iv.name_hint = old.name_hint
    twin = n.narrow.pop(old, None)
    if twin is not None:  # the index_cast to i32 the narrowed users read
        n.log.removed(twin.owner)  # its users now read ``iv`` (of its type)
        replace_uses(twin, iv)
        erase_op(twin.owner)
    if old.uses:
        wide = arith_index_cast(iv, _INDEX)
        insert_at_start(wide, block)
        replace_uses(old, wide.result)
        n.narrow[wide.result] = iv
        n.log.changed(wide)  # new; its users (the old induction variable's) are reached
    block.erase_arg(old)
    for i, v in enumerate((lb, ub, step)):
        loop.operands[i] = v
    n.log.changed(loop, inside=False)


def narrow_kernel(kernel: KernelOp, log: ChangeLog | None = None) -> tuple[int, int]:
    """Fold, then narrow, one kernel's index arithmetic; (ops folded, ops narrowed). What it
    changes is reported to ``log`` (`tirx_mlir.changes`)."""
    log = log or ChangeLog()
    ranges = value_ranges(kernel)
    folded = fold_by_ranges(kernel, ranges, log)
    ops = walk_ops(kernel)
    todo = [op for op in ops if type(op) in _CANDIDATES and narrowable(op, ranges)]
    loops = [op for op in ops if type(op) is scf.ForOp and narrowable_loop(op, ranges)]
    n = _Narrower(ranges, log)
    for op in todo:
        n.rebuild(op)
    for loop in loops:
        narrow_loop(loop, n)
    n.finish()
    return folded, len(todo) + len(loops)


@dataclass(frozen=True)
class CudaNarrowIndexPass(ModulePass):
    """Index arithmetic on i32 where the value ranges prove it exact."""

    name = "cuda-narrow-index"
    REPORTS_CHANGES = REPORTS_CUDA_INDEX_CHANGES  # what it reports: the module docstring

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        log = current_changes()
        for kernel in kernels(op):
            narrow_kernel(kernel, log)
