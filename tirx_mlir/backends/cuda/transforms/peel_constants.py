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

Cost: each round tries every candidate op again, and most tries fail on the op's shape, so the
facts a try reads are kept for the pass (a value's constant, by value: its defining op never
changes; a type's width mask), ops are matched by exact class (a dict lookup, not an ABC
``isinstance``) and their operands read from the op's tuple. The pass reports what it changes
(`tirx_mlir.changes`): each op it replaces (its new ops go into that op's block). A dead
``x ^ c`` that would become ``x + c`` is left as it is (`_unused`). The non-constant op a
rewrite builds under its new root (``x >> s`` of ``(x ^ c) >> s``, ``x + y`` of ``(x + c) + y``:
`_Peeler.core`) is built once per round and block: each chunk of a swizzle rewrites to the same
one, which the ``cse`` after the pass merged (`_Peeler.core` says why the IR after that ``cse``
is the same).
Whether it states so (``REPORTS_CHANGES``): `index_ranges.REPORTS_CUDA_INDEX_CHANGES`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from tirx_mlir.backends.cuda.transforms.index_ranges import (REPORTS_CUDA_INDEX_CHANGES, Range,
                                                           int_bits, value_ranges)
from tirx_mlir.backends.cuda.transforms.narrow_index import NSW
from tirx_mlir.changes import ChangeLog, current_changes
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dialects.tirx.op_build import arith_binary, arith_constant
from tirx_mlir.ir_insert import InsertBefore
from tirx_mlir.ir_uses import erase_op, replace_uses

MAX_ROUNDS = 16
"""Rounds of rewriting (each moves a constant one op outwards); swizzles are a few ops deep."""


class _Bits:
    """The bits each value of one kernel may have set (all of its width when unknown), and the
    constants the rewrites read, each found once."""

    def __init__(self, ranges: dict[SSAValue, Range]):
        self.ranges = ranges
        self.memo: dict[SSAValue, int] = {}
        self._values: dict[int, tuple[SSAValue, int | float | None, int | None]] = {}
        self._masks: dict[int, tuple[object, int]] = {}

    def width_mask(self, v: SSAValue) -> int:
        """All ones of ``v``'s width, by the identity of its type (hashing a type attribute
        hashes its parameters: most of a lookup keyed by the type itself); the type is kept
        beside its mask, so an id is never another type's."""
        t = v.type
        got = self._masks.get(id(t))
        if got is None or got[0] is not t:
            got = self._masks[id(t)] = (t, (1 << (int_bits(t) or 64)) - 1)
        return got[1]

    def signed(self, v: SSAValue) -> int | float | None:
        """`access.constant_value` of ``v``, kept (a value's defining op never changes)."""
        got = self._values.get(id(v))
        if got is None or got[0] is not v:
            got = self._value(v)
        return got[1]

    def constant(self, v: SSAValue) -> int | None:
        """``v``'s integer constant as an unsigned value of its width, kept as `signed` is."""
        got = self._values.get(id(v))
        if got is None or got[0] is not v:
            got = self._value(v)
        return got[2]

    def _value(self, v: SSAValue) -> tuple[SSAValue, int | float | None, int | None]:
        """``(v, signed, constant)``, kept by ``v``'s ``id`` (an int's hash is C code, a
        value's a Python call); ``v`` is kept beside them, so an id is never another
        value's."""
        owner = v.owner
        c = None
        if type(owner) is arith.ConstantOp:
            value = owner.properties["value"]
            if isinstance(value, IntegerAttr | FloatAttr):
                c = value.value.data
        got = self._values[id(v)] = (v, c, c & self.width_mask(v) if type(c) is int else None)
        return got

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
        if not isinstance(op, Operation) or len(op._operands) != 2:  # noqa: SLF001
            return by_range & full
        a, b = op._operands  # noqa: SLF001
        kind = type(op)
        if kind is arith.AndIOp:
            got = self.of(a) & self.of(b)
        elif kind is arith.OrIOp or kind is arith.XOrIOp:
            got = self.of(a) | self.of(b)
        elif kind is arith.ShLIOp and self.constant(b) is not None:
            got = (self.of(a) << self.constant(b)) & full
        elif kind is arith.ShRUIOp and self.constant(b) is not None:
            got = self.of(a) >> self.constant(b)
        elif kind is arith.AddiOp and not self.of(a) & self.of(b):
            got = self.of(a) | self.of(b)
        elif kind in _POWER_OF_TWO_STEPS and _power_of_two(self.constant(b)) is not None:
            k = _power_of_two(self.constant(b))
            got = {arith.MuliOp: (self.of(a) << k) & full, arith.DivUIOp: self.of(a) >> k,
                   arith.RemUIOp: self.of(a) & ((1 << k) - 1)}[kind]
        else:
            got = full
        return got & by_range & full


_POWER_OF_TWO_STEPS = frozenset({arith.MuliOp, arith.DivUIOp, arith.RemUIOp})


def _power_of_two(c: int | None) -> int | None:
    """``k`` when ``c == 2^k``."""
    return c.bit_length() - 1 if c and c & (c - 1) == 0 else None


def _xor_const(v: SSAValue, bits: _Bits) -> tuple[SSAValue, int] | None:
    """``(x, c)`` when ``v`` is ``x ^ c`` for a constant ``c``."""
    op = v.owner
    if type(op) is not arith.XOrIOp:
        return None
    a, d = op._operands  # noqa: SLF001
    for x, k in ((a, d), (d, a)):
        c = bits.constant(k)
        if c is not None and bits.constant(x) is None:
            return x, c
    return None


class _Peeler:
    def __init__(self, kernel: KernelOp, log: ChangeLog):
        self.kernel = kernel
        self.bits = _Bits(value_ranges(kernel))
        self.log = log
        self.cores: dict[tuple, Operation] = {}
        """`core`'s ops of the current round (`run` empties it), by class and operands."""
        self.unused_constants: list[Operation] = []
        """Constants an op `replace` erased was the last to read (`erase_unused_constants`)."""

    def const(self, b: InsertBefore, like: SSAValue, value: int) -> SSAValue:
        return b.insert(arith_constant(value, like.type)).result

    def xor(self, b: InsertBefore, x: SSAValue, c: int) -> SSAValue:
        """``x ^ c`` (``x`` itself for ``c == 0``)."""
        if not c:
            return x
        return b.insert(arith_binary(arith.XOrIOp, x, self.const(b, x, c))).result

    def core(self, b: InsertBefore, kind: type, x: SSAValue, y: SSAValue,
             flags=None) -> SSAValue:
        """``kind(x, y)`` with ``flags`` before ``b``'s op: the op of this round already built
        in that block (equal class, operands and flags), else a new one. It dominates ``b``'s
        op: a round visits a block's ops in order, putting its new ops right before the op it
        visits, and does not visit them (its ops are listed when it starts).

        The IR after the ``cse`` that follows is the one of building a twin each time: that
        ``cse`` would replace the twin by the first (or by what it replaces the first by: their
        keys are equal), as long as the first is used when ``cse`` visits it (an unused op is
        erased there, not kept). It is: no rewrite drops a use of an op built here except by
        replacing that op itself (each rewrite's new ops read the non-constant operands of
        the op it replaces, which is the only op it erases; the uses it drops are of that
        op's constants and of an ``x ^ c`` / ``x + c`` with a constant, which this never
        builds), and a step rewrites such an op by its operands and flags alone, as it would
        the twin (the bits `_Bits.of` finds for it are read through those operands too, when
        first asked: for the twin they could be asked later, through operands replaced since
        by equal values; tests/backends/cuda/transforms/test_peel_constants_cores.py compares
        the IR after the ``cse`` on every tile example)."""
        key = (kind, x, y, flags)
        got = self.cores.get(key)
        block = b.anchor.parent
        if got is not None and got.parent is block:
            return got.results[0]
        new = b.insert(arith_binary(kind, x, y, flags))
        self.cores[key] = new
        return new.results[0]

    def replace(self, op: Operation, new: SSAValue) -> None:
        self.log.removed(op)  # its block (where the new ops went) and its users
        self.bits.memo.pop(op.results[0], None)
        replace_uses(op.results[0], new)
        operands = op._operands  # noqa: SLF001
        erase_op(op)
        for v in operands:
            if v.first_use is None and type(v.owner) is arith.ConstantOp:
                self.unused_constants.append(v.owner)

    def erase_unused_constants(self) -> None:
        """Erase the constants the pass left without a use (an op it replaced read them):
        the ``cse`` after the pass erases an unused constant as it visits it, and no other
        op's uses change with it (it has no operands), so the IR after that ``cse`` is the
        same (126 ops on flash_attention_sm80 that ``cse`` no longer visits, nor the
        verification after the pass). Nothing reads a constant without uses again: a
        rewrite reuses operands of the op it replaces, or builds its own."""
        for const in self.unused_constants:
            if const.parent is not None and const.results[0].first_use is None:
                self.log.removed(const)
                erase_op(const)
        self.unused_constants.clear()

    def xor_out(self, op: Operation) -> bool:
        """One step of moving a constant xor outwards at ``op``; whether it rewrote."""
        bits, kind = self.bits, type(op)
        lhs, rhs = op._operands  # noqa: SLF001
        if kind is arith.AddiOp:
            if self.reassociate(op):
                return True
            for x, k in ((lhs, rhs), (rhs, lhs)):
                c = bits.constant(k)
                if c is not None and bits.constant(x) is None and bits.signed(k) >= 0 \
                        and not bits.of(x) & c:
                    if x is lhs and self.comes_back(op, x, c):
                        return False
                    b = InsertBefore(op)
                    self.replace(op, b.insert(arith_binary(arith.XOrIOp, x, k)).result)
                    return True
            return False
        if kind is arith.ShRUIOp or kind is arith.ShLIOp or kind is arith.AndIOp:
            inner = _xor_const(lhs, bits)
            k = bits.constant(rhs)
            if inner is None or k is None:
                return False
            x, c = inner
            moved = {arith.ShRUIOp: c >> k, arith.ShLIOp: (c << k) & bits.width_mask(x),
                     arith.AndIOp: c & k}[kind]
            b = InsertBefore(op)
            core = self.core(b, kind, x, rhs)
            self.replace(op, self.xor(b, core, moved))
            return True
        if kind is arith.XOrIOp or kind is arith.OrIOp:
            for side, other in ((lhs, rhs), (rhs, lhs)):
                inner = _xor_const(side, bits)
                if inner is None:
                    continue
                x, c = inner
                d = bits.constant(other)
                if kind is arith.XOrIOp and d is not None:
                    self.replace(op, self.xor(InsertBefore(op), x, c ^ d))
                    return True
                if d is not None:
                    continue
                if kind is arith.OrIOp and bits.of(other) & (bits.of(x) | c):
                    continue
                b = InsertBefore(op)
                core = self.core(b, kind, x, other)
                xor = arith_binary(arith.XOrIOp, core, self.const(b, x, c))
                self.replace(op, b.insert(xor).result)
                return True
        return False

    def comes_back(self, op: Operation, x: SSAValue, c: int) -> bool:
        """Whether ``op = x + c`` (``x`` its lhs), made ``x ^ c`` here, would be made ``x + c``
        again by `back_to_add`, the same op, with nothing between reading the xor: its
        results' users are of no class a step rewrites or reads through (`_REWRITTEN`: a user's
        step reads its operands' defining ops), ``x`` is never replaced (defined outside
        `_REWRITTEN`, or by a product or left shift of such a value, which no step rewrites),
        ``op`` is exactly what `back_to_add` builds (``nsw``, nothing else) and its condition
        holds. Such an ``x + c`` is left as it is: the round trip costs two ops built,
        verified and cse'd per sum (softmax_row: 12 register indices ``4 * r + e``)."""
        if op.attributes or len(op.properties) != 1 or op.properties.get("overflowFlags") != NSW:
            return False
        bits = self.bits
        if (bits.of(x) | c) > bits.width_mask(x) >> 1:
            return False
        result = op.results[0]
        use = result.first_use
        while use is not None:
            if type(use.operation) in _REWRITTEN:
                return False
            use = use._next_use  # noqa: SLF001
        return _never_replaced(x)

    def back_to_add(self, op: Operation) -> bool:
        """``x ^ c`` / ``x | c`` with disjoint bits -> ``x + c``; ``(x + c) + y`` ->
        ``(x + y) + c``."""
        bits, kind = self.bits, type(op)
        if kind is arith.XOrIOp or kind is arith.OrIOp:
            lhs, rhs = op._operands  # noqa: SLF001
            for x, k in ((lhs, rhs), (rhs, lhs)):
                c = bits.constant(k)
                if c is None or bits.constant(x) is not None or \
                        (bits.of(x) | c) > bits.width_mask(x) >> 1:  # not below 2^(N-1)
                    continue
                if not bits.of(x) & c:
                    if _unused(op):  # left as it is: what the cse after sees is the same
                        return False
                    b = InsertBefore(op)
                    self.replace(op, b.insert(arith_binary(arith.AddiOp, x, k, NSW)).result)
                    return True
                over, free = c & bits.of(x), c & ~bits.of(x)
                if kind is arith.XOrIOp and free:  # (x ^ over) + free
                    b = InsertBefore(op)
                    core = self.xor(b, x, over)
                    self.replace(op, b.insert(arith_binary(arith.AddiOp, core,
                                                           self.const(b, x, free), NSW)).result)
                    return True
            return False
        return kind is arith.AddiOp and self.reassociate(op)

    def distribute(self, op: Operation) -> bool:
        """``(x + c) * k`` -> ``x * k + c * k`` and ``(x + c) << s`` -> ``(x << s) + (c << s)``
        (of nsw sums and products, for ``x, c, k >= 0``: then ``x * k`` and ``c * k`` are at
        most the exact product, so the distributed form is nsw too)."""
        bits, kind = self.bits, type(op)
        if kind is not arith.MuliOp and kind is not arith.ShLIOp:
            return False
        lhs, rhs = op._operands  # noqa: SLF001
        inner = lhs.owner
        if type(inner) is not arith.AddiOp or not _nsw(op):
            return False
        k = bits.constant(rhs)
        if not _nsw(inner) or k is None:
            return False
        half = 1 << ((int_bits(lhs.type) or 64) - 1)
        if bits.signed(rhs) < 0:
            return False
        a, d = inner._operands  # noqa: SLF001
        for x, c in ((a, d), (d, a)):
            cv = bits.signed(c)
            if type(cv) is not int or cv < 0 or bits.constant(x) is not None or \
                    bits.of(x) >= half:
                continue
            b = InsertBefore(op)
            step = cv * k if kind is arith.MuliOp else cv << k
            core = self.core(b, kind, x, rhs, NSW)
            self.replace(op, b.insert(arith_binary(arith.AddiOp, core, self.const(b, x, step),
                                                   NSW)).result)
            return True
        return False

    def reassociate(self, op: Operation) -> bool:
        """``(x + c) + y`` -> ``(x + y) + c``: the constant outermost (where a swizzle's xor or
        an address's immediate takes it; ``x + y`` shared by every ``c``, CSE)."""
        if type(op) is not arith.AddiOp:
            return self.distribute(op)
        bits = self.bits
        lhs, rhs = op._operands  # noqa: SLF001
        for side, y in ((lhs, rhs), (rhs, lhs)):
            inner = side.owner
            if type(inner) is not arith.AddiOp or bits.constant(y) is not None:
                continue
            a, d = inner._operands  # noqa: SLF001
            for x, k in ((a, d), (d, a)):
                if bits.constant(k) is None or bits.constant(x) is not None:
                    continue
                # x + y <= x + y + c when c >= 0 and x, y >= 0: no wrap where the sum did not
                half = 1 << ((int_bits(x.type) or 64) - 1)
                keeps = _nsw(op) and _nsw(inner) and bits.signed(k) >= 0 and \
                    bits.of(x) < half and bits.of(y) < half
                flags = NSW if keeps else None
                b = InsertBefore(op)
                core = self.core(b, arith.AddiOp, x, y, flags)
                self.replace(op, b.insert(arith_binary(arith.AddiOp, core, k, flags)).result)
                return True
        return False

    def run(self, step) -> bool:
        changed = False
        for _ in range(MAX_ROUNDS):
            self.cores.clear()
            ops = _rewritable(self.kernel, [])
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


def _never_replaced(x: SSAValue) -> bool:
    """No step replaces ``x``'s defining op: a block argument, an op of a class outside
    `_REWRITTEN`, or ``a * k`` / ``a << k`` with ``a`` such a value (only `distribute`, on an
    ``a`` defined by ``addi``, and `xor_out`'s shift rule, on an ``a`` defined by ``xori``,
    rewrite those)."""
    owner = x.owner
    kind = type(owner)
    if kind not in _REWRITTEN:
        return True
    if kind is not arith.MuliOp and kind is not arith.ShLIOp:
        return False
    a = owner._operands[0]  # noqa: SLF001
    return type(a.owner) not in _REWRITTEN


def _unused(op: Operation) -> bool:
    """Whether ``op``'s result has no use. `back_to_add` leaves such an ``x ^ c`` / ``x | c``
    as it is rather than build the ``x + c`` that would replace it: both are dead ops of the
    same operands, which the cse after the pass erases (an unused op is erased as it is
    visited, before its operands' users could matter, and no step reads an op without users),
    so the IR after that cse is the same; on flash_attention_sm80 that is 192 of the 277 sums
    `back_to_add` built. `xor_out` still rewrites dead ops: the ops it builds under the new
    root (the core op, the constant) are used when cse visits them and stay, so leaving
    them out would change the IR after cse."""
    return op.results[0].first_use is None


def _rewritable(op: Operation, into: list[Operation]) -> list[Operation]:
    """The ops of `_REWRITTEN` classes inside ``op``, in `walk` order (the walk without its
    generators, each block's ops by their links)."""
    for region in op.regions:
        for block in region.blocks:
            inner = block._first_op  # noqa: SLF001
            while inner is not None:
                if type(inner) in _REWRITTEN:
                    into.append(inner)
                if inner.regions:
                    _rewritable(inner, into)
                inner = inner._next_op  # noqa: SLF001
    return into


def _nsw(op: Operation) -> bool:
    return arith.IntegerOverflowFlag.NSW in op.properties["overflowFlags"].data


def peel_kernel(kernel: KernelOp, log: ChangeLog | None = None) -> None:
    p = _Peeler(kernel, log or ChangeLog())
    p.run(p.reassociate)
    p.run(p.xor_out)
    p.run(p.back_to_add)
    p.erase_unused_constants()


@dataclass(frozen=True)
class CudaPeelConstantsPass(ModulePass):
    """Constant parts of swizzled offsets moved out of the swizzle (see the module docs)."""

    name = "cuda-peel-constants"
    REPORTS_CHANGES = REPORTS_CUDA_INDEX_CHANGES  # what it reports: the module docstring

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        log = current_changes()
        for kernel in kernels(op):
            peel_kernel(kernel, log)
