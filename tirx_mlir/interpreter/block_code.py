"""A block plan's steps compiled into one Python function (`compile_steps`).

`core.BlockPlan` lays a block out once as steps: per op, where its operands sit in the run's
value list, its prepared callable (or its registered implementation) and where its results go.
Walking those steps in a loop costs, per op, unpacking the step tuple and testing what kind of
step it is. `compile_steps` writes the same walk as straight-line Python source, once per plan:
the block's arguments and externals are unpacked into local variables, each op's operands are
those variables, each result is assigned to a new variable and written to the frame (as the
loop does), and the ops' callables, implementations and frame keys are constants of the
function. What runs, in what order, with what values, is the loop's: the function is that loop
unrolled, and an error in any op is located at it the same way (`core.located_error`).

`compile_steps` returns None for a block it does not compile (then the loop runs it): one whose
ops read a value of the block before it is defined (IR that breaks dominance: the loop reports
it at the reader), or one too long for one Python function to be worth it (`MAX_STEPS`).
"""

from __future__ import annotations

from typing import Any, Callable

from xdsl.interpreter import ReturnedValues

from tirx_mlir.interpreter.runtime import InterpretError

MAX_STEPS = 400
"""Blocks with more ops than this run through the step loop (the generated source grows with
the block; a long block runs once per run, where compiling it would not pay)."""

Compiled = Callable[[Any, list, dict], tuple]
"""``(interp, regs, local) -> (successor, its arguments, returned values)``: ``regs`` holds the
block's arguments then its externals."""


def compile_steps(steps: list[tuple[Any, ...]], operands: list[tuple[int, ...] | None],
                  tail: tuple[int, ...] | None, nargs: int, nexternals: int,
                  located_error: Callable[[Exception, Any], Exception]) -> Compiled | None:
    """The function running ``steps`` (see `core.BlockPlan` for their layout) whose operands
    are in the slots ``operands`` (one tuple per step; None for a step reading a value before
    it is defined), then returning the values of the slots ``tail`` (an ``scf.yield`` left out
    of the steps; None: the block has no such tail), or None (see the module docstring)."""
    if len(steps) > MAX_STEPS:
        return None
    names: dict[int, str] = {k: f"v{k}" for k in range(nargs + nexternals)}
    consts: dict[str, Any] = {"_located": located_error, "_Returned": ReturnedValues,
                              "_Error": InterpretError}
    ops: list[Any] = []
    lines = [f"    {', '.join(names.values())}{',' if len(names) == 1 else ''} = "
             f"regs[:{nargs + nexternals}]" if names else "    pass",
             "    k = -1", "    try:"]

    def operand_text(slots: tuple[int, ...] | None) -> str | None:
        """The operands' tuple as source, or None when an operand is not yet defined."""
        if slots is None or any(i not in names for i in slots):
            return None
        return f"({', '.join(names[i] for i in slots)},)" if slots else "()"

    for n, ((_, prepared, slot, _, out, out_slots, run, functions, op), slots) in \
            enumerate(zip(steps, operands)):
        inputs = operand_text(slots)
        if inputs is None:
            return None
        ops.append(op)
        body = [f"k = {n}"]
        keys = []
        for j, value in enumerate(out):
            consts[f"R{n}_{j}"] = value
            keys.append(f"R{n}_{j}")
        if prepared is not None:
            consts[f"P{n}"] = prepared
            if slot is not None:
                names[slot] = f"v{slot}"
                body.append(f"local[{keys[0]}] = v{slot} = P{n}({inputs})[0]")
            elif out:
                for k in out_slots:
                    names[k] = f"v{k}"
                body.append(f"m = [None] * {len(out)}")  # the loop's zip: stops at the shorter
                body.append(f"for j, value in zip(range({len(out)}), P{n}({inputs})):")
                body.append(f"    m[j] = value")
                body.append(f"    local[OUT{n}[j]] = value")
                consts[f"OUT{n}"] = tuple(out)
                body.append(f"{', '.join(f'v{k}' for k in out_slots)}, = m")
            else:
                body.append(f"P{n}({inputs})")
        else:
            consts[f"I{n}"], consts[f"F{n}"], consts[f"O{n}"] = run, functions, op
            body.append(f"outcome = I{n}(F{n}, interp, O{n}, {inputs})")
            if out:
                for k in out_slots:
                    names[k] = f"v{k}"
                body.append("values = outcome.values")
                body.append(f"if len(values) != {len(out)}:")
                body.append(f"    raise _Error(f'the implementation returned {{len(values)}} "
                            f"values for {len(out)} results', O{n})")
                body.append(f"{', '.join(f'v{k}' for k in out_slots)}, = values")
                for k, key in zip(out_slots, keys):
                    body.append(f"local[{key}] = v{k}")
            body.append("terminator = outcome.terminator_value")
            body.append("if terminator is not None:")
            body.append("    if isinstance(terminator, _Returned):")
            body.append("        return None, (), terminator.values")
            body.append("    return terminator[0], terminator[1], ()")
        lines.extend("        " + line for line in body)
    if tail is not None:
        inputs = operand_text(tail)
        if inputs is None:
            return None
        lines.append(f"        return None, (), {inputs}")
    else:
        lines.append("        return None, (), ()")
    consts["OPS"] = tuple(ops)
    lines.append("    except Exception as err:")
    lines.append("        raise _located(err, OPS[k] if k >= 0 else None)")
    source = "def run(interp, regs, local):\n" + "\n".join(lines) + "\n"
    scope: dict[str, Any] = dict(consts)
    exec(compile(source, "<tirx block plan>", "exec"), scope)  # noqa: S102 - our own source
    return scope["run"]
