"""Register loops printed from their expansion plan, without copying the module (the
`DirectLoops` mixin of the PTX printer).

`prepare_register_loops` asks expansion_plan.py for a `Plan`; when there is one, the module
is printed as it is, and each outermost expanded loop prints as its records, in order:

* a placed integer constant is the ``mov`` (``setp`` for i1) `ArithOps.emit_arith_constant`
  prints for the `arith_constant` the copy would hold;
* a clone prints through its original op's ``emit_`` method: each operand of the op is first
  bound to the registers of the record's operand (`PtxFrame.regs`; a value of the input
  outside the expanded loops stands for itself), a ptx op's results are unbound so the
  method defines fresh ones (the other methods define them anyway), and after it the
  record's results take the registers the method gave; where a reassociated add's operand is
  such a value, its binding is undone after the op;
* what the printer asks of the IR beyond registers is answered for the expanded program:
  `value_of` (the record's token for an operand or result of the op), `defining` and
  `constant_of` (the records' ops and constants), `use_count` and `promotable` (the plan's
  use lists), `accumulates_in_place` (the records between a load and its store),
  `enclosing_loop` and `defined_inside` (the records stand in the outermost loop's block),
  `divisor_constant`.

Without a plan (no register loops, or one the plan does not cover) the printer expands a copy
(unroll.py). The text is the same either way: tests/backends/cuda/printers/ptx/
test_direct_loops.py prints both ways.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.printers.ptx import registers as regs
from tirx_mlir.backends.cuda.printers.ptx.arith import int_width
from tirx_mlir.backends.cuda.printers.ptx.constant_division import constant_divisor
from tirx_mlir.backends.cuda.printers.ptx.expansion_plan import (Plan, Rec, Tok, _defining,
                                                                 plan_register_loops,
                                                                 token_constant)
from tirx_mlir.backends.cuda.printers.ptx.local_registers import covers, promotable
from tirx_mlir.backends.cuda.printers.ptx.unroll import _expanded_loops
from tirx_mlir.dialects.tirx.attributes import BufferType

_MISSING = object()


class DirectLoops:
    """Prints a `Plan`'s records in place of their loops (module docstring)."""

    DIRECT_LOOPS = True
    """Whether register loops print from a plan (False: always the copy, as tests compare)."""

    def __init__(self, module) -> None:
        super().__init__(module)
        self.plan: Plan | None = None
        self.record: Rec | None = None
        """The record being printed (None: an op of the module)."""
        self.records: list[Rec] = []
        self.position = 0
        """The printed record's place in `records` (its outermost loop's)."""
        self.outer_loop: scf.ForOp | None = None

    def prepare_register_loops(self, loops=None) -> None:
        if not self.DIRECT_LOOPS:
            return super().prepare_register_loops(loops)
        loops = _expanded_loops(self.module) if loops is None else loops
        self.plan = plan_register_loops(self.module, self.fail, loops) if loops else None
        if self.plan is None and loops:  # loops the plan does not cover: the copy
            super().prepare_register_loops(loops)

    def keeps_loop(self, op: scf.ForOp) -> bool:
        """A loop the plan prints in place is straight-line code (`LocalRegisters`)."""
        return self.plan is not None and id(op) in self.plan.records

    def release(self) -> None:
        """The plan let go (`Plan.release`); the printer prints nothing after it."""
        if self.plan is not None:
            self.plan.release()
            self.plan = None
        super().release()

    # ---- printing the records ----
    def emit_scf_for(self, op: scf.ForOp) -> None:
        records = None if self.plan is None else self.plan.records.get(id(op))
        if records is None:
            return super().emit_scf_for(op)
        saved = self.records, self.position, self.outer_loop
        self.records, self.outer_loop = records, op
        try:
            for i, rec in enumerate(records):
                self.position = i
                if rec.op is None:
                    self.emit_placed_constant(rec)
                else:
                    self.emit_record(rec)
        finally:
            self.record = None
            self.records, self.position, self.outer_loop = saved

    def emit_placed_constant(self, rec: Rec) -> None:
        """`ArithOps.emit_arith_constant` of the integer constant ``rec`` places."""
        t = rec.type
        value = rec.printed
        result = rec.results[0]
        if int_width(t) == 1:
            self.line(f"setp.ne.u32 {self.define(result)}, {1 if value else 0}, 0;")
            return
        literal = self.checked_int(value, None)
        self.line(f"mov.b{max(16, int_width(t))} {self.define(result)}, {literal};")

    def emit_record(self, rec: Rec) -> None:
        op = rec.op
        registers = self.regs  # keyed by id: the op's values and the plan's tokens are alive
        restore = [] if rec.props is not None else None
        for orig, token in zip(op._operands, rec.operands):
            if orig is token:
                continue
            names = registers.get(id(token))
            if names is None:
                raise self.fail("this value has no register in the printed PTX (it is defined "
                                "by an op the PTX printer does not print as a value)", op)
            if restore is not None:
                restore.append((id(orig), registers.get(id(orig), _MISSING)))
            registers[id(orig)] = names
        if self.pending and not self.keeps_locals(op):
            self.flush_locals()
        kind = rec.kind
        if _is_ptx(kind):  # `emit_ptx_op` keeps a result that has registers
            for result in op.results:
                registers.pop(id(result), None)
        method = _METHODS.get((type(self), kind))
        if method is None:
            method = _METHODS[(type(self), kind)] = _method(type(self), op)
        self.record = rec
        method(self, op)
        self.record = None
        for result, token in zip(op.results, rec.results):
            names = registers.get(id(result))
            if names is not None:
                registers[id(token)] = names
        for key, names in reversed(restore or ()):
            if names is _MISSING:
                registers.pop(key, None)
            else:
                registers[key] = names

    # ---- what the printer asks of the expanded program ----
    def value_of(self, value: SSAValue):
        rec = self.record
        if rec is None:
            return value
        for orig, token in zip(rec.op._operands, rec.operands):
            if orig is value:
                return token
        for orig, token in zip(rec.op.results, rec.results):
            if orig is value:
                return token
        return value

    @staticmethod
    def defining(value):
        return _defining(value)

    @staticmethod
    def constant_of(value):
        return token_constant(value)

    def use_count(self, value) -> int:
        if self.plan is None:
            return super().use_count(value)
        return len(self.plan.use_list(self.value_of(value)))

    def enclosing_loop(self, user: Operation) -> scf.ForOp | None:
        if self.record is None:
            return super().enclosing_loop(user)
        return super().enclosing_loop(self.outer_loop)  # the records stand in its block

    def defined_inside(self, loop: scf.ForOp, value) -> bool:
        if isinstance(value, Tok):  # a record stands in the block of an outermost loop,
            return True             # which `loop` (a loop around it) holds
        return super().defined_inside(loop, value)

    def divisor_constant(self, divisor: SSAValue, width: int) -> int | None:
        token = self.value_of(divisor)
        if not isinstance(token, Tok):
            return constant_divisor(token, width)
        rec = token.rec
        if rec.op is None:
            return rec.printed % 2**width or None
        return constant_divisor(rec.op.results[0], width)

    def index_constant(self, index: SSAValue) -> int | None:
        return _index(self.value_of(index))

    def promotable(self, value: SSAValue) -> bool:
        if self.plan is None:
            return super().promotable(value)
        t = value.type
        if not isinstance(t, BufferType) or not promotable_type(t):
            return False
        for user, _ in self.plan.use_list(value):
            if isinstance(user, Rec):
                if user.kind not in (LoadOp, StoreOp) or user.operands[0] is not value or \
                        not isinstance(token_constant(user.operands[1]), int):
                    return False
            elif not isinstance(user, (LoadOp, StoreOp)) or user._operands[0] is not value \
                    or checks.constant_index(user._operands[1]) is None:
                return False
        return True

    def accumulates_in_place(self, load: Operation) -> bool:
        rec = self.record
        if rec is None:
            return super().accumulates_in_place(load)
        memory, index = rec.operands[0], rec.operands[1]
        element = _index(index)
        value = rec.results[0]
        uses = self.plan.use_list(value)
        if len(uses) != 1 or not isinstance(uses[0][0], Rec):
            return False
        user = uses[0][0]
        if user.kind is not StoreOp:  # a ptx op in a planned loop has no tied operands
            return False
        stored_to, at, stored = user.operands
        if stored_to is not memory or stored is not value or _index(at) != element:
            return False
        for node in self.records[self.position + 1:]:
            if node is user:
                return True
            if node.kind in (LoadOp, StoreOp) and node.operands[0] is memory and \
                    covers(node.kind is LoadOp, node.operands, node.results,
                           _index(node.operands[1]), element):
                return False
        return False


def _method(printer: type, op: Operation):
    """What `PtxFrame.emit_op` calls for an op of ``op``'s class (itself when the printer
    has no method: it raises the located error)."""
    if isinstance(op, PtxOp):
        return printer.emit_ptx_op
    method = None if isinstance(op, UnregisteredOp) else \
        getattr(printer, "emit_" + op.name.replace(".", "_"), None)
    return printer.emit_op if method is None else method


_METHODS: dict[tuple[type, type], object] = {}
"""(printer class, op class) -> `_method`."""


def _is_ptx(kind: type) -> bool:
    known = _PTX.get(kind)
    if known is None:
        known = _PTX[kind] = issubclass(kind, PtxOp)
    return known


_PTX: dict[type, bool] = {}


def promotable_type(t: BufferType) -> bool:
    """`promotable`'s test of the array's type (a local array of a register class)."""
    from tirx_mlir.backends.cuda.memory import LOCAL

    if t.scope_name != LOCAL or t.get_layout() is not None:
        return False
    cls = regs.scalar_class(t.element_type)
    return cls is not None and cls is not regs.PRED


def _index(value) -> int | None:
    constant = token_constant(value)
    return constant if isinstance(constant, int) else None


__all__ = ["DirectLoops", "promotable"]
