"""A ptx op as one ``asm volatile`` statement: the instruction text from ptx/render.py with
``%N`` placeholders, outputs ``"=r"(x)`` (``"+f"(acc)`` for a register the instruction both
reads and writes, from `tied_values`), inputs by the C++ type of the value, and a ``"memory"``
clobber when the instruction touches or orders memory (printers/common.py).

Inline asm has no predicate constraint: an i1 input passes as a 32-bit integer turned into a
scoped ``.pred`` by ``setp.ne.b32``, an i1 result comes back through ``selp.u32``; 16-bit
floats pass as their bits in ``"h"`` registers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.dialects.ptx.render import RenderError, render, tied_values
from tirx_mlir.backends.cuda.printers.common import touches_memory
from tirx_mlir.backends.cuda.printers.cuda_cpp.tables import CONSTRAINTS, HALF_BITS

_PRED = IntegerType(1)


@dataclass
class AsmStatement:
    """The pieces of one inline-asm statement, with the C++ lines around it."""

    before: list[str] = field(default_factory=list)
    text: str = ""
    outputs: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    clobber: bool = False
    after: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """``asm volatile("text" : outs : ins : "memory");`` without empty trailing sections."""
        sections = [", ".join(self.outputs), ", ".join(self.inputs),
                    '"memory"' if self.clobber else ""]
        while sections and not sections[-1]:
            sections.pop()
        asm = "".join([f'"{self.text}"', *(f" : {s}" if s else " :" for s in sections)])
        return [*self.before, f"asm volatile({asm});", *self.after]


def asm_statement(op: PtxOp, printer) -> AsmStatement:
    """``op`` as inline asm; ``printer`` gives C++ types, names and expressions."""
    stmt = AsmStatement(clobber=touches_memory(op))
    tied = dict(tied_values(op))
    value_type = printer.value_type
    slots: dict[SSAValue, str] = {}
    pred_in: list[tuple[str, str]] = []
    pred_out: list[tuple[str, str]] = []
    for result in op.results:  # a ptx op's results are its ``res``, its operands its ``args``
        name = printer.names[result]
        ctype = value_type(result.type, op)
        index = len(stmt.outputs)
        if result.type == _PRED:
            raw = printer.namer.fresh(f"{name}_bits")
            stmt.before.append(f"unsigned int {raw};")
            stmt.outputs.append(f'"=r"({raw})')
            stmt.after.append(f"const bool {name} = {raw} != 0u;")
            pred = f"tirx_p{index}"
            pred_out.append((pred, f"%{index}"))
            slots[result] = pred
            continue
        letter = printer.choose(CONSTRAINTS, ctype, "inline-asm operand type", op)
        if result in tied:
            stmt.before.append(f"{ctype} {name} = {printer.expr(tied[result])};")
            stmt.outputs.append(f'"+{letter}"({name})')
        elif ctype in HALF_BITS:
            raw = printer.namer.fresh(f"{name}_bits")
            stmt.before.append(f"unsigned short {raw};")
            stmt.outputs.append(f'"=h"({raw})')
            stmt.after.append(f"const {ctype} {name} = {HALF_BITS[ctype][1]}({raw});")
        else:
            unused = "" if result.uses else "[[maybe_unused]] "
            stmt.before.append(f"{unused}{ctype} {name};")
            stmt.outputs.append(f'"={letter}"({name})')
        slots[result] = f"%{index}"
    tied_operands = set(tied.values())
    for arg in op.operands:
        if arg in slots or arg in tied_operands:
            continue
        index = len(stmt.outputs) + len(stmt.inputs)
        value = printer.expr(arg)
        if arg not in printer.names and arg.type != _PRED:  # an expression: in the slot's type
            value = f"static_cast<{value_type(arg.type, op)}>({value})"
        if arg.type == _PRED:
            stmt.inputs.append(f'"r"(static_cast<int>({value}))')
            pred = f"tirx_p{index}"
            pred_in.append((pred, f"%{index}"))
            slots[arg] = pred
            continue
        ctype = value_type(arg.type, op)
        letter = printer.choose(CONSTRAINTS, ctype, "inline-asm operand type", op)
        if ctype in HALF_BITS:
            value = f"{HALF_BITS[ctype][0]}({value})"
        stmt.inputs.append(f'"{letter}"({value})')
        slots[arg] = f"%{index}"
    try:
        text = render(op, lambda v: slots[v])
    except RenderError as err:
        raise printer.fail(str(err), op) from None
    if pred_in or pred_out:
        decl = " ".join(f".reg .pred {p};" for p, _ in pred_in + pred_out)
        setp = " ".join(f"setp.ne.b32 {p}, {slot}, 0;" for p, slot in pred_in)
        selp = " ".join(f"selp.u32 {slot}, 1, 0, {p};" for p, slot in pred_out)
        text = " ".join(t for t in ("{", decl, setp, text, selp, "}") if t)
    stmt.text = text
    return stmt
