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
  unrolled the rounds itself;
* outer loops first: an inner loop's clones are then found and expanded in turn;
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
    if _next_loop(module) is None:
        return module
    module = module.clone()
    folder = Folder(_context())
    while (loop := _next_loop(module)) is not None:
        expand(loop, folder, fail)
    return module


def expand(loop: scf.ForOp, folder: Folder, fail: Fail) -> None:
    """Replace ``loop`` by one folded copy of its body per iteration."""
    bounds = [constant_value(v) for v in (loop.lb, loop.ub, loop.step)]
    if not all(isinstance(x, int) for x in bounds):
        raise fail("this loop indexes a thread's local array (registers in PTX) with its "
                   "induction variable, so it must be unrolled, but its bounds are not "
                   "constants", loop)
    lb, ub, step = bounds
    trips = len(range(lb, ub, step)) if step > 0 else 0
    if trips > MAX_ITERATIONS:
        raise fail(f"this loop indexes a thread's local array (registers in PTX) with its "
                   f"induction variable, so it must be unrolled, but it has {trips} "
                   f"iterations (at most {MAX_ITERATIONS})", loop)
    block = loop.body.block
    iv, carried = block.args[0], block.args[1:]
    constants: dict[tuple[int, object], SSAValue] = {}
    values: list[SSAValue] = list(loop.iter_args)
    for i in range(lb, ub, step) if step > 0 else ():
        mapping: dict[SSAValue, SSAValue] = dict(zip(carried, values))
        mapping[iv] = _constant(loop, i, iv.type, constants)
        for op in block.ops:
            if isinstance(op, scf.YieldOp):
                values = [mapping.get(v, v) for v in op.operands]
                break
            _clone_folded(loop, op, mapping, folder, constants)
    for result, value in zip(loop.results, values):
        result.replace_by(value)
    loop.detach()
    loop.erase()


def _clone_folded(loop: scf.ForOp, op: Operation, mapping: dict[SSAValue, SSAValue],
                  folder: Folder, constants) -> None:
    """Clone ``op`` before ``loop`` with ``mapping``, folded when its operands allow."""
    new = op.clone(value_mapper=mapping)
    folded = _fold(new, folder, loop, constants)
    if folded is None:
        loop.parent_block().insert_op_before(new, loop)
        return
    for result, value in zip(op.results, folded):
        mapping[result] = value
    new.erase(safe_erase=False)


def _fold(op: Operation, folder: Folder, loop: scf.ForOp, constants) -> list[SSAValue] | None:
    """The values ``op`` folds to (constants materialised before ``loop``), or None."""
    if isinstance(op, arith.ConstantOp):
        value = constant_value(op.result)
        if isinstance(value, int) and isinstance(op.result.type, (IndexType, IntegerType)):
            return [_constant(loop, value, op.result.type, constants)]
        return None
    if isinstance(op, arith.IndexCastOp):
        value = constant_value(op.input)
        return None if value is None else [_constant(loop, value, op.result.type, constants)]
    identity = _identity(op)
    if identity is not None:
        return [identity]
    if not all(isinstance(constant_value(v), int) for v in op.operands):
        return None
    folded = folder.try_fold(op)
    if folded is None:
        return None
    results, new_ops = folded
    out = []
    for value in results:
        c = constant_value(value)
        out.append(_constant(loop, c, value.type, constants) if isinstance(c, int) else value)
    for new_op in new_ops:
        new_op.erase(safe_erase=False)
    return out


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


def _constant(loop: scf.ForOp, value: int, t, constants) -> SSAValue:
    """One ``arith.constant`` per (value, type), placed before ``loop``."""
    key = (value, t)
    if key not in constants:
        op = arith.ConstantOp(IntegerAttr(value, t))
        loop.parent_block().insert_op_before(op, loop)
        constants[key] = op.result
    return constants[key]


def _local(memory: SSAValue) -> bool:
    t = memory.type
    return isinstance(t, BufferType) and t.scope_name == LOCAL


def _next_loop(module: ModuleOp) -> scf.ForOp | None:
    return next((op for op in module.walk() if isinstance(op, scf.ForOp) and
                 needs_expansion(op)), None)


def _context() -> Context:
    ctx = Context(allow_unregistered=True)
    ctx.load_dialect(arith.Arith)
    return ctx


__all__ = ["MAX_ITERATIONS", "expand", "expand_register_loops", "needs_expansion"]
