"""A thread's local array in registers (the `LocalRegisters` mixin of the PTX printer).

After tile dispatch a register tile is one ``tirx.alloc : !tirx.buffer<N x T, local>`` per
thread, read and written with ``cuda.load`` / ``cuda.store`` at constant indices (a rolled
loop's affine indices become constants first: unroll.py expands the loop). Such an array
(every use a ``cuda.load`` / ``cuda.store`` of it at a constant index) is **promoted**: each
element is a register of its type's class (registers.py: f32 ``.f32``, f16/bf16/i16 ``.b16``,
i32 ``.b32``...), declared together as ``.reg .f32 %acc_<8>;`` (``%acc_0`` .. ``%acc_7``); a
load is a ``mov`` per element into the result's registers and a store a ``mov`` per element
back, 16-bit pairs (``vector<2xf16>``, one b32 register) packed and unpacked with ``mov.b32
{lo, hi}``. ptxas folds the moves away. Any other array (a dynamic index, an address taken for
a ptx op) stays a ``.local`` array accessed with ``ld.local`` / ``st.local`` (printer.py).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.memory import LOCAL
from tirx_mlir.backends.cuda.printers.ptx import registers as regs
from tirx_mlir.dialects.tirx.attributes import BufferType


def promotable(value: SSAValue) -> bool:
    """Every use of the local array ``value`` is a cuda.load / cuda.store of it at a constant
    index, and its elements have a register class."""
    t = value.type
    if not isinstance(t, BufferType) or t.scope_name != LOCAL or t.get_layout() is not None:
        return False
    cls = regs.scalar_class(t.element_type)
    if cls is None or cls is regs.PRED:
        return False
    for use in value.uses:
        op = use.operation
        if not isinstance(op, (LoadOp, StoreOp)):
            return False
        memory, index, *_ = op._operands  # noqa: SLF001 - op.memory, op.index, cheaper
        if memory is not value or checks.constant_index(index) is None:
            return False
    return True


class LocalRegisters:
    """``tirx.alloc`` in local, ``cuda.load`` / ``cuda.store`` of a promoted array."""

    def __init__(self, module) -> None:
        super().__init__(module)
        self.promoted: dict[SSAValue, tuple[list[str], regs.RegClass]] = {}
        """Promoted local array -> its element registers and their class."""

    def emit_tirx_alloc(self, op: Operation) -> None:
        value = op.results[0]
        if not promotable(value):
            return super().emit_tirx_alloc(op)
        t = value.type
        cls = regs.scalar_class(t.element_type)
        base = self.namer.fresh(value.name_hint or "local") + "_"
        self.promoted[value] = (self.registers.array(cls, base, t.numel), cls)

    def local_registers(self, op: Operation, value: SSAValue) -> tuple[list[str], list[str],
                                                                       regs.RegClass]:
        """(the array's element registers the access moves, the value's registers, the
        element class)."""
        memory, index, *_ = op._operands  # noqa: SLF001 - op.memory, op.index, cheaper
        elements, cls = self.promoted[memory]
        n = checks.lanes(value.type)[0]
        first = checks.constant_index(index)
        return elements[first:first + n], self.regs_of(value), cls

    def emit_cuda_load(self, op: Operation) -> None:
        if op._operands[0] not in self.promoted:  # noqa: SLF001 - op.memory, cheaper
            return super().emit_cuda_load(op)
        result, = op.results
        self.define_all(result)
        elements, names, cls = self.local_registers(op, result)
        if len(names) == len(elements):
            for name, element in zip(names, elements):
                self.move(name, element, cls)
            return
        for k, name in enumerate(names):  # 16-bit pairs packed in b32 registers
            self.line(f"mov.b32 {name}, {{{elements[2 * k]}, {elements[2 * k + 1]}}};")

    def emit_cuda_store(self, op: Operation) -> None:
        memory, _, value = op._operands  # noqa: SLF001 - op.memory, op.value, cheaper
        if memory not in self.promoted:
            return super().emit_cuda_store(op)
        elements, names, cls = self.local_registers(op, value)
        if len(names) == len(elements):
            for name, element in zip(names, elements):
                self.line(f"mov.{cls.ptx_type} {element}, {name};")
            return
        for k, name in enumerate(names):
            self.line(f"mov.b32 {{{elements[2 * k]}, {elements[2 * k + 1]}}}, {name};")


__all__ = ["LocalRegisters", "promotable"]
