"""``cuda-peel-constants``: the constant part of a swizzled offset peeled out of the swizzle, so
the offsets of one thread's chunks share one register and differ by immediates.

A thread copying chunks ``j = 0..n-1`` of a tile computes ``swizzle(a + c_j)`` for each: ``a``
its own offset, ``c_j`` the chunk's constant step (dispatch unrolls the chunk loop). An XOR
swizzle is built of shifts, masks, xor and or, all linear over GF(2); when ``a`` and ``c_j``
have no bit in common (``a < 2^k`` by its range, ``c_j`` a multiple of ``2^k``) the sum is
``a ^ c_j`` and the constant moves out of every op: ``swizzle(a + c_j) = swizzle(a) ^
swizzle(c_j)``, and when the bits of ``swizzle(a)`` and the constant are again disjoint, that is
``swizzle(a) + K_j``: one ``swizzle(a)`` for all chunks (CSE) and ``K_j`` an immediate of the
address (ptxas folds it into ``LDGSTS [R+imm]`` / ``LDSM``). Without this, a pipelined K loop
keeps one swizzled offset per chunk live across the loop.

Rewrites (``c``, ``d``, ``s``, ``m`` constants; ``bits(x)`` the bits ``x`` may have set, from
the value ranges of `index_ranges` through and/or/xor/shifts), first ``(x + c) + y`` ->
``(x + y) + c`` and ``(x + c) * k`` -> ``x * k + c * k`` everywhere (the constant of a sum
outermost), then:

* ``x + c``      -> ``x ^ c``              when ``bits(x) & c == 0`` and ``c >= 0``
* ``(x ^ c) >> s``, ``(x ^ c) << s``, ``(x ^ c) & m``: the op on ``x``, then ``^`` the op on ``c``
* ``(x ^ c) ^ y`` -> ``(x ^ y) ^ c``; ``(x ^ c) ^ d`` -> ``x ^ (c ^ d)``
* ``(x ^ c) | y`` -> ``(x | y) ^ c``      when ``bits(y) & (bits(x) | c) == 0``
* then, last: ``x ^ c`` and ``x | c`` -> ``x + c`` (nsw) when ``bits(x) & c == 0``; else
  ``x ^ c`` -> ``(x ^ (c & bits(x))) + (c & ~bits(x))`` when ``c`` has bits outside ``x``'s
  (a chunk's constant that both flips a swizzled bit and steps whole rows: the rows become an
  immediate, and the flipped offset is one value for every such chunk); and ``(x + c) + y`` ->
  ``(x + y) + c`` (the constant outermost, where the address takes it).

Each rewrite is an identity of N-bit integers under its condition, so every value is what it
was; the interpreter agrees before and after.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.backends.cuda.transforms.index_ranges import Range, int_bits, value_ranges
from tirx_mlir.backends.cuda.transforms.narrow_index import NSW
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dialects.tirx.op_build import arith_binary, arith_constant

MAX_ROUNDS = 16
"""Rounds of rewriting (each moves a constant one op outwards); swizzles are a few ops deep."""


class _Bits:
    """The bits each value of one kernel may have set (all of its width when unknown)."""

    def __init__(self, ranges: dict[SSAValue, Range]):
        self.ranges = ranges
        self.memo: dict[SSAValue, int] = {}

    def width_mask(self, v: SSAValue) -> int:
        return (1 << (int_bits(v.type) or 64)) - 1

    def constant(self, v: SSAValue) -> int | None:
        c = constant_value(v)
        return c & self.width_mask(v) if isinstance(c, int) else None

    def of(self, v: SSAValue) -> int:
        got = self.memo.get(v)
        if got is None:
            got = self.memo[v] = self._compute(v)
        return got

    def _compute(self, v: SSAValue) -> int:
        full = self.width_mask(v)
        c = self.constant(v)
        if c is not None:
            return c
        r = self.ranges.get(v)
        by_range = (1 << r.hi.bit_length()) - 1 if r is not None and r.nonneg else full
        op = v.owner
        if not isinstance(op, Operation) or len(op.operands) != 2:
            return by_range & full
        a, b = op.operands
        if isinstance(op, arith.AndIOp):
            got = self.of(a) & self.of(b)
        elif isinstance(op, arith.OrIOp | arith.XOrIOp):
            got = self.of(a) | self.of(b)
        elif isinstance(op, arith.ShLIOp) and self.constant(b) is not None:
            got = (self.of(a) << self.constant(b)) & full
        elif isinstance(op, arith.ShRUIOp) and self.constant(b) is not None:
            got = self.of(a) >> self.constant(b)
        elif isinstance(op, arith.AddiOp) and not self.of(a) & self.of(b):
            got = self.of(a) | self.of(b)
        elif _power_of_two(self.constant(b)) is not None and \
                isinstance(op, arith.MuliOp | arith.DivUIOp | arith.RemUIOp):
            k = _power_of_two(self.constant(b))
            got = {arith.MuliOp: (self.of(a) << k) & full, arith.DivUIOp: self.of(a) >> k,
                   arith.RemUIOp: self.of(a) & ((1 << k) - 1)}[type(op)]
        else:
            got = full
        return got & by_range & full


def _power_of_two(c: int | None) -> int | None:
    """``k`` when ``c == 2^k``."""
    return c.bit_length() - 1 if c and c & (c - 1) == 0 else None


def _xor_const(v: SSAValue, bits: _Bits) -> tuple[SSAValue, int] | None:
    """``(x, c)`` when ``v`` is ``x ^ c`` for a constant ``c``."""
    op = v.owner
    if not isinstance(op, arith.XOrIOp):
        return None
    for x, k in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        c = bits.constant(k)
        if c is not None and bits.constant(x) is None:
            return x, c
    return None


class _Peeler:
    def __init__(self, kernel: KernelOp):
        self.kernel = kernel
        self.bits = _Bits(value_ranges(kernel))

    def const(self, b: Builder, like: SSAValue, value: int) -> SSAValue:
        return b.insert(arith_constant(value, like.type)).result

    def xor(self, b: Builder, x: SSAValue, c: int) -> SSAValue:
        """``x ^ c`` (``x`` itself for ``c == 0``)."""
        if not c:
            return x
        return b.insert(arith_binary(arith.XOrIOp, x, self.const(b, x, c))).result

    def replace(self, op: Operation, new: SSAValue) -> None:
        self.bits.memo.pop(op.results[0], None)
        op.results[0].replace_all_uses_with(new)
        Rewriter.erase_op(op)

    def xor_out(self, op: Operation) -> bool:
        """One step of moving a constant xor outwards at ``op``; whether it rewrote."""
        b, bits = Builder(InsertPoint.before(op)), self.bits
        if isinstance(op, arith.AddiOp):
            if self.reassociate(op):
                return True
            for x, k in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
                c = bits.constant(k)
                signed = constant_value(k)
                if c is not None and bits.constant(x) is None and signed >= 0 \
                        and not bits.of(x) & c:
                    self.replace(op, b.insert(arith_binary(arith.XOrIOp, x, k)).result)
                    return True
            return False
        if isinstance(op, arith.ShRUIOp | arith.ShLIOp | arith.AndIOp):
            inner = _xor_const(op.operands[0], bits)
            k = bits.constant(op.operands[1])
            if inner is None or k is None:
                return False
            x, c = inner
            moved = {arith.ShRUIOp: c >> k, arith.ShLIOp: (c << k) & bits.width_mask(x),
                     arith.AndIOp: c & k}[type(op)]
            core = b.insert(arith_binary(type(op), x, op.operands[1])).result
            self.replace(op, self.xor(b, core, moved))
            return True
        if isinstance(op, arith.XOrIOp | arith.OrIOp):
            for side, other in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
                inner = _xor_const(side, bits)
                if inner is None:
                    continue
                x, c = inner
                d = bits.constant(other)
                if isinstance(op, arith.XOrIOp) and d is not None:
                    self.replace(op, self.xor(b, x, c ^ d))
                    return True
                if d is not None:
                    continue
                if isinstance(op, arith.OrIOp) and bits.of(other) & (bits.of(x) | c):
                    continue
                core = b.insert(arith_binary(type(op), x, other)).result
                xor = arith_binary(arith.XOrIOp, core, self.const(b, x, c))
                self.replace(op, b.insert(xor).result)
                return True
        return False

    def back_to_add(self, op: Operation) -> bool:
        """``x ^ c`` / ``x | c`` with disjoint bits -> ``x + c``; ``(x + c) + y`` ->
        ``(x + y) + c``."""
        b, bits = Builder(InsertPoint.before(op)), self.bits
        if isinstance(op, arith.XOrIOp | arith.OrIOp):
            for x, k in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
                c = bits.constant(k)
                limit = 1 << ((int_bits(x.type) or 64) - 1)
                if c is None or bits.constant(x) is not None or (bits.of(x) | c) >= limit:
                    continue
                if not bits.of(x) & c:
                    self.replace(op, b.insert(arith_binary(arith.AddiOp, x, k, NSW)).result)
                    return True
                over, free = c & bits.of(x), c & ~bits.of(x)
                if isinstance(op, arith.XOrIOp) and free:  # (x ^ over) + free
                    core = self.xor(b, x, over)
                    self.replace(op, b.insert(arith_binary(arith.AddiOp, core,
                                                           self.const(b, x, free), NSW)).result)
                    return True
            return False
        return isinstance(op, arith.AddiOp) and self.reassociate(op)

    def distribute(self, op: Operation) -> bool:
        """``(x + c) * k`` -> ``x * k + c * k`` and ``(x + c) << s`` -> ``(x << s) + (c << s)``
        (of nsw sums and products, for ``x, c, k >= 0``: then ``x * k`` and ``c * k`` are at
        most the exact product, so the distributed form is nsw too)."""
        bits = self.bits
        if not isinstance(op, arith.MuliOp | arith.ShLIOp) or not _nsw(op):
            return False
        inner, k = op.operands[0].owner, bits.constant(op.operands[1])
        if not isinstance(inner, arith.AddiOp) or not _nsw(inner) or k is None:
            return False
        half = 1 << ((int_bits(op.operands[0].type) or 64) - 1)
        if constant_value(op.operands[1]) < 0:
            return False
        a, d = inner.operands
        for x, c in ((a, d), (d, a)):
            cv = constant_value(c)
            if not isinstance(cv, int) or cv < 0 or bits.constant(x) is not None or \
                    bits.of(x) >= half:
                continue
            b = Builder(InsertPoint.before(op))
            step = cv * k if isinstance(op, arith.MuliOp) else cv << k
            core = b.insert(arith_binary(type(op), x, op.operands[1], NSW)).result
            self.replace(op, b.insert(arith_binary(arith.AddiOp, core, self.const(b, x, step),
                                                   NSW)).result)
            return True
        return False

    def reassociate(self, op: Operation) -> bool:
        """``(x + c) + y`` -> ``(x + y) + c``: the constant outermost (where a swizzle's xor or
        an address's immediate takes it; ``x + y`` shared by every ``c``, CSE)."""
        if not isinstance(op, arith.AddiOp):
            return self.distribute(op)
        b, bits = Builder(InsertPoint.before(op)), self.bits
        for side, y in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
            inner = side.owner
            if not isinstance(inner, arith.AddiOp) or bits.constant(y) is not None:
                continue
            a, d = inner.operands
            for x, k in ((a, d), (d, a)):
                if bits.constant(k) is None or bits.constant(x) is not None:
                    continue
                # x + y <= x + y + c when c >= 0 and x, y >= 0: no wrap where the sum did not
                half = 1 << ((int_bits(x.type) or 64) - 1)
                keeps = _nsw(op) and _nsw(inner) and constant_value(k) >= 0 and \
                    bits.of(x) < half and bits.of(y) < half
                flags = NSW if keeps else None
                core = b.insert(arith_binary(arith.AddiOp, x, y, flags)).result
                self.replace(op, b.insert(arith_binary(arith.AddiOp, core, k, flags)).result)
                return True
        return False

    def run(self, step) -> bool:
        changed = False
        for _ in range(MAX_ROUNDS):
            ops = [o for o in self.kernel.walk() if type(o) in _REWRITTEN]
            moved = False
            for o in ops:
                if o.parent is not None and step(o):
                    moved = True
            changed |= moved
            if not moved:
                break
        return changed


_REWRITTEN = frozenset({arith.AddiOp, arith.XOrIOp, arith.OrIOp, arith.AndIOp, arith.ShLIOp,
                        arith.ShRUIOp, arith.MuliOp})
"""The op classes a step may rewrite (matched by exact class: a set lookup, not an ABC
`isinstance` per op and round). Their operands are read as ``operands[0]`` / ``operands[1]``
(``lhs`` / ``rhs``: xDSL's IRDL accessors cost more than the rewrite's arithmetic)."""


def _nsw(op: arith.AddiOp) -> bool:
    return arith.IntegerOverflowFlag.NSW in op.overflow_flags.data


def peel_kernel(kernel: KernelOp) -> None:
    p = _Peeler(kernel)
    p.run(p.reassociate)
    p.run(p.xor_out)
    p.run(p.back_to_add)


@dataclass(frozen=True)
class CudaPeelConstantsPass(ModulePass):
    """Constant parts of swizzled offsets moved out of the swizzle (see the module docs)."""

    name = "cuda-peel-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            peel_kernel(kernel)
