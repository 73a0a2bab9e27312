"""The interpreter object: xDSL's `Interpreter` with every registered implementation, and errors
that name the op that failed.

`make_interpreter(module)` registers xDSL's built-in implementations (func, scf, cf, memref,
affine, ...), then every factory in `tirx_mlir.registry.interpreter_functions`: the core's
(``tirx``, ``arith``, ``math``, registered by this package) and whatever loaded backends added
(e.g. a backend's own dialect). A registered set may replace an xDSL built-in (the core ``arith``
replaces xDSL's partial one); two registered sets that implement the same op are a conflict.

Bounds on a run (hostile or buggy programs stop with a located error instead of hanging):

* a step budget: an op executed costs one step, plus, for an op that computes on whole buffers,
  one per `ELEMENTS_PER_STEP` elements of them (`op_cost`: tile ops on large buffers are the
  slow ones); a run
  (one top-level `call_op`, e.g. one kernel launch) that exceeds ``max_steps`` stops at the loop
  (or function) that was running, with its location and the budget (`DEFAULT_MAX_STEPS`;
  0 = no limit). A block's cost is computed once, so counting is one subtraction per block run
  (per loop iteration);
* a call depth (`MAX_CALL_DEPTH`): recursion through ``func.call`` deeper than that stops at the
  call instead of exhausting Python's stack;
* Python exceptions raised inside an implementation become `InterpretError`s about the program
  (`explain_exception`), never a raw ``MemoryError`` or ``OverflowError`` text.
"""

from __future__ import annotations

import math
from operator import itemgetter
from typing import Any

from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.interpreter import (Interpreter, InterpreterFunctions, OpImplResult, PythonValues,
                              ReturnedValues)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import CallableOpInterface

from tirx_mlir import registry
from tirx_mlir.interpreter.block_code import Compiled, compile_steps
from tirx_mlir.interpreter.runtime import InterpretError


DEFAULT_MAX_STEPS = 50_000_000
"""Steps one run may take by default: ~40x what the largest example needs (~1.2 million steps,
the trn-lowered 1024x2048x4096 bf16 matmul). A step is ~5 us of interpretation (a scalar op, or
256 elements of a tile op), so a run stops within a few minutes: a loop of 1e12 iterations, an
endless ``scf.while`` or a grid of 2**31 CTAs stops instead of hanging."""

ELEMENTS_PER_STEP = 256
"""An op costs one more step per this many elements of the buffers it names."""

MAX_CALL_DEPTH = 100
"""Nested ``func.call``s a run may make (each costs ~8 Python frames of the 1,000 Python
allows)."""

_UNLIMITED = 1 << 126

_LOOP_OPS = frozenset({"scf.for", "scf.while", "scf.parallel", "scf.forall", "affine.for",
                       "affine.parallel"})


def loop_of(region: Region) -> Operation | None:
    """The innermost loop (or, outside loops, callable op) running ``region``."""
    op = region.parent_op()
    while op is not None and op.name not in _LOOP_OPS and \
            not op.has_trait(CallableOpInterface):
        op = op.parent_op()
    return op


def op_cost(op: Operation) -> int:
    """Steps one run of ``op`` costs: 1, plus, for an op that computes on whole buffers (no
    results and no index operands: a tile primitive, a backend instruction), one per
    `ELEMENTS_PER_STEP` elements of its statically shaped operands. Views, allocations and
    scalar loads and stores cost 1."""
    if op.results or any(isinstance(o.type, IndexType) for o in op.operands):
        return 1
    elements = 0
    for value in op.operands:
        get_shape = getattr(value.type, "get_shape", None)
        shape = get_shape() if get_shape is not None else ()
        if shape and all(isinstance(n, int) and n >= 0 for n in shape):
            elements += math.prod(shape)
    return 1 + elements // ELEMENTS_PER_STEP


def step_budget_error(region: Region, max_steps: int) -> InterpretError:
    """The located error for a run that exceeded its step budget inside ``region``."""
    from tirx_mlir.diagnostics import format_location
    from tirx_mlir.dialects.tirx.kernel import KernelOp

    loop = loop_of(region)
    outer = []
    parent = loop.parent_op() if loop is not None else None
    while parent is not None:
        if parent.name in _LOOP_OPS:
            outer.append(f"{parent.name} at {format_location(parent)}")
        parent = parent.parent_op()
    where = "this loop" if loop is not None and loop.name in _LOOP_OPS else "this function"
    if isinstance(loop, KernelOp):
        where = f"@{loop.kernel_name}, whose grid has {math.prod(loop.grid_dims()):,} CTAs"
    nested = f", nested in {', '.join(outer)}" if outer else ""
    return InterpretError(
        f"the run exceeded its budget of {max_steps:,} steps (an op each, plus one per "
        f"{ELEMENTS_PER_STEP} elements a tile op computes on) in {where}{nested}: "
        f"it may never end, or does more work than the budget allows", loop, code="step-budget",
        hint="check the loop's bounds and exit condition; if the work is meant to be that long, "
             "raise the budget: tirx-run --max-steps N (0 = no limit), "
             "tirx_mlir.interpret(..., max_steps=N) or KernelRunner(..., max_steps=N)")


def explain_exception(err: Exception) -> str:
    """A sentence about the program for a Python exception raised while running an op."""
    if isinstance(err, MemoryError):
        return ("the host ran out of memory running this op (the interpreter holds every buffer "
                "as a numpy array)")
    if isinstance(err, RecursionError):
        return ("the program nests regions or calls too deeply for the interpreter (Python's "
                "recursion limit)")
    if isinstance(err, ZeroDivisionError):
        return "integer division or remainder by zero in this op's index arithmetic"
    if isinstance(err, OverflowError):
        return f"a value is too large for this op ({err})"
    if isinstance(err, ValueError) and "array is too big" in str(err):
        return "an array this op needs is too large for numpy to allocate"
    return f"{type(err).__name__}: {err}"


def located_error(err: Exception, op: Operation | None) -> InterpretError:
    """The error to raise for ``err``, raised while running (or preparing) ``op``: an
    `InterpretError` gets ``op`` as its location unless it has one; any other exception becomes
    an `InterpretError` at ``op`` saying what happened (`explain_exception`), with ``err`` as its
    cause. Used as ``except Exception as err: raise located_error(err, op)``."""
    if isinstance(err, InterpretError):
        if err.op is None:
            err.op = op
        return err
    located = InterpretError(explain_exception(err), op)
    located.__cause__ = err
    return located


def _xdsl_yield() -> Any:
    """xDSL's implementation of ``scf.yield`` (it returns the operands' values)."""
    from xdsl.interpreters.scf import ScfFunctions

    return ScfFunctions.run_br


def _tirx_return() -> Any:
    """The implementation of ``tirx.return`` (it returns no values)."""
    from tirx_mlir.interpreter.tirx_kernel import TirxKernelFunctions

    return TirxKernelFunctions.run_return


def _undefined_operand(op: Operation, index: int) -> Any:
    """A `BlockPlan` step's ``fetch`` for an operand that the block defines only at or after
    ``op`` (IR that breaks dominance): raises the error located at ``op``."""

    def undefined(regs: list[Any]) -> Any:
        raise InterpretError(f"operand #{index} is read before the op that defines it has "
                             f"run: the IR breaks dominance (verify the module first)", op)

    return undefined


class BlockPlan:
    """What running one block needs, looked up once: per op, the entry
    ``(op, operands, results, implementation, functions, prepared, properties, attributes)``,
    the steps a run walks, the block's value slots and its step cost.

    ``prepared`` is what the op's implementation set made of the op once (`prepare_op`: a
    callable from the operand values to the result values, with the op's attributes decoded),
    or None: the op runs through its registered implementation. The plan is checked against the
    IR once per run (`check`, the first time the block runs in a top-level call: a run never
    rewrites IR): an entry whose op is not the op found at its place, or whose operand list is
    not that op's (a rewrite replaced an operand: xDSL assigns a new tuple), is rebuilt from the
    IR, entries past the block's last op are dropped and the cost is recomputed; a prepared
    entry is also rebuilt when the op's properties or attributes changed (compared with copies
    taken when it was prepared). So a plan survives rewrites of the block between runs and never
    runs an op that is no longer there, or one decoded from attributes it no longer has. As the
    check precedes the block's first op, an op that cannot be prepared (an nki op whose verifier
    fails, say) stops the run, with an error located at it, before the block's ops run.

    Slots: a run of the block holds the values its ops read in a list (``regs``), laid out
    once per plan: the block's arguments (``nargs``), then its ``externals`` (the values its
    ops read that are defined outside it, read from the frame once per block run, or once per
    loop for a loop body: they cannot change while the loop runs), then one slot per result
    of its ops. So an op's operands are list indexing, not dict lookups keyed by xDSL values
    (which hash through a Python ``__hash__``). Every result and argument is also written to
    the frame (the interpreter's value scope), which nested regions, other blocks and
    implementations that read values by SSA value (``interp.get_values``) see as before.

    ``steps`` is what a run walks, one tuple per op: ``(fetch, prepared, slot, result, out,
    out_slots, implementation, functions, op)``: ``fetch`` gives the operands' values from
    ``regs`` (None: no operands; an int: the slot of the only one; else a callable on
    ``regs``: an ``operator.itemgetter``, or, for an operand the block defines only at or
    after the op, `_undefined_operand`'s located error), ``slot`` and ``result`` are the op's
    only result and its slot (None when it has none or several), ``out`` and ``out_slots`` all
    its results and their slots. A block that ends in an ``scf.yield`` run by xDSL's own
    implementation (which returns its operands), or in a ``tirx.return`` (which returns no
    values), leaves it out of the steps: ``tail`` is then ``(fetch, op)`` and a run returns
    the operands' values itself, without the implementation call and its result objects (None
    for any other terminator).
    """

    __slots__ = ("block", "entries", "steps", "tail", "args", "nargs", "externals", "users",
                 "fresh", "compiled", "step_cost", "checked", "_cost")

    def __init__(self, block: Block):
        self.block = block
        self.entries: list[tuple[Any, ...]] = []
        self.steps: list[tuple[Any, ...]] = []
        self.tail: tuple[Any, Operation] | None = None
        self.args: tuple[Any, ...] = ()
        """The block's arguments (as of the last check)."""
        self.nargs = 0
        self.externals: tuple[SSAValue, ...] = ()
        """The values the block's ops read that are defined outside it, in slot order."""
        self.users: tuple[Operation, ...] = ()
        """The first op reading each external (where a missing value is reported)."""
        self.fresh: list[None] = []
        """The result slots of a run, empty (``None`` each)."""
        self.compiled: Compiled | None = None
        """The steps and tail as one function (`block_code.compile_steps`), or None: the
        steps run through `TirxInterpreter._run_steps`' loop."""
        self.step_cost = 0
        """`cost`, as of the last check."""
        self.checked = -1
        """The run (`TirxInterpreter._run_serial`) the plan was last checked in."""
        self._cost: int | None = None

    @property
    def cost(self) -> int:
        """Steps one run of the block costs (`op_cost` of each op; recomputed after a rewrite)."""
        if self._cost is None:
            self._cost = sum(op_cost(op) for op in self.block.ops)
        return self._cost

    def check(self, interp: TirxInterpreter) -> None:
        """Bring the entries up to date with the block's ops (see the class docstring)."""
        entries = self.entries
        changed = False
        i = 0
        op = self.block.first_op
        while op is not None:
            entry = entries[i] if i < len(entries) else None
            if entry is None or entry[0] is not op or entry[1] is not op._operands or \
                    entry[5] is not None and (entry[6] != op.properties or
                                              entry[7] != op.attributes):
                try:  # preparing an op may reject it (e.g. its verifier): name the op
                    self.refresh(interp, i, op)
                except Exception as err:  # noqa: BLE001 - whatever failed, name the op
                    raise located_error(err, op)  # noqa: B904 - it sets the cause
                changed = True
            op = op.next_op
            i += 1
        if len(entries) > i:
            del entries[i:]
            changed = True
        args = self.block.args
        if changed or args != self.args:
            self._cost = None
            self.args = args
            self._lay_out_slots()
        self.step_cost = self.cost
        self.checked = interp._run_serial  # noqa: SLF001 - the interpreter's own counter

    def _lay_out_slots(self) -> None:
        """`steps`, `tail` and the slot layout from the entries and the block's arguments."""
        entries = self.entries
        slots: dict[SSAValue, int] = {arg: k for k, arg in enumerate(self.args)}
        defined = set(slots)
        for e in entries:
            defined.update(e[2])
        externals: dict[SSAValue, Operation] = {}
        for e in entries:
            for value in e[1]:
                if value not in defined and value not in externals:
                    externals[value] = e[0]
        for value in externals:
            slots[value] = len(slots)
        base = len(slots)
        for e in entries:
            for value in e[2]:
                slots[value] = len(slots)
        self.nargs = len(self.args)
        self.externals, self.users = tuple(externals), tuple(externals.values())
        self.fresh = [None] * (len(slots) - base)

        def fetch(operands: tuple[SSAValue, ...], op: Operation) -> Any:
            late = [k for k, v in enumerate(operands) if v in defined and v not in ready]
            if late:  # IR that breaks dominance (unverified): the run stops at the op
                return _undefined_operand(op, late[0])
            if not operands:
                return None
            if len(operands) == 1:
                return slots[operands[0]]
            return itemgetter(*[slots[v] for v in operands])

        self.steps = []
        operand_slots: list[tuple[int, ...] | None] = []  # None: read before defined
        ready = set(self.args)  # the values defined before the op at hand
        for e in entries:
            out = e[2]
            reader = fetch(e[1], e[0])
            operand_slots.append(tuple(slots[v] for v in e[1])
                                 if all(v in ready or v not in defined for v in e[1]) else None)
            ready.update(out)
            single = out[0] if len(out) == 1 else None
            self.steps.append((reader, e[5], None if single is None else slots[single],
                               single, out, tuple(slots[v] for v in out), e[3], e[4], e[0]))
        self.tail = None
        tail_slots = None
        if entries and entries[-1][3] is _xdsl_yield():
            self.tail = (self.steps[-1][0], entries[-1][0])
            tail_slots = operand_slots.pop()
            del self.steps[-1]
        elif entries and entries[-1][3] is _tirx_return():  # returns no values
            self.tail = (None, entries[-1][0])
            operand_slots.pop()
            tail_slots = ()
            del self.steps[-1]
        self.compiled = compile_steps(self.steps, operand_slots, tail_slots, self.nargs,
                                      len(self.externals), located_error) \
            if self.tail is None or tail_slots is not None else None

    def refresh(self, interp: TirxInterpreter, index: int, op: Operation) -> tuple[Any, ...]:
        """The entry for ``op``, the op found at place ``index`` of the block, built anew."""
        functions, run = interp._impl_of(op)  # noqa: SLF001 - the interpreter's own lookup
        prepare = getattr(functions, "prepare_op", None)
        prepared = prepare(interp, op) if prepare is not None else None
        entry = (op, op._operands, tuple(op.results), run, functions,  # noqa: SLF001
                 prepared, dict(op.properties), dict(op.attributes))
        if index < len(self.entries):
            self.entries[index] = entry
        else:
            self.entries.append(entry)
        return entry

    def load_externals(self, local: dict, env: Any) -> list[Any]:
        """The externals' values: from the frame ``local``, or through ``env``'s enclosing
        scopes (a non-isolated callable); a missing one is an error located at its first
        reader."""
        try:
            return list(map(local.__getitem__, self.externals))
        except KeyError:
            values = []
            for value, user in zip(self.externals, self.users):
                try:
                    values.append(env[value])
                except KeyError as err:
                    raise located_error(err, user) from err
            return values


class TirxInterpreter(Interpreter):
    """An `Interpreter` whose errors are `InterpretError`s located at the failing op.

    xDSL's own dispatch prints the whole module into every exception; this one attaches the op
    instead (its ``file:line:col``), which is what a user needs, and costs nothing when nothing
    fails. ``max_steps`` bounds each top-level call (see the module docstring).
    """

    max_steps: int = DEFAULT_MAX_STEPS
    _steps_left: int = _UNLIMITED
    _call_depth: int = 0
    _run_serial: int = 0
    """Counts top-level runs (a call, or a region run outside any call): a `BlockPlan` is
    checked against the IR once per run."""

    def call_op(self, op, inputs: PythonValues = ()) -> PythonValues:
        """Call ``op`` (a callable op or its symbol); a top-level call gets a fresh budget."""
        depth = self._call_depth
        if depth == 0:
            self._steps_left = self.max_steps if self.max_steps > 0 else _UNLIMITED
            self._run_serial += 1
        elif depth >= MAX_CALL_DEPTH:
            raise InterpretError(
                f"calls nest deeper than {MAX_CALL_DEPTH} levels: the program recurses without "
                f"reaching its base case", code="call-depth",
                hint="check the recursion's exit condition (the interpreter runs at most "
                     f"{MAX_CALL_DEPTH} nested calls)")
        self._call_depth = depth + 1
        try:
            return super().call_op(op, inputs)
        finally:
            self._call_depth = depth

    def run_ssacfg_region(self, region: Region, args: PythonValues,
                          name: str = "unknown") -> PythonValues:
        """Run a region (xDSL's control flow), with one value scope per call frame.

        xDSL pushes a scope for every region it enters (every loop iteration), so reading a
        value defined outside a loop walks a chain of dicts. SSA values are unique, so only a
        call needs its own scope (a recursive call must not overwrite its caller's values):
        the body of a callable op (a kernel, a function) gets a new scope, and nested regions
        (loop bodies, branches) write into their frame's.
        """
        info = self._region_info(region)
        if info is None:
            return ()
        if self._call_depth == 0:  # run outside any call: the IR may have changed since
            self._run_serial += 1
        initial_scope = self._ctx
        if info[1]:
            self.push_scope(name)
        env = self._ctx
        local = env._local_scope  # noqa: SLF001 - the hot path reads the frame directly
        block: Block | None = info[2]
        results: PythonValues = ()
        try:
            while block is not None:
                block, args, results = self._run_block(region, block, args, local, env)
        finally:
            self._ctx = initial_scope
        return results

    def run_loop(self, region: Region, bounds: range, values: tuple[Any, ...]) -> tuple[Any, ...]:
        """Run a loop body once per induction value in ``bounds``, with the loop-carried
        ``values`` (the body's block arguments after the induction variable); returns the
        values the last iteration yielded (``values`` for an empty range).

        The same as `run_ssacfg_region` per iteration, with the per-region lookups done once
        for the loop and the body's externals (`BlockPlan`) read once: they are defined
        outside the body, so no iteration changes them (a body of several blocks, or one that
        starts a call frame, runs through `run_ssacfg_region`)."""
        info = self._region_info(region)
        if self._call_depth == 0:  # a loop run outside any call (`run_op`): a run of its own
            self._run_serial += 1
        if info is None or info[1] or info[2].next_block is not None:  # not one block
            for i in bounds:
                values = tuple(self.run_ssacfg_region(region, (i, *values), "for_loop"))
            return values
        if not bounds:
            return values
        env = self._ctx
        local = env._local_scope  # noqa: SLF001
        block = info[2]
        run_block, plan = self._run_block, self._block_plan(block)
        if plan.checked != self._run_serial:
            plan.check(self)
        if plan.nargs != len(values) + 1:  # `_run_block` reports it
            return tuple(run_block(region, block, (bounds[0], *values), local, env, plan)[2])
        ext = plan.load_externals(local, env) if plan.externals else ()
        args, cost, fresh, run_steps = plan.args, plan.step_cost, plan.fresh, self._run_steps
        for i in bounds:
            regs = [i, *values, *ext, *fresh]
            for arg, value in zip(args, regs):
                local[arg] = value
            self._steps_left -= cost
            if self._steps_left < 0:
                raise step_budget_error(region, self.max_steps)
            if self.listeners:
                successor, bargs, results = self._run_block_listened(block, local, env)
            else:
                successor, bargs, results = run_steps(plan, regs, local)
            while successor is not None:  # a branch (within the region's one block)
                successor, bargs, results = run_block(region, successor, bargs, local, env)
            values = tuple(results)
        return values

    def _run_block(self, region: Region, block: Block, args: PythonValues, local: dict,
                   env: Any, plan: BlockPlan | None = None
                   ) -> tuple[Block | None, PythonValues, PythonValues]:
        """Run one block: (the successor block and its arguments, or None and the returned
        values).

        The block runs from its `BlockPlan` (the ops' implementations, operand slots and
        externals, looked up once, checked against the IR once per run); with listeners
        attached the ops go through `_run_op` so every listener sees every op. ``plan``: the
        block's, when the caller (a loop running it many times) has it."""
        if plan is None or plan.block is not block:
            plan = self._block_plan(block)
        if plan.checked != self._run_serial:
            plan.check(self)
        if len(args) != plan.nargs:
            raise InterpretError(f"the block takes {plan.nargs} arguments, but {len(args)} "
                                 f"were passed to it", region.parent_op())
        for arg, value in zip(plan.args, args):
            local[arg] = value
        self._steps_left -= plan.step_cost
        if self._steps_left < 0:
            raise step_budget_error(region, self.max_steps)
        if self.listeners:
            return self._run_block_listened(block, local, env)
        ext = plan.load_externals(local, env) if plan.externals else ()
        return self._run_steps(plan, [*args, *ext, *plan.fresh], local)

    def _run_steps(self, plan: BlockPlan, regs: list[Any], local: dict
                   ) -> tuple[Block | None, PythonValues, PythonValues]:
        """Run the steps of ``plan`` on the slots ``regs`` (arguments and externals filled),
        writing every result to its slot and to the frame ``local`` (through the plan's
        compiled function when it has one: the same walk, unrolled)."""
        compiled = plan.compiled
        if compiled is not None:
            return compiled(self, regs, local)
        op = None
        try:
            for fetch, prepared, slot, result, out, out_slots, run, functions, op in plan.steps:
                if fetch is None:
                    inputs = ()
                elif fetch.__class__ is int:
                    inputs = (regs[fetch],)
                else:
                    inputs = fetch(regs)
                if prepared is not None:  # never a terminator
                    if slot is not None:
                        local[result] = regs[slot] = prepared(inputs)[0]
                    elif out:
                        for res, k, value in zip(out, out_slots, prepared(inputs)):
                            local[res] = regs[k] = value
                    else:
                        prepared(inputs)
                    continue
                outcome = run(functions, self, op, inputs)
                if out:
                    values = outcome.values
                    if len(values) != len(out):
                        raise InterpretError(
                            f"the implementation returned {len(values)} values for "
                            f"{len(out)} results", op)
                    for res, k, value in zip(out, out_slots, values):
                        local[res] = regs[k] = value
                terminator = outcome.terminator_value
                if terminator is not None:
                    if isinstance(terminator, ReturnedValues):
                        return None, (), terminator.values
                    return terminator[0], terminator[1], ()
            if plan.tail is not None:  # an scf.yield: its operands' values
                fetch, op = plan.tail
                if fetch is None:
                    return None, (), ()
                return None, (), (regs[fetch],) if fetch.__class__ is int else fetch(regs)
        except Exception as err:  # noqa: BLE001 - whatever failed, name the op it failed in
            raise located_error(err, op)  # noqa: B904 - it sets the cause
        return None, (), ()

    def _run_block_listened(self, block: Block, local: dict, env) -> tuple[Any, Any, Any]:
        """`_run_block` op by op through `_run_op`, so listeners see each op."""
        op = block.first_op
        while op is not None:
            try:
                inputs = tuple([local[v] for v in op.operands])
            except KeyError:
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
                    return None, (), terminator.values
                return terminator[0], terminator[1], ()
            op = op.next_op
        return None, (), ()

    def _region_info(self, region: Region) -> tuple[Region, bool, Block] | None:
        """(region, whether it starts a call frame, its entry block), or None when empty."""
        regions: dict[int, Any] = self.__dict__.setdefault("_region_infos", {})
        entry = regions.get(id(region))
        first = region.first_block
        if entry is None or entry[0] is not region or entry[2] is not first:
            if first is None:
                return None
            parent = region.parent_op()
            entry = regions[id(region)] = (region, parent is None or
                                           parent.has_trait(CallableOpInterface), first)
        return entry

    def _block_plan(self, block: Block) -> BlockPlan:
        plans: dict[int, BlockPlan] = self.__dict__.setdefault("_block_plans", {})
        plan = plans.get(id(block))
        if plan is None or plan.block is not block:
            plan = plans[id(block)] = BlockPlan(block)
        return plan

    def _block_cost(self, block: Block) -> int:
        return self._block_plan(block).cost

    def _impl_of(self, op: Operation) -> tuple[Any, Any]:
        """(functions, implementation) registered for ``op``'s type."""
        entry = self._impls._impl_dict.get(type(op))  # noqa: SLF001 - xdsl 0.74 internals
        if entry is None:
            raise InterpretError(
                "no interpreter implementation for this op", op,
                hint="a dialect registers one in tirx_mlir.registry.interpreter_functions "
                     "(a backend from its register_backend())")
        return entry

    def _run_op(self, op: Operation, inputs: tuple[Any, ...]) -> OpImplResult:
        functions, run = self._impl_of(op)
        for listener in self.listeners:
            listener.will_interpret_op(op, inputs)
        try:
            result = run(functions, self, op, inputs)
        except Exception as err:  # noqa: BLE001 - whatever failed, name the op it failed in
            raise located_error(err, op)  # noqa: B904 - it sets the cause
        for listener in self.listeners:
            listener.did_interpret_op(op, result.values)
        return result


def check_max_steps(value: Any) -> int:
    """``value`` as a step budget (an int >= 0), or a `TirxError` saying what is expected."""
    from tirx_mlir.diagnostics import TirxError

    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TirxError(f"max_steps must be an integer >= 0 (0 = no limit), got {value!r}")
    return value


def registered_functions() -> list[tuple[str, type[InterpreterFunctions]]]:
    """(name, class) of every registered implementation set, core first (the package's
    ``__init__`` registers the core sets before this module is imported)."""
    return [(name, factory()) for name, factory in registry.interpreter_functions.items()]


def make_interpreter(module: ModuleOp, *, max_steps: int = DEFAULT_MAX_STEPS,
                     **kwargs: Any) -> TirxInterpreter:
    """An interpreter for ``module`` with xDSL's built-in implementations and every registered
    set (``kwargs`` go to `Interpreter`, e.g. ``file=`` for printf output). Each top-level call
    may execute ``max_steps`` ops (0 = no limit)."""
    from xdsl.interpreters import register_implementations

    from tirx_mlir.located_parser import make_context

    interp = TirxInterpreter(module, **kwargs)
    interp.max_steps = check_max_steps(max_steps)
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
