"""Print-time unrolling for the PTX printer: loops over a thread's local arrays expanded.

Dispatch rolls a register tile's rounds into ``scf.for`` loops (`dispatch.rounds`) whose body
indexes the tile's local array with an affine function of the induction variables. The IR,
the interpreters and ``-t cuda`` (``#pragma unroll`` over a C array) keep the loop; PTX
registers cannot be indexed, so before printing, `expand_register_loops` rewrites a copy of
the module (the input is never changed):

* a loop **must be expanded** when its body (nested ops included) loads or stores a local
  array at an index that depends on the loop's induction variable or carried values;
* it is expanded by cloning its body once per iteration in place of the loop, the induction
  variable a constant, the carried values the previous iteration's yields, the results the
  last yields; each clone is **folded** as it is made (`_fold`: the ``arith`` folders,
  ``index_cast`` of a constant, ``x + 0``, ``x * 1``), so the array index of every access is a
  constant and `local_registers.promotable` names each element's register, as if dispatch had
  unrolled the rounds itself (``(x + c1) + c2`` becomes ``x + (c1 + c2)``, as an unrolled
  round's ``thread part + constant``); constants and equal ``arith`` ops are made once per
  block (the CSE the unrolled rounds got in the pipeline: equal comparisons of a causal
  mask, loop-invariant index arithmetic);
* inner loops first, siblings in program order (each expansion's ops then come after every
  earlier one's in its block, so constants and equal ops are shared safely); an outer loop
  is expanded once its inner loops are, its index arithmetic folding the rest;
* a loop that must be expanded but whose bounds are not constants, or with more than
  `MAX_ITERATIONS` iterations, is a located error at the loop.
"""

from __future__ import annotations

from typing import Callable

from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.folder import Folder
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.memory import LOCAL
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.attributes import BufferType

MAX_ITERATIONS = 1024
"""The most iterations one expanded loop may have (its body is printed that many times)."""

Fail = Callable[[str, Operation], Exception]


def needs_expansion(loop: scf.ForOp) -> bool:
    """Whether ``loop``'s body accesses a local array at an index that depends on the loop's
    induction variable or carried values (module docstring)."""
    varying: set[SSAValue] = set(loop.body.block.args)
    for op in loop.body.walk():
        if isinstance(op, (LoadOp, StoreOp)) and _local(op.memory) and op.index in varying:
            return True
        if any(v in varying for v in op.operands):
            varying.update(op.results)
    return False


def expand_register_loops(module: ModuleOp, fail: Fail) -> ModuleOp:
    """``module``, or a copy of it with every loop that `needs_expansion` expanded."""
    if not _expanded_loops(module):
        return module
    expander = Expander(fail)
    for loop in _expanded_loops(module):  # refused in the input, where errors have locations
        expander.bounds(loop)
    module = module.clone()
    for loop in _expanded_loops(module):
        expander.expand(loop)
    return module


class Expander:
    """Expands loops (innermost first, `_expanded_loops`), sharing constants and equal ``arith``
    ops per block: one block's expansions come in program order, so what an earlier one
    placed dominates every later one."""

    def __init__(self, fail: Fail) -> None:
        self.fail = fail
        self.folder = Folder(_context())
        self.known: dict[tuple, SSAValue | tuple[SSAValue, ...]] = {}
        """(block, constant value and type) or (block, arith op's name, operands,
        properties, result types) -> the value(s) already computed before the loop."""

    def expand(self, loop: scf.ForOp) -> None:
        """Replace ``loop`` by one folded copy of its body per iteration."""
        lb, ub, step = self.bounds(loop)
        block = loop.body.block
        iv, carried = block.args[0], block.args[1:]
        values: list[SSAValue] = list(loop.iter_args)
        for i in range(lb, ub, step):
            mapping: dict[SSAValue, SSAValue] = dict(zip(carried, values))
            mapping[iv] = self.constant(loop, i, iv.type)
            for op in block.ops:
                if isinstance(op, scf.YieldOp):
                    values = [mapping.get(v, v) for v in op.operands]
                    break
                self.clone(loop, op, mapping)
        for result, value in zip(loop.results, values):
            result.replace_all_uses_with(value)
        loop.detach()
        loop.erase()

    def bounds(self, loop: scf.ForOp) -> tuple[int, int, int]:
        bounds = [constant_value(v) for v in (loop.lb, loop.ub, loop.step)]
        why = "this loop indexes a thread's local array (registers in PTX) with its " \
              "induction variable, so it must be unrolled, but "
        if not all(isinstance(x, int) for x in bounds) or bounds[2] <= 0:
            raise self.fail(why + "its bounds and step are not constants (a positive step)",
                            loop)
        lb, ub, step = bounds
        if len(range(lb, ub, step)) > MAX_ITERATIONS:
            raise self.fail(why + f"it has {len(range(lb, ub, step))} iterations (at most "
                                  f"{MAX_ITERATIONS})", loop)
        return lb, ub, step

    def clone(self, loop: scf.ForOp, op: Operation, mapping: dict[SSAValue, SSAValue]) -> None:
        """Clone ``op`` before ``loop`` with ``mapping``: folded when its operands allow, an
        equal ``arith`` op's results when one was computed already."""
        operands = [mapping.get(v, v) for v in op.operands]
        folded = self.fold_constants(loop, op, operands)
        first_key = None
        if folded is None and _pure(op):  # an equal op already made: no clone
            first_key = (loop.parent_block(), op.name, tuple(operands),
                         tuple(sorted(op.properties.items())), tuple(r.type for r in op.results))
            folded = self.known.get(first_key)
        if folded is not None:
            for result, value in zip(op.results, folded):
                mapping[result] = value
            return
        new = op.clone(value_mapper=mapping)
        folded = self.fold(loop, new)
        key = None
        if folded is None and _pure(new):
            key = (loop.parent_block(), new.name, tuple(new.operands),
                   tuple(sorted(new.properties.items())), tuple(r.type for r in new.results))
            folded = self.known.get(key)
            if folded is None and first_key is not None:
                self.known[first_key] = tuple(new.results)
        if folded is None:
            loop.parent_block().insert_op_before(new, loop)
            if key is not None:
                self.known[key] = tuple(new.results)
            return
        for result, value in zip(op.results, folded):
            mapping[result] = value
        new.erase(safe_erase=False)

    def fold_constants(self, loop: scf.ForOp, op: Operation,
                       operands: list[SSAValue]) -> list[SSAValue] | None:
        """Without cloning (the common cases, cheap): an integer constant, an index cast of
        one, ``+ - *`` of two, ``x + 0``, ``x * 1``; None otherwise."""
        if isinstance(op, arith.ConstantOp):
            value = constant_value(op.result)
            if isinstance(value, int) and isinstance(op.result.type, (IndexType, IntegerType)):
                return [self.constant(loop, value, op.result.type)]
            return None
        values = [constant_value(v) for v in operands]
        if isinstance(op, arith.IndexCastOp) and isinstance(values[0], int):
            return [self.constant(loop, values[0], op.results[0].type)]
        calc = _EXACT.get(type(op))
        if calc is None:
            return None
        a, b = values
        if isinstance(a, int) and isinstance(b, int):
            result = calc(a, b)
            bits = 64 if isinstance(op.results[0].type, IndexType) else \
                op.results[0].type.width.data
            if -(1 << (bits - 1)) <= result < (1 << (bits - 1)):
                return [self.constant(loop, result, op.results[0].type)]
            return None
        unit = 1 if isinstance(op, arith.MuliOp) else 0
        if b == unit:
            return [operands[0]]
        if a == unit and not isinstance(op, arith.SubiOp):
            return [operands[1]]
        return None

    def fold(self, loop: scf.ForOp, op: Operation) -> list[SSAValue] | None:
        """The values ``op`` folds to (constants placed before ``loop``), or None."""
        if isinstance(op, arith.ConstantOp):
            value = constant_value(op.result)
            if isinstance(value, int) and isinstance(op.result.type, (IndexType, IntegerType)):
                return [self.constant(loop, value, op.result.type)]
            return None
        if isinstance(op, arith.IndexCastOp):
            value = constant_value(op.input)
            return None if value is None else [self.constant(loop, value, op.result.type)]
        self.reassociate(loop, op)
        identity = _identity(op)
        if identity is not None:
            return [identity]
        if not all(isinstance(constant_value(v), int) for v in op.operands):
            return None
        folded = self.folder.try_fold(op)
        if folded is None:
            return None
        results, new_ops = folded
        out = []
        for value in results:
            c = constant_value(value)
            out.append(self.constant(loop, c, value.type) if isinstance(c, int) else value)
        for new_op in new_ops:
            new_op.erase(safe_erase=False)
        return out

    def reassociate(self, loop: scf.ForOp, op: Operation) -> None:
        """``(x + c1) + c2`` -> ``x + (c1 + c2)`` in place (one add per index, as an unrolled
        round's ``thread part + constant``); the add keeps the overflow flags both had."""
        if not isinstance(op, arith.AddiOp):
            return
        for side in (0, 1):
            outer_c, add = constant_value(op.operands[1 - side]), op.operands[side].owner
            if not isinstance(outer_c, int) or not isinstance(add, arith.AddiOp):
                continue
            for x, c1 in ((add.lhs, add.rhs), (add.rhs, add.lhs)):
                inner_c = constant_value(c1)
                if isinstance(inner_c, int) and not isinstance(constant_value(x), int):
                    op.operands[side] = x
                    op.operands[1 - side] = self.constant(loop, inner_c + outer_c,
                                                          op.result.type)
                    flags = set(op.overflow_flags.data) & set(add.overflow_flags.data)
                    op.properties["overflowFlags"] = arith.IntegerOverflowAttr(flags or "none")
                    return

    def constant(self, loop: scf.ForOp, value: int, t) -> SSAValue:
        """One ``arith.constant`` per block, value and type (placed before ``loop``)."""
        key = (loop.parent_block(), value, t)
        if key not in self.known:
            op = arith.ConstantOp(IntegerAttr(value, t))
            loop.parent_block().insert_op_before(op, loop)
            self.known[key] = op.result
        return self.known[key]


_EXACT = {arith.AddiOp: lambda a, b: a + b, arith.SubiOp: lambda a, b: a - b,
          arith.MuliOp: lambda a, b: a * b}
"""Integer ops `Expander.fold_constants` computes (exact; a result out of range is left to
the op)."""


def _pure(op: Operation) -> bool:
    """An ``arith`` op without regions (equal ones compute equal values)."""
    return op.dialect_name() == "arith" and not op.regions


def _identity(op: Operation) -> SSAValue | None:
    """``x`` for ``x + 0``, ``0 + x``, ``x - 0``, ``x * 1`` and ``1 * x``."""
    unit = {arith.AddiOp: 0, arith.SubiOp: 0, arith.MuliOp: 1}.get(type(op))
    if unit is None:
        return None
    lhs, rhs = op.operands
    if constant_value(rhs) == unit:
        return lhs
    if constant_value(lhs) == unit and not isinstance(op, arith.SubiOp):
        return rhs
    return None


def _local(memory: SSAValue) -> bool:
    t = memory.type
    return isinstance(t, BufferType) and t.scope_name == LOCAL


def _expanded_loops(op: Operation) -> list[scf.ForOp]:
    """The loops under ``op`` that `needs_expansion`, innermost first, siblings in program
    order. The list stays right while they are expanded in this order: an expansion copies
    only loops that need none (the ones that did were expanded before their parent), and an
    outer loop's need does not change when its inner loops are expanded."""
    out: list[scf.ForOp] = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                out += _expanded_loops(inner)
                if isinstance(inner, scf.ForOp) and needs_expansion(inner):
                    out.append(inner)
    return out


def _context() -> Context:
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(arith.Arith)
    return ctx


__all__ = ["MAX_ITERATIONS", "Expander", "expand_register_loops", "needs_expansion"]
