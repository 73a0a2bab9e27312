"""``scf`` as C++ control flow: ``for`` loops, ``if`` and ``while (true)`` with one mutable
variable per carried value (loop-carried values, if results, while arguments), updated at the
``scf.yield`` through temporaries when several change at once; a loop marked ``cuda.nounroll``
(`loop_hints`) gets ``#pragma unroll 1``, one marked ``cuda.unroll`` ``#pragma unroll``."""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Operation

from tirx_mlir.backends.cuda.loop_hints import is_nounroll, is_unroll


class ControlFlow:
    """Mixin of `CudaCppPrinter` (uses its names, expressions and types)."""

    def emit_scf_for(self, op: scf.ForOp) -> None:
        iv = op.body.block.args[0]
        self.names[iv] = self.namer.fresh(iv.name_hint or "i")
        self.carried(op.body.block.args[1:], op.iter_args, op.results, op)
        lb, ub, step = self.expr(op.lb), self.expr(op.ub), self.expr(op.step)
        ty = self.value_type(iv.type, op)
        i = self.names[iv]
        if is_nounroll(op):
            self.line("#pragma unroll 1")
        elif is_unroll(op):
            self.line("#pragma unroll")
        self.line(f"for ({ty} {i} = {lb}; {i} < {ub}; {i} += {step}) {{")
        with self.body():
            self.emit_block(op.body.block)
            self.assign_yield(op.body.block, op.body.block.args[1:], op)
        self.line("}")

    def carried(self, args, inits, results, op: Operation) -> None:
        """Loop-carried values (or if results): one mutable variable each."""
        for k, result in enumerate(results):
            name = self.namer.fresh(result.name_hint or f"carried{k}")
            ty = self.value_type(result.type, op)
            init = f" = {self.expr(inits[k])}" if inits else ""
            self.line(f"{ty} {name}{init};")
            self.names[result] = name
            if args:
                self.names[args[k]] = name

    def assign_yield(self, block, targets, op: Operation) -> None:
        terminator = block.last_op
        if not isinstance(terminator, scf.YieldOp) or not terminator.operands:
            return
        values = [self.expr(v) for v in terminator.operands]
        if len(values) == 1:
            self.line(f"{self.names[targets[0]]} = {values[0]};")
            return
        temps = []
        for target, value in zip(targets, values):
            temp = self.namer.fresh(f"{self.names[target]}_next")
            self.line(f"const {self.value_type(target.type, op)} {temp} = {value};")
            temps.append(temp)
        for target, temp in zip(targets, temps):
            self.line(f"{self.names[target]} = {temp};")

    def emit_scf_if(self, op: scf.IfOp) -> None:
        self.carried([], [], op.results, op)
        self.line(f"if ({self.expr(op.cond)}) {{")
        with self.body():
            self.emit_block(op.true_region.block)
            self.assign_yield(op.true_region.block, op.results, op)
        if op.false_region.blocks and (op.results or list(op.false_region.block.ops)[:-1]):
            self.line("} else {")
            with self.body():
                self.emit_block(op.false_region.block)
                self.assign_yield(op.false_region.block, op.results, op)
        self.line("}")

    def emit_scf_while(self, op: scf.WhileOp) -> None:
        """``while (true) { before; if (!cond) break; after }``, with one variable per value
        carried into the before region and one per value the condition passes on."""
        before, after = op.before_region.block, op.after_region.block
        self.carried(before.args, op.arguments, before.args, op)
        condition = before.last_op
        if not isinstance(condition, scf.ConditionOp):
            raise self.fail("the before region of scf.while must end in scf.condition", op)
        for k, (result, arg) in enumerate(zip(op.results, after.args)):
            name = self.namer.fresh(result.name_hint or f"passed{k}")
            self.line(f"{self.value_type(result.type, op)} {name};")
            self.names[result] = self.names[arg] = name
        self.line("while (true) {")
        with self.body():
            self.emit_block(before)
            for result, value in zip(op.results, condition.args):
                self.line(f"{self.names[result]} = {self.expr(value)};")
            self.line(f"if (!{self.expr(condition.condition)}) break;")
            self.emit_block(after)
            self.assign_yield(after, before.args, op)
        self.line("}")

    def emit_scf_condition(self, op: scf.ConditionOp) -> None:
        pass
