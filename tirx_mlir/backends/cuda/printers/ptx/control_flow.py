"""Structured control flow as labels and branches (the `ControlFlow` mixin of the PTX printer).

* ``scf.for``: the induction variable counts in its own register from the lower bound; the head
  tests ``setp.ge.s<width> iv, ub`` (scf.for's signed comparison) and branches to the end;
  the body, the carried values' update, ``add iv, step`` and ``bra.uni`` back to the head; a
  loop marked ``cuda.nounroll`` (`loop_hints`) has ``.pragma "nounroll";`` in its head;
* ``scf.if``: ``@!cond bra else``; then-body; ``bra.uni end``; else-body; ``end:``;
* ``scf.while``: ``head:``; before-body; the condition's values to the results and the
  after-region's arguments; ``@!cond bra end``; after-body; yield into the before-arguments;
  ``bra.uni head``.

Loop-carried values and results live in the registers of the block arguments (a for loop's
results are its carried registers); ``scf.yield`` writes them as a parallel assignment (through
temporaries when several values move, so ``yield %q, %p`` swaps). Labels are
``$L__<kind><n>``, numbered per kernel; an unconditional ``bra.uni`` is uniform by
construction (every active thread takes it).
Deferred moves into promoted local registers (local_registers.py) are printed before every
label, parallel assignment and region end: control flow joins there.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from xdsl.dialects import scf
from xdsl.ir import Block, SSAValue

from tirx_mlir.backends.cuda.loop_hints import is_nounroll
from tirx_mlir.backends.cuda.printers.ptx import registers as regs
from tirx_mlir.type_tests import IsInstance

_IS_YIELD = IsInstance(scf.YieldOp)
_IS_CONDITION = IsInstance(scf.ConditionOp)


class ControlFlow:
    """``emit_scf_*`` and the parallel assignment they share."""

    def assign(self, targets: list[SSAValue], sources: list[SSAValue]) -> None:
        """targets := sources, as a parallel assignment (block arguments of a loop)."""
        self.flush_locals()  # a join: promoted elements in their registers
        pairs = [(t, s) for t, s in zip(targets, sources)
                 if self.regs_of(t) != self.regs_of(s)]
        staged = []
        for t, s in pairs:
            classes = regs.value_classes(s.type) or []
            if len(pairs) > 1:
                temps = [self.temp(c) for c in classes]
                for tmp, src, c in zip(temps, self.regs_of(s), classes):
                    self.move(tmp, src, c)
                staged.append((t, temps, classes))
            else:
                staged.append((t, self.regs_of(s), classes))
        for t, srcs, classes in staged:
            for dst, src, c in zip(self.regs_of(t), srcs, classes):
                self.move(dst, src, c)

    def label(self, kind: str) -> str:
        self.labels += 1
        return f"$L__{kind}{self.labels}"

    def place_label(self, label: str) -> None:
        self.flush_locals()
        with self.dedented():
            self.line(f"{label}:")

    @contextmanager
    def dedented(self) -> Iterator[None]:
        self._indent -= 1
        try:
            yield
        finally:
            self._indent += 1

    def emit_scf_for(self, op: scf.ForOp) -> None:
        body = op.body.block
        iv, carried = body.args[0], list(body.args[1:])
        cls = self.cls_of(iv)
        t = cls.bits
        self.move(self.define(iv), self.reg(op.lb), cls)
        for arg, init, result in zip(carried, op.iter_args, op.results):
            self.define_all(arg)
            self.regs[id(result)] = self.regs[id(arg)]
        self.assign(carried, list(op.iter_args))
        head, end = self.label("for"), self.label("for_end")
        pred = self.temp(regs.PRED)
        self.place_label(head)
        if is_nounroll(op):
            self.line('.pragma "nounroll";')
        self.line(f"setp.ge.s{t} {pred}, {self.reg(iv)}, {self.reg(op.ub)};")
        self.line(f"@{pred} bra {end};")
        self.emit_region_body(body, carried)
        self.line(f"add.s{t} {self.reg(iv)}, {self.reg(iv)}, {self.reg(op.step)};")
        self.line(f"bra.uni {head};")
        self.place_label(end)

    def emit_region_body(self, block: Block, targets: list[SSAValue]) -> None:
        """A region's ops; its terminator's operands are assigned to ``targets``."""
        inner = block.first_op
        while inner is not None:  # `block.ops` without its iterator's cost per op
            if _IS_YIELD(inner):
                self.assign(targets, list(inner.operands))
            elif _IS_CONDITION(inner):
                raise self.fail("scf.condition outside scf.while", inner)
            else:
                self.emit_op(inner)
            inner = inner.next_op
        self.flush_locals()

    def emit_scf_if(self, op: scf.IfOp) -> None:
        for result in op.results:
            self.define_all(result)
        results = list(op.results)
        orelse, end = self.label("else"), self.label("if_end")
        has_else = bool(op.false_region.blocks)
        self.line(f"@!{self.reg(op.cond)} bra {orelse if has_else else end};")
        self.emit_region_body(op.true_region.block, results)
        if has_else:
            self.line(f"bra.uni {end};")
            self.place_label(orelse)
            self.emit_region_body(op.false_region.block, results)
        self.place_label(end)

    def emit_scf_while(self, op: scf.WhileOp) -> None:
        before, after = op.before_region.block, op.after_region.block
        for arg in before.args:
            self.define_all(arg)
        for value in (*after.args, *op.results):
            self.define_all(value)
        self.assign(list(before.args), list(op.arguments))
        head, end = self.label("while"), self.label("while_end")
        self.place_label(head)
        for inner in before.ops:
            if isinstance(inner, scf.ConditionOp):
                forwarded = list(inner.args)
                self.assign(list(op.results), forwarded)
                self.assign(list(after.args), forwarded)
                self.line(f"@!{self.reg(inner.condition)} bra {end};")
            else:
                self.emit_op(inner)
        self.emit_region_body(after, list(before.args))
        self.line(f"bra.uni {head};")
        self.place_label(end)
