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

A store's ``mov`` is **deferred** (`LocalRegisters.pending`: element register -> the register
holding its newer value) and a load of a pending element reads that register without a ``mov``,
so a value stored and loaded back in straight-line code moves nothing, and a store overwritten
before anything reads it is never printed (the unrolled softmax of a register tile stores and
reloads every element several times per loop trip: flash_attention_sm80 printed 1,022 ``mov``s,
which ptxas folds away at a cost of its own time, bench/README.md). The deferred moves are
printed (`flush_locals`) before anything that is not straight-line code writing fresh registers
only (`keeps_locals`: ``arith``/``math``, ptx ops without read-write operands, loads and stores,
barriers, shuffles, addresses, conversions, a loop the expansion plan prints in place), before a
label, a branch's parallel assignment and a region's end (control_flow.py); before a return
they are dropped. An element
a load updates in place, or reads as 16-bit pairs, is flushed first; a load whose value
reaches a read-write ptx operand gets its own registers (the operand is updated in place).
Any other array (a dynamic index, an address taken for
a ptx op) stays a ``.local`` array accessed with ``ld.local`` / ``st.local`` (printer.py).
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.dialects.ptx.render import tied_values
from tirx_mlir.backends.cuda.memory import LOCAL
from tirx_mlir.backends.cuda.printers.ptx import registers as regs
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.type_tests import IsInstance


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
    memory, index, *_ = load._operands  # noqa: SLF001 - op.memory, op.index, cheaper
    element = checks.constant_index(index)
    block = load.parent_block()
    value = load.results[0]
    while True:
        if value.uses.get_length() != 1:
            return False
        user = next(iter(value.uses)).operation
        if user.parent_block() is not block:
            return False
        if _IS_STORE(user):
            stored_to, at, stored = user._operands  # noqa: SLF001
            if stored_to is not memory or stored is not value or \
                    checks.constant_index(at) != element:
                return False
            break
        if not _IS_PTX(user):
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


_KEEPS_OPS = frozenset(("cuda.sync_threads", "cuda.sync_warp", "cuda.shfl_sync", "cuda.address",
                        "cuda.dynamic_shared", "cuda.block_idx", "cuda.thread_idx", "cuda.pack",
                        "cuda.unpack", "cuda.cvt"))
"""Other ops printed as straight-line code into fresh registers (or none): a barrier, a shuffle,
an address, a special register, a conversion (cuda_ops.py, printer.py)."""
_KEEPS_DIALECTS = frozenset(("arith", "math"))
"""Dialects whose ops the printer prints into fresh registers only (deferred moves stay)."""
_RETURNS = frozenset(("tirx.return", "func.return"))
_PTX_KIND, _LOOP_KIND = "ptx", "loop"
_IS_PTX = IsInstance(PtxOp)
_IS_STORE = IsInstance(StoreOp)
_KEEPS: dict[type, object] = {}
"""op class -> `_keeps_kind` of it (an op's name, dialect and class are its class's)."""


def _keeps_kind(kind: type) -> object:
    """`LocalRegisters.keeps_locals` of an op of class ``kind``: True / False, `_PTX_KIND`
    for a ptx op (whose answer is whether it has read-write operands) or `_LOOP_KIND` for an
    ``scf.for`` (`LocalRegisters.keeps_loop`)."""
    if issubclass(kind, PtxOp):
        return _PTX_KIND
    if issubclass(kind, scf.ForOp):
        return _LOOP_KIND
    if issubclass(kind, (LoadOp, StoreOp)):  # a promoted array's, or ld / st of memory
        return True
    return kind.name in _KEEPS_OPS or kind.dialect_name() in _KEEPS_DIALECTS


class LocalRegisters:
    """``tirx.alloc`` in local, ``cuda.load`` / ``cuda.store`` of a promoted array."""

    DEFER_STORES = True
    """Whether a store's moves wait for a reader (module docstring); False prints them at the
    store, as before (the tests compare what ptxas makes of both)."""

    def __init__(self, module) -> None:
        super().__init__(module)
        self.promoted: dict[int, tuple[list[str], regs.RegClass]] = {}
        """id of a promoted local array -> its element registers and their class (by id, as
        `PtxFrame.regs`: the arrays are values of the printed module)."""
        self.pending: dict[str, tuple[str, regs.RegClass]] = {}
        """Element register -> (the register holding the value stored to it, their class): the
        store's ``mov`` not printed yet (module docstring)."""

    # ---- deferred stores ----
    def flush_locals(self, elements: list[str] | None = None) -> None:
        """Print the deferred moves (of ``elements`` only, when given)."""
        pending = self.pending
        if not pending:
            return
        if elements is None:
            for element, (value, cls) in pending.items():
                self.move(element, value, cls)
            pending.clear()
            return
        for element in elements:
            got = pending.pop(element, None)
            if got is not None:
                self.move(element, got[0], got[1])

    def keeps_locals(self, op: Operation) -> bool:
        """Whether ``op`` prints as straight-line register code that neither reads a promoted
        element's register nor writes a register a deferred move reads (module docstring)."""
        kind = type(op)
        keeps = _KEEPS.get(kind)
        if keeps is None:
            keeps = _KEEPS[kind] = _keeps_kind(kind)
        if keeps is _PTX_KIND:
            return not self.ptx_tied(op)
        if keeps is _LOOP_KIND:
            return self.keeps_loop(op)
        return keeps

    def keeps_loop(self, op: Operation) -> bool:
        """`keeps_locals` of an ``scf.for``: False (control flow); direct_loops.py answers
        True for a loop it prints from its plan (straight-line code)."""
        return False

    def emit_op(self, op: Operation) -> None:
        if self.pending and not self.keeps_locals(op):
            if op.name in _RETURNS:  # nothing reads a register after it
                self.pending.clear()
            else:
                self.flush_locals()
        super().emit_op(op)

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
        self.promoted[id(value)] = (self.registers.array(cls, base, t.numel), cls)

    def local_registers(self, op: Operation, value: SSAValue) -> tuple[list[str], list[str],
                                                                       regs.RegClass]:
        """(the array's element registers the access moves, the value's registers, the
        element class)."""
        memory, index, *_ = op._operands  # noqa: SLF001 - op.memory, op.index, cheaper
        elements, cls = self.promoted[id(memory)]
        n = checks.lanes(value.type)[0]
        first = self.index_constant(index)
        return elements[first:first + n], self.regs_of(value), cls

    def emit_cuda_load(self, op: Operation) -> None:
        # (unpacked: a slice of xDSL's SSAValues is a new SSAValues, made in Python)
        memory, index, *_ = op._operands  # noqa: SLF001 - op.memory, op.index, cheaper
        promoted = self.promoted.get(id(memory))
        if promoted is None:
            return super().emit_cuda_load(op)
        result, = op.results
        all_elements = promoted[0]
        first = self.index_constant(index)
        lanes = checks.lanes(result.type)[0]
        read = all_elements[first:first + lanes]
        if lanes == 1 and self.accumulates_in_place(op):
            self.flush_locals(read)  # the chain updates the element's own register
            self.regs[id(result)] = read
            return
        pending = self.pending
        if pending:
            classes = regs.value_classes(result.type)
            if classes is not None and len(classes) == lanes and \
                    all(e in pending for e in read) and not self._feeds_tied(result):
                self.regs[id(result)] = [pending[e][0] for e in read]
                return
            self.flush_locals(read)
        self.define_all(result)
        elements, names, cls = self.local_registers(op, result)
        if len(names) == len(elements):
            for name, element in zip(names, elements):
                self.move(name, element, cls)
            return
        for k, name in enumerate(names):  # 16-bit pairs packed in b32 registers
            self.line(f"mov.b32 {name}, {{{elements[2 * k]}, {elements[2 * k + 1]}}};")

    def _feeds_tied(self, value: SSAValue) -> bool:
        """Whether a ptx op with read-write operands uses ``value`` (it may update the
        value's register in place, `PtxFrame.emit_ptx_op`)."""
        return any(_IS_PTX(use.operation) and self.ptx_tied(use.operation)
                   for use in value.uses)

    def emit_cuda_store(self, op: Operation) -> None:
        memory, _, value = op._operands  # noqa: SLF001 - op.memory, op.value, cheaper
        if id(memory) not in self.promoted:
            return super().emit_cuda_store(op)
        elements, names, cls = self.local_registers(op, value)
        pending = self.pending
        if len(names) == len(elements):
            for name, element in zip(names, elements):
                if name == element:  # the element's own register (updated in place)
                    pending.pop(element, None)
                else:
                    pending[element] = (name, cls)
            if not self.DEFER_STORES:
                self.flush_locals(elements)
            return
        self.flush_locals(elements)
        for k, name in enumerate(names):
            self.line(f"mov.b32 {{{elements[2 * k]}, {elements[2 * k + 1]}}}, {name};")


__all__ = ["LocalRegisters", "covers", "promotable"]
