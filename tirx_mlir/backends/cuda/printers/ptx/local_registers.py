"""A thread's local array in registers (the `LocalRegisters` mixin of the PTX printer).

After tile dispatch a register tile is one ``tirx.alloc : !tirx.buffer<N x T, local>`` per
thread, read and written with ``cuda.load`` / ``cuda.store`` at constant indices (a rolled
loop's affine indices become constants first: unroll.py expands the loop). Such an array
(every use a ``cuda.load`` / ``cuda.store`` of it at a constant index) is **promoted**: each
element is a register of its type's class (registers.py: f32 ``.f32``, f16/bf16/i16 ``.b16``,
i32 ``.b32``...), declared together as ``.reg .f32 %acc_<8>;`` (``%acc_0`` .. ``%acc_7``); a
load is a ``mov`` per element into the result's registers and a store a ``mov`` per element
back, 16-bit pairs (``vector<2xf16>``, one b32 register) packed and unpacked with ``mov.b32
{lo, hi}``. ptxas folds the moves away. A scalar element loaded only to be updated in place
and stored back (`accumulates_in_place`: the value flows through read-write operands of ptx
ops of the block, a wgmma accumulator chain, into a store to the same element, and nothing else
touches the element meanwhile) moves nothing: the chain runs on the element's register. A wgmma
group left in flight across the store (dispatch/wgmma_in_flight.py) would otherwise have its
accumulators read by the moves, which ptxas answers by serialising the wgmmas (advisory C7514).
Any other array (a dynamic index, an address taken for
a ptx op) stays a ``.local`` array accessed with ``ld.local`` / ``st.local`` (printer.py).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.dialects.ptx.render import tied_values
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


def accumulates_in_place(load: Operation) -> bool:
    """Whether the value ``load`` reads from a promoted array's element only flows, through
    read-write (tied) operands of ptx ops of its block, into a store back to that element, and
    no other access of the element (nor an op with regions) comes in between (module
    docstring)."""
    memory, index = load._operands[:2]  # noqa: SLF001 - op.memory, op.index, cheaper
    element = checks.constant_index(index)
    block = load.parent_block()
    value = load.results[0]
    while True:
        if value.uses.get_length() != 1:
            return False
        user = next(iter(value.uses)).operation
        if user.parent_block() is not block:
            return False
        if isinstance(user, StoreOp):
            stored_to, at, stored = user._operands  # noqa: SLF001
            if stored_to is not memory or stored is not value or \
                    checks.constant_index(at) != element:
                return False
            break
        if not isinstance(user, PtxOp):
            return False
        after = [result for result, operand in tied_values(user) if operand is value]
        if len(after) != 1:
            return False
        value = after[0]
    node = load.next_op
    while node is not user:
        if node.regions:
            return False
        if isinstance(node, (LoadOp, StoreOp)) and node._operands[0] is memory and \
                covers(isinstance(node, LoadOp), node._operands, node.results,  # noqa: SLF001
                       checks.constant_index(node._operands[1]), element):  # noqa: SLF001
            return False
        node = node.next_op
    return True


def covers(is_load: bool, operands, results, first: int | None, element: int) -> bool:
    """Whether a cuda.load (``is_load``) or cuda.store of a promoted array at constant index
    ``first`` (None: unknown) reaches ``element``: a vector access moves ``lanes`` elements
    from ``first`` on."""
    if first is None:
        return True
    accessed = results[0].type if is_load else operands[2].type
    return first <= element < first + checks.lanes(accessed)[0]


class LocalRegisters:
    """``tirx.alloc`` in local, ``cuda.load`` / ``cuda.store`` of a promoted array."""

    def __init__(self, module) -> None:
        super().__init__(module)
        self.promoted: dict[SSAValue, tuple[list[str], regs.RegClass]] = {}
        """Promoted local array -> its element registers and their class."""

    def promotable(self, value: SSAValue) -> bool:
        """`promotable` (direct_loops.py answers for arrays its records access)."""
        return promotable(value)

    def accumulates_in_place(self, load: Operation) -> bool:
        """`accumulates_in_place` (direct_loops.py answers for the records it prints)."""
        return accumulates_in_place(load)

    def index_constant(self, index: SSAValue) -> int | None:
        """The constant an access's index operand is, or None."""
        return checks.constant_index(self.value_of(index))

    def emit_tirx_alloc(self, op: Operation) -> None:
        value = op.results[0]
        if value.type.scope_name == LOCAL and (why := checks.local_array_error(value.type)):
            raise self.fail(why, op)
        if not self.promotable(value):
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
        first = self.index_constant(index)
        return elements[first:first + n], self.regs_of(value), cls

    def emit_cuda_load(self, op: Operation) -> None:
        if op._operands[0] not in self.promoted:  # noqa: SLF001 - op.memory, cheaper
            return super().emit_cuda_load(op)
        result, = op.results
        if checks.lanes(result.type)[0] == 1 and self.accumulates_in_place(op):
            elements, _ = self.promoted[op._operands[0]]  # noqa: SLF001
            self.regs[result] = [elements[self.index_constant(op._operands[1])]]  # noqa: SLF001
            return
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
                self.move(element, name, cls)  # none where the value is the element's own
            return
        for k, name in enumerate(names):
            self.line(f"mov.b32 {{{elements[2 * k]}, {elements[2 * k + 1]}}}, {name};")


__all__ = ["LocalRegisters", "covers", "promotable"]
