"""The register budget of a warp-specialised CTA, and what a thread-id condition is in each
thread, for ``cuda-set-max-nreg`` (set_max_nreg.py).

`thread_values(value, threads)`: the value an ``i1``/integer SSA value takes in each thread of a
1-D block of ``threads`` threads, when it is computed from ``cuda.thread_idx x``, the warp and
lane ids and constants by ``arith`` ops (the role conditions dispatch builds: ``tx / 128 < 1``,
``tx / 32 < 4``); None otherwise. Evaluated exactly, thread by thread.

`register_budget(...)`: how a CTA of ``warpgroups`` warpgroups, ``consumers`` of them consumers
and the others producers, shares the SM's register file. The kernel is launched with ``entry``
registers per thread (``.maxnreg``), so a CTA takes ``entry * threads`` registers and
``ctas = 65536 // (entry * threads)`` CTAs fit an SM by registers. In the kernel each producer
warpgroup gives registers back to the CTA's pool (``setmaxnreg.dec producer``) and each consumer
warpgroup takes them (``setmaxnreg.inc consumer``); a warpgroup's count only moves within the
pool (PTX ISA, setmaxnreg), so ``producer * producers + consumer * consumers <= entry *
warpgroups``. The budget aims at the most CTAs per SM that the shared memory and the threads
allow and that still give each consumer thread at least ``demand`` registers (an estimate of
what its code needs: set_max_nreg.consumer_demand) and launch with enough for its largest
wgmma (`wgmma_need`: ptxas allocates a wgmma within the launch count); None when even one CTA
per SM cannot. `uniform_ctas` is the occupancy without re-balancing, to compare.

Counts are multiples of 8 (setmaxnreg's rule; registers are allocated per warp in units of 256,
8 per thread); ``entry`` is at most 248 (a thread has at most 255 registers), ``consumer`` at
most 256 and ``producer`` `PRODUCER_REGISTERS` (a producer issues TMA copies from a few
addresses and phase bits: ptxas fits the examples' producers in 24 without spilling).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.transforms.index_ranges import int_bits

SM_REGISTERS = 65536
"""32-bit registers per SM (compute capability 9.0)."""
WARPGROUP = 128
PRODUCER_REGISTERS = 24
ENTRY_MAX = 248
CONSUMER_MAX = 256
DEMAND_MARGIN = 32
"""Registers a consumer thread needs besides its arrays (addresses, loop counters, phase
bits, temporaries): the estimate `consumer_demand` adds it to the arrays' registers."""
WGMMA_MARGIN = 26
"""Registers ptxas needs beside a wgmma's accumulators at launch (its 90 for 64 accumulators)."""


@dataclass(frozen=True)
class Budget:
    ctas: int
    """CTAs per SM the entry count allows (by registers)."""
    entry: int
    """Registers per thread at launch (the kernel's ``.maxnreg``)."""
    producer: int
    consumer: int


def _floor8(n: float) -> int:
    return int(n) // 8 * 8


def register_budget(threads: int, consumers: int, demand: int, entry_min: int,
                    max_ctas: int) -> Budget | None:
    """The budget (module docstring) of a CTA of ``threads`` threads, ``consumers`` consumer
    warpgroups, consumer code needing ``demand`` registers per thread and its largest
    instruction ``entry_min`` at launch (`wgmma_need`), at most ``max_ctas`` CTAs per SM (shared
    memory, threads); None when no occupancy gives the consumers enough."""
    warpgroups = threads // WARPGROUP
    producers = warpgroups - consumers
    if threads % WARPGROUP or consumers < 1 or producers < 1:
        return None
    for ctas in range(max(max_ctas, 0), 0, -1):
        entry = min(ENTRY_MAX, _floor8(SM_REGISTERS / (ctas * threads)))
        if entry < max(PRODUCER_REGISTERS, entry_min):
            continue
        consumer = min(CONSUMER_MAX,
                       _floor8((entry * warpgroups - PRODUCER_REGISTERS * producers) / consumers))
        if consumer >= max(demand, entry):
            return Budget(ctas, entry, PRODUCER_REGISTERS, consumer)
    return None


def uniform_ctas(threads: int, registers: int, max_ctas: int) -> int:
    """CTAs per SM when every thread holds ``registers`` (no re-balancing)."""
    per_thread = -(-registers // 8) * 8
    return min(max_ctas, SM_REGISTERS // (per_thread * threads))


def wgmma_need(accumulators: int) -> int:
    """Registers per thread a kernel must have at launch to hold a wgmma of ``accumulators``
    accumulator registers, a multiple of 8: ptxas (13.0) allocates a wgmma within the kernel's
    launch count even after a ``setmaxnreg.inc`` (measured: gemm_sm90a's m64n128k16, 64
    accumulators, fails with C7602 "Insufficient registers (80) ... register target of 90";
    below that a smaller shape is serialised, C7512)."""
    return -(-(accumulators + WGMMA_MARGIN) // 8) * 8 if accumulators else 0


def array_registers(shape_elements: int, bits: int) -> int:
    """32-bit registers an array of ``shape_elements`` elements of ``bits`` bits takes."""
    return math.ceil(shape_elements * bits / 32)


# ---- what a condition on the thread id is in each thread -----------------------------------

def _cdiv(a: int, b: int) -> int:
    return a // b


_BINARY = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b, "arith.andi": lambda a, b: a & b,
    "arith.ori": lambda a, b: a | b, "arith.xori": lambda a, b: a ^ b,
    "arith.minsi": min, "arith.maxsi": max,
}
_NON_NEGATIVE = {  # non-negative operands only: unsigned and signed agree, nothing wraps
    "arith.divui": _cdiv, "arith.divsi": _cdiv,
    "arith.remui": lambda a, b: a % b, "arith.remsi": lambda a, b: a % b,
    "arith.shrui": lambda a, b: a >> b, "arith.shrsi": lambda a, b: a >> b,
    "arith.shli": lambda a, b: a << b, "arith.minui": min, "arith.maxui": max,
}
_DIVIDES = ("arith.divui", "arith.divsi", "arith.remui", "arith.remsi")
_COMPARE = (lambda a, b: a == b, lambda a, b: a != b,  # MLIR's order: eq, ne, slt, sle, sgt,
            lambda a, b: a < b, lambda a, b: a <= b,   # sge, ult, ule, ugt, uge
            lambda a, b: a > b, lambda a, b: a >= b)
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi")
_SIGN_EXTENDING = ("arith.index_cast", "arith.extsi")
_IDS = {"cuda.thread_idx": 1, "cuda.warp_id": 32}


def thread_values(value: SSAValue, threads: int,
                  memo: dict[SSAValue, list[int] | None] | None = None) -> list[int] | None:
    """``value`` in each of ``threads`` threads (a 1-D block; ``i1``: 0 or 1), or None (module
    docstring): None too when a value leaves its type's signed range (no wrap-around is
    modelled) or a signed comparison reads an ``i1``. Plain integers, not numpy: compiling a
    kernel imports no numpy."""
    memo = {} if memo is None else memo
    if value in memo:
        return memo[value]
    owner = value.owner
    result = _evaluate(owner, threads, memo) if isinstance(owner, Operation) else None
    memo[value] = result
    return result


def _evaluate(op: Operation, threads: int, memo) -> list[int] | None:
    values = _evaluate_unchecked(op, threads, memo)
    if values is None:
        return None
    bits = int_bits(op.results[0].type)
    if bits is None:
        return None
    if bits == 1:  # i1 as 0 / 1 (xDSL stores the constant `true` as -1)
        return values if all(v in (0, 1) for v in values) else None
    low, high = -(1 << (bits - 1)), 1 << (bits - 1)
    return values if all(low <= v < high for v in values) else None


def _evaluate_unchecked(op: Operation, threads: int, memo) -> list[int] | None:
    name = op.name
    if isinstance(op, arith.ConstantOp):
        v = op.value
        if not isinstance(v, IntegerAttr) or int_bits(v.type) is None:
            return None
        return [v.value.data & 1 if int_bits(v.type) == 1 else v.value.data] * threads
    if name in _IDS:
        dim = op.properties.get("dim")
        return None if dim is not None and dim.data != "x" else \
            [t // _IDS[name] for t in range(threads)]
    if name == "cuda.lane_id":
        return [t % 32 for t in range(threads)]
    if op.regions or len(op.results) != 1 or int_bits(op.results[0].type) is None:
        return None
    args = [thread_values(v, threads, memo) for v in op.operands]
    if any(a is None for a in args):
        return None
    if name in _CASTS:
        if int_bits(op.operands[0].type) == 1 and name in _SIGN_EXTENDING:
            return [-v for v in args[0]]  # an i1's true is -1 signed
        return args[0]
    if name == "arith.select":
        return [t if c else f for c, t, f in zip(*args)]
    if len(args) != 2:
        return None
    a, b = args
    negative = min(a) < 0 or min(b) < 0
    if name in _BINARY:
        fn = _BINARY[name]
    elif name in _NON_NEGATIVE and not negative and not (name in _DIVIDES and 0 in b):
        fn = _NON_NEGATIVE[name]
    elif name == "arith.cmpi" and not (op.predicate.value.data >= 6 and negative) and not (
            2 <= op.predicate.value.data < 6 and int_bits(op.operands[0].type) == 1):
        predicate = op.predicate.value.data  # ult.. (6..9) compare as slt.. (2..5)
        compare = _COMPARE[predicate if predicate < 6 else predicate - 4]
        return [int(compare(x, y)) for x, y in zip(a, b)]
    else:
        return None
    return [fn(x, y) for x, y in zip(a, b)]
