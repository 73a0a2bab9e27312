"""The interpreter object: xDSL's `Interpreter` with every registered implementation, and errors
that name the op that failed.

`make_interpreter(module)` registers xDSL's built-in implementations (func, scf, cf, memref,
affine, ...), then every factory in `tirx_mlir.registry.interpreter_functions`: the core's
(``tirx``, ``arith``, ``math``, registered by this package) and whatever loaded backends added
(e.g. a backend's own dialect). A registered set may replace an xDSL built-in (the core ``arith``
replaces xDSL's partial one); two registered sets that implement the same op are a conflict.
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import (Interpreter, InterpreterFunctions, OpImplResult, PythonValues,
                              ReturnedValues)
from xdsl.ir import Block, Operation, Region
from xdsl.traits import CallableOpInterface

from tirx_mlir import registry
from tirx_mlir.interpreter.runtime import InterpretError


class TirxInterpreter(Interpreter):
    """An `Interpreter` whose errors are `InterpretError`s located at the failing op.

    xDSL's own dispatch prints the whole module into every exception; this one attaches the op
    instead (its ``file:line:col``), which is what a user needs, and costs nothing when nothing
    fails.
    """

    def run_ssacfg_region(self, region: Region, args: PythonValues,
                          name: str = "unknown") -> PythonValues:
        """Run a region (xDSL's control flow), with one value scope per call frame.

        xDSL pushes a scope for every region it enters (every loop iteration), so reading a
        value defined outside a loop walks a chain of dicts. SSA values are unique, so only a
        call needs its own scope (a recursive call must not overwrite its caller's values):
        the body of a callable op (a kernel, a function) gets a new scope, and nested regions
        (loop bodies, branches) write into their frame's.
        """
        if not region.blocks:
            return ()
        initial_scope = self._ctx
        if self._starts_frame(region):
            self.push_scope(name)
        env = self._ctx
        local = env._local_scope  # noqa: SLF001 - the hot path reads the frame directly
        block: Block | None = region.blocks.first
        results: PythonValues = ()
        try:
            while block is not None:
                for arg, value in zip(block.args, args):
                    local[arg] = value
                op = block.first_op
                block = None
                while op is not None:
                    try:
                        inputs = tuple([local[v] for v in op.operands])
                    except KeyError:  # defined in an enclosing frame (a non-isolated callable)
                        inputs = tuple([env[v] for v in op.operands])
                    result = self._run_op(op, inputs)
                    values = result.values
                    if len(values) != len(op.results):
                        raise InterpretError(f"the implementation returned {len(values)} values "
                                             f"for {len(op.results)} results", op)
                    for res, value in zip(op.results, values):
                        local[res] = value
                    terminator = result.terminator_value
                    if terminator is not None:
                        if isinstance(terminator, ReturnedValues):
                            results = terminator.values
                        else:
                            block, args = terminator
                        break
                    op = op.next_op
        finally:
            self._ctx = initial_scope
        return results

    def _starts_frame(self, region: Region) -> bool:
        frames: dict[int, tuple[Region, bool]] = self.__dict__.setdefault("_frame_regions", {})
        entry = frames.get(id(region))
        if entry is None or entry[0] is not region:
            parent = region.parent_op()
            entry = frames[id(region)] = (region, parent is None or
                                          parent.has_trait(CallableOpInterface))
        return entry[1]

    def _run_op(self, op: Operation, inputs: tuple[Any, ...]) -> OpImplResult:
        entry = self._impls._impl_dict.get(type(op))  # noqa: SLF001 - xdsl 0.74 internals
        if entry is None:
            raise InterpretError(
                "no interpreter implementation for this op", op,
                hint="a dialect registers one in tirx_mlir.registry.interpreter_functions "
                     "(a backend from its register_backend())")
        for listener in self.listeners:
            listener.will_interpret_op(op, inputs)
        functions, run = entry
        try:
            result = run(functions, self, op, inputs)
        except InterpretError as err:
            if err.op is None:
                err.op = op
            raise
        except Exception as err:  # noqa: BLE001 - whatever failed, name the op it failed in
            raise InterpretError(f"{type(err).__name__}: {err}", op) from err
        for listener in self.listeners:
            listener.did_interpret_op(op, result.values)
        return result


def registered_functions() -> list[tuple[str, type[InterpreterFunctions]]]:
    """(name, class) of every registered implementation set, core first (the package's
    ``__init__`` registers the core sets before this module is imported)."""
    return [(name, factory()) for name, factory in registry.interpreter_functions.items()]


def make_interpreter(module: ModuleOp, **kwargs: Any) -> TirxInterpreter:
    """An interpreter for ``module`` with xDSL's built-in implementations and every registered
    set (``kwargs`` go to `Interpreter`, e.g. ``file=`` for printf output)."""
    from xdsl.interpreters import register_implementations

    from tirx_mlir.located_parser import make_context

    interp = TirxInterpreter(module, **kwargs)
    register_implementations(interp, make_context())
    claimed: dict[type[Operation], str] = {}
    for name, functions in registered_functions():
        for op_type, _ in functions._impls():  # noqa: SLF001 - xdsl 0.74 API
            if op_type in claimed:
                raise registry.RegistryError(
                    f"interpreter implementations '{claimed[op_type]}' and '{name}' both "
                    f"implement {op_type.name}; drop one, or replace the other by registering "
                    f"under its name with override=True")
            claimed[op_type] = name
        interp.register_implementations(functions(), override=True)
    return interp
