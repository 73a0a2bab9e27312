"""Atomic read-modify-write on global or shared memory (CUDA C++ Programming Guide, "Atomic
Functions"): ``cuda.atomic <op>`` and ``cuda.atomic_cas``. Each returns the old value.

The element ``index`` is a flat (row-major) element offset into the buffer. ``scope`` is the
set of threads the atomicity holds for: ``cta`` (``atomicAdd_block``), ``gpu`` (default,
``atomicAdd``) or ``sys`` (``atomicAdd_system``, host and peers too).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr
from xdsl.irdl import AnyAttr, operand_def, opt_prop_def, prop_def, result_def

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.rules import RuleError

ATOMIC_SCOPES = ("cta", "gpu", "sys")
ATOMIC_TYPES: dict[str, dict[str, int]] = {
    "add": {"i32": 0, "ui32": 0, "i64": 0, "f32": 0, "f64": 0, "f16": 0, "bf16": 80},
    "max": {"i32": 0, "ui32": 0, "i64": 0},
    "min": {"i32": 0, "ui32": 0, "i64": 0},
    "exch": {"i32": 0, "ui32": 0, "i64": 0, "f32": 0},
    "and": {"i32": 0, "ui32": 0, "i64": 0},
    "or": {"i32": 0, "ui32": 0, "i64": 0},
    "xor": {"i32": 0, "ui32": 0, "i64": 0},
    "cas": {"i16": 70, "ui16": 70, "i32": 0, "ui32": 0, "i64": 0},
}
"""Element types of each atomic, with the lowest sm beyond sm_75 where one is needed (bf16
atomicAdd: 8.x). i64 stands for CUDA's (unsigned) long long."""


class _AtomicOp(CudaOp):
    """An atomic on ``memory[index]`` (subclasses declare the operands: IRDL orders a
    subclass's fields before its base's)."""

    KEYWORDS: ClassVar = {"scope": "name"}
    RESULT_LIKE: ClassVar = "value"
    ATOMIC: ClassVar[str | None] = None
    """The operation (None: the head word names it)."""
    VALUES: ClassVar[tuple[str, ...]] = ("value",)
    """Operands of the buffer's element type."""

    def verify_cuda(self, launch: checks.Launch) -> None:
        mem = checks.buffer("memory", self.memory)
        checks.check_index("index", self.index)
        checks.check_in_bounds(self.index, 1, mem)
        checks.check_choice("scope", self.name_prop("scope", "gpu") or "gpu", ATOMIC_SCOPES)
        atomic = self.ATOMIC or self.head
        types = ATOMIC_TYPES[atomic]
        got = checks.type_name(mem.element_type)
        if got not in types:
            raise RuleError(f"atomic {atomic} on {got} does not exist; it takes "
                            f"{checks.one_of(list(types))}")
        if types[got]:
            checks.require_sm(launch, types[got], f"atomic {atomic} on {got}")
        for name in self.VALUES:
            checks.check_same_type(f"operand '{name}'", mem.element_type,
                                   getattr(self, name).type, "use the buffer's element type")

@irdl_op_definition
class AtomicOp(_AtomicOp):
    """``old = memory[index]; memory[index] = old <op> value``, atomically: add, max, min, exch
    (store ``value``), and, or, xor.

    ``%old = cuda.atomic add %counts, %i, %one : !tirx.buffer<256xi32, global>, index, i32 ->
    i32``
    """

    name = "cuda.atomic"
    HEAD: ClassVar = ("op", ("add", "max", "min", "exch", "and", "or", "xor"))
    op = prop_def(StringAttr)
    memory = operand_def(AnyAttr())
    index = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    scope = opt_prop_def(StringAttr)
    result = result_def(AnyAttr())


@irdl_op_definition
class AtomicCasOp(_AtomicOp):
    """Compare and swap: ``old = memory[index]; if old == compare: memory[index] = value``,
    atomically; returns ``old``.

    ``%old = cuda.atomic_cas %lock, %i, %zero, %one scope cta : !tirx.buffer<1xi32, shared>,
    index, i32, i32 -> i32``
    """

    name = "cuda.atomic_cas"
    ATOMIC: ClassVar = "cas"
    VALUES: ClassVar = ("compare", "value")
    memory = operand_def(AnyAttr())
    index = operand_def(AnyAttr())
    compare = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    scope = opt_prop_def(StringAttr)
    result = result_def(AnyAttr())


ATOMIC_OPS = (AtomicOp, AtomicCasOp)
