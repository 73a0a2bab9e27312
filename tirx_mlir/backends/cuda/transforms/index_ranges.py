"""Integer ranges of a CUDA-level kernel's index values, for the passes that narrow and fold
index arithmetic (`narrow_index`).

`value_ranges(kernel)` gives, for every SSA value of integer or ``index`` type whose range it can
prove, the closed interval ``Range(lo, hi)`` holding every value it takes in every thread of
every CTA. What it knows, in one forward walk (SSA: a value's definition precedes its uses,
except loop-carried values, which stay unknown):

* constants; the ids of ``cuda`` (``thread_idx``, ``block_idx``, ``lane_id``, ``warp_id``, the
  cluster ids) from the kernel's static launch (``threads``, ``grid``, ``cluster``), and the
  dimensions (``block_dim``, ``grid_dim``, ``cluster_dim``) as constants;
* an ``scf.for`` induction variable: ``[lb.lo, ub.hi - 1]`` for a positive constant step;
* interval arithmetic of ``arith`` ops (add, sub, mul, unsigned and signed division and
  remainder of non-negative values, shifts by known amounts, and/or/xor of non-negative
  values, min/max, select, index casts).

The transfer functions are the exact mathematical results (no wrapping): a result whose
interval leaves the signed range of its type is unknown. Anything else (values loaded from
memory, block arguments of ``scf.while``, ops not listed) is unknown: `value_ranges` leaves it
out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.ir_walk import walk_ops

INDEX_BITS = 64
"""The width of ``index`` in CUDA-level code (the printers' and the interpreter's)."""

REPORTS_CUDA_INDEX_CHANGES = True
"""Whether the passes on these ranges (``cuda-narrow-index``, ``cuda-peel-constants``,
``cuda-hoist-invariants``) state ``REPORTS_CHANGES``. Each reports every change it makes
(`tirx_mlir.changes`; tests/backends/cuda/transforms/test_change_reports.py audits them on
the examples). Off until 2026-12-04 (their reports reached most of a kernel, and a
verification from them cost as much as a full one); on since the users of a removed op are
reported as redirected (`ChangeLog.users`: their own users are not reached through them) and
an index op's users only through the views that read it (measured: bench/README.md,
"Verification after every pass, eighth round")."""


@dataclass(frozen=True)
class Range:
    """The closed interval ``[lo, hi]`` of a value."""

    lo: int
    hi: int

    @property
    def nonneg(self) -> bool:
        return self.lo >= 0

    def within(self, lo: int, hi: int) -> bool:
        return lo <= self.lo and self.hi <= hi

    def union(self, other: Range) -> Range:
        return Range(min(self.lo, other.lo), max(self.hi, other.hi))


def int_bits(t: Attribute) -> int | None:
    """The width of an integer or ``index`` type, None for any other type."""
    kind = type(t)  # the exact classes first: `isinstance` on an attribute class is an ABC's
    if kind is IntegerType:
        return t.width.data
    if kind is IndexType or isinstance(t, IndexType):
        return INDEX_BITS
    if isinstance(t, IntegerType):
        return t.width.data
    return None


def fits_signed(r: Range, bits: int) -> bool:
    half = 1 << (bits - 1)
    return -half <= r.lo and r.hi < half


def _ones_above(hi: int) -> int:
    """The largest value of as many bits as ``hi`` has (an or/xor of values <= ``hi``)."""
    return (1 << hi.bit_length()) - 1


def _id_extent(op: Operation, kernel: KernelOp) -> int | None:
    """How many values the id ``op`` takes (ids run from 0), None when unknown."""
    def dim(dims, name):
        dims = [*dims, 1, 1, 1]
        return dims["xyz".index(name)]

    name = op.name
    threads, grid = kernel.thread_dims(), kernel.grid_dims()
    cluster = kernel.cluster_dims() or (1,)
    d = op.properties.get("dim")
    d = d.data if d is not None else None
    if name == "cuda.thread_idx":
        return dim(threads, d)
    if name == "cuda.block_idx":
        return dim(grid, d)
    if name == "cuda.cluster_block_idx":
        return dim(cluster, d)
    if name == "cuda.cluster_idx":
        return max(dim(grid, d) // dim(cluster, d), 1)
    if name == "cuda.cluster_block_rank":
        return math.prod(cluster)
    if name == "cuda.lane_id":
        return min(kernel.num_threads(), 32)
    if name == "cuda.warp_id":
        return max(-(-kernel.num_threads() // 32), 1)
    return None


_DIMENSIONS = {"cuda.block_dim": "threads", "cuda.grid_dim": "grid", "cuda.cluster_dim": "cluster"}


def _dimension(op: Operation, kernel: KernelOp) -> int | None:
    which = _DIMENSIONS.get(op.name)
    if which is None:
        return None
    dims = {"threads": kernel.thread_dims(), "grid": kernel.grid_dims(),
            "cluster": kernel.cluster_dims() or (1,)}[which]
    return [*dims, 1, 1, 1]["xyz".index(op.properties["dim"].data)]


def _binary(name: str, a: Range, b: Range) -> Range | None:
    if name == "arith.addi":
        return Range(a.lo + b.lo, a.hi + b.hi)
    if name == "arith.subi":
        return Range(a.lo - b.hi, a.hi - b.lo)
    if name == "arith.muli":
        ps = (a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
        return Range(min(ps), max(ps))
    if name in ("arith.minsi", "arith.minui") and (name == "arith.minsi" or
                                                    (a.nonneg and b.nonneg)):
        return Range(min(a.lo, b.lo), min(a.hi, b.hi))
    if name in ("arith.maxsi", "arith.maxui") and (name == "arith.maxsi" or
                                                    (a.nonneg and b.nonneg)):
        return Range(max(a.lo, b.lo), max(a.hi, b.hi))
    if not (a.nonneg and b.nonneg):
        return None  # the rest: non-negative operands only (unsigned and signed agree)
    if name in ("arith.divui", "arith.divsi", "arith.floordivsi") and b.lo > 0:
        return Range(a.lo // b.hi, a.hi // b.lo)
    if name in ("arith.ceildivui", "arith.ceildivsi") and b.lo > 0:
        return Range(-(-a.lo // b.hi), -(-a.hi // b.lo))
    if name in ("arith.remui", "arith.remsi") and b.lo > 0:
        return a if a.hi < b.lo else Range(0, min(a.hi, b.hi - 1))
    if name == "arith.shli" and b.hi < 64:
        return Range(a.lo << b.lo, a.hi << b.hi)
    if name in ("arith.shrui", "arith.shrsi") and b.hi < 64:
        return Range(a.lo >> b.hi, a.hi >> b.lo)
    if name == "arith.andi":
        return Range(0, min(a.hi, b.hi))
    if name in ("arith.ori", "arith.xori"):
        lo = max(a.lo, b.lo) if name == "arith.ori" else 0
        return Range(lo, _ones_above(max(a.hi, b.hi)))
    return None


def _result_range(op: Operation, known: dict[SSAValue, Range],
                  kernel: KernelOp) -> Range | None:
    """The range of ``op``'s one result (of an integer type wider than 1 bit)."""
    op_class = type(op)  # exact classes: no ABC `isinstance` per op (nothing subclasses them)
    if op_class is arith.ConstantOp:
        v = op.properties["value"]
        if isinstance(v, IntegerAttr):
            return Range(v.value.data, v.value.data)
        return None
    if op.name.startswith("cuda."):
        n = _id_extent(op, kernel)
        if n is not None:
            return Range(0, n - 1)
        d = _dimension(op, kernel)
        return None if d is None else Range(d, d)
    operands = op._operands  # noqa: SLF001
    if op_class is arith.SelectOp:
        t, f = known.get(operands[1]), known.get(operands[2])  # true, false
        return t.union(f) if t and f else None
    if op_class is arith.IndexCastOp or op_class is arith.ExtSIOp:
        return known.get(operands[0])
    if op_class is arith.ExtUIOp:
        r = known.get(operands[0])
        return r if r is not None and r.nonneg else None
    if len(operands) != 2:
        return None
    lhs, rhs = operands
    a, b = known.get(lhs), known.get(rhs)
    if a is None or b is None:
        return None
    return _binary(op.name, a, b)


def value_ranges(kernel: KernelOp) -> dict[SSAValue, Range]:
    """The proven ranges of ``kernel``'s integer values (see the module docstring)."""
    known: dict[SSAValue, Range] = {}
    for op in walk_ops(kernel):
        if type(op) is scf.ForOp:
            lb, ub, step = known.get(op.lb), known.get(op.ub), known.get(op.step)
            if lb and ub and step and step.lo > 0 and ub.hi - 1 >= lb.lo:
                known[op.body.block.args[0]] = Range(lb.lo, ub.hi - 1)
            continue
        results = op.results
        if len(results) != 1:
            continue
        (result,) = results  # unpacked: `SSAValues` indexes in Python
        bits = int_bits(result.type)
        if bits is None or bits == 1:
            continue
        r = _result_range(op, known, kernel)
        if r is not None and fits_signed(r, bits):
            known[result] = r
    return known
