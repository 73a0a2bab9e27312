"""Interpreter implementation of ``scf.for`` that checks its step (replaces xDSL's).

xDSL runs ``range(lb, ub, step)``, so a zero step shows Python's ``range() arg 3 must not be
zero`` and a negative one silently runs a descending loop. In MLIR a step must be positive (the
verifier rejects a constant step <= 0; a dynamic one is undefined behaviour): here a step <= 0
is an error located at the loop. The other scf ops keep xDSL's implementations.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from tirx_mlir.interpreter.core import TirxInterpreter
from tirx_mlir.interpreter.runtime import InterpretError


@register_impls
class ScfForFunctions(InterpreterFunctions):
    """``scf.for`` with a positive step."""

    @impl(scf.ForOp)
    def run_for(self, interp: Interpreter, op: scf.ForOp, args: PythonValues) -> PythonValues:
        lb, ub, step, *loop_args = args
        bounds = _bounds(op, lb, ub, step)
        if isinstance(interp, TirxInterpreter):
            return interp.run_loop(op.body, bounds, tuple(loop_args))
        values = tuple(loop_args)
        for i in bounds:
            values = interp.run_ssacfg_region(op.body, (i, *values), "for_loop")
        return values

    def prepare_op(self, interp: Interpreter, op: Operation):
        """``scf.for`` made ready to run (`core.BlockPlan`): `run_for` without the
        implementation's result object; None for another op."""
        if not isinstance(op, scf.ForOp) or not isinstance(interp, TirxInterpreter):
            return None

        def run_prepared_for(args: PythonValues) -> tuple:
            lb, ub, step, *loop_args = args
            return interp.run_loop(op.body, _bounds(op, lb, ub, step), tuple(loop_args))

        return run_prepared_for


def _bounds(op: scf.ForOp, lb: int, ub: int, step: int) -> range:
    """The induction values of a loop, or the located error for a step <= 0."""
    if step <= 0:
        raise InterpretError(
            f"the loop step is {step}; an scf.for step must be positive (MLIR leaves a "
            f"step <= 0 undefined)", op,
            hint="compute a positive step, or guard the loop with scf.if")
    return range(lb, ub, step)
