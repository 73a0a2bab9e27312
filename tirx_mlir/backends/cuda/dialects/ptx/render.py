"""The PTX text of one ptx op: ``render(op, reg) -> "ld.global.nc.v2.f32 {%f1, %f2}, [%rd3];"``.

Both printers use it: the PTX printer passes its virtual register names, the CUDA C++ printer
inline-asm placeholders (``%0``...). The text is only ever the row's template with the chosen
modifier values (each one of the table's choices, re-checked here), the printer's register
names (checked to be PTX identifiers) and integers; no attribute string reaches the output.

An ``rw`` operand (wgmma's accumulator) is one register: the result's name is printed, and
`tied_values(op)` lists the (result, operand) pairs a printer must place in the same register
(an inline-asm ``"+f"`` constraint, or a ``mov`` in PTX); `register_types(op)` gives the PTX
register type of every value (register declarations, constraint letters).
"""

from __future__ import annotations

import re
from typing import Callable

from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects.ptx import forms
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp, Variant

_REGISTER = re.compile(r"%?[A-Za-z_$][A-Za-z0-9_$]*|%\d+")


class RenderError(ValueError):
    """A register name that is not a PTX identifier, or an op that does not verify."""


def _checked(name: str, sink_ok: bool) -> str:
    if name == "_" and sink_ok:
        return name
    if name == "_" or _REGISTER.fullmatch(name) is None:
        raise RenderError(f"'{name}' is not a PTX register name")
    return name


def _sink_only(mods) -> bool:
    """An arrive on a peer CTA's mbarrier (``.shared::cluster``) returns no state: PTX ISA
    "mbarrier.arrive" takes only the sink ``_`` as its destination there."""
    return mods.get("space") == "shared::cluster"


def _sunk(op: PtxOp, value: SSAValue) -> str:
    if value.uses:
        raise RenderError(f"{op.name}: the state of an arrive on a peer CTA's mbarrier "
                          f"(.shared::cluster) cannot be read; it is the sink `_`")
    return "_"


def _operand_text(place: forms.Place, names: list[str]) -> str:
    kind = place.operand.kind
    if kind == "addr":
        return f"[{names[0]}]"
    if kind == "tensor":
        return f"[{names[0]}, {{{', '.join(names[1:])}}}]"
    if place.lanes > 1 or place.operand.vector:
        return "{" + ", ".join(names) + "}"
    return names[0]


def render(op: PtxOp, reg: Callable[[SSAValue], str], variant: Variant | None = None) -> str:
    """The instruction line (without indentation), ending in ``;`` (``variant``: the op's
    `PtxOp.variant`, when the caller has it)."""
    if variant is None:
        variant = op.variant()
    if variant.error is not None:
        raise RenderError(f"{op.name}: {variant.error}")
    mods = variant.mods
    # a ptx op's only operand and result definitions are the variadic ``args`` and ``res``
    args, results = iter(op.operands), iter(op.results)
    pieces: list[str] = []
    for place in variant.places:
        operand = place.operand
        if operand.kind == "imm":
            text = str(int(mods[operand.name]))  # type: ignore[call-overload]
        else:
            if operand.rw == "rw":
                values = [next(args) for _ in range(place.values)]
                values = [next(results) for _ in values]
            else:
                source = results if operand.rw == "w" else args
                values = [next(source) for _ in range(place.values)]
            if operand.sink and _sink_only(mods):
                names = [_sunk(op, v) for v in values]
            else:
                names = [_checked(reg(v), operand.sink) for v in values]
            text = _operand_text(place, names)
        pieces.append(text + operand.sep)
    body = "".join(pieces).removesuffix(", ")
    head = variant.mnemonic
    return f"{head} {body};" if body else f"{head};"


def register_types(op: PtxOp, variant: Variant | None = None) -> dict[SSAValue, str]:
    """The PTX register type of every value the op reads or writes (an address: ``b32``/``b64``
    by its width), from which a printer declares registers or picks inline-asm constraints
    (``variant``: the op's `PtxOp.variant`, when the caller has it: a legal one's places are
    `forms.places` of its modifiers)."""
    args, results = iter(op.args), iter(op.res)
    out: dict[SSAValue, str] = {}
    places = variant.places if variant is not None else None
    for place in forms.places(op.ENTRY, op.mods()) if places is None else places:
        kind, rw = place.operand.kind, place.operand.rw
        if kind == "imm":
            continue
        sources = [args] if rw == "r" else [results] if rw == "w" else [args, results]
        for source in sources:
            for lane in range(place.values):
                value = next(source)
                is_addr = kind == "addr" or (kind == "tensor" and lane == 0)
                width = getattr(value.type, "width", None)
                out[value] = (("b64" if width is not None and width.data == 64 else "b32")
                              if is_addr else place.type)
    return out


def tied_values(op: PtxOp, variant: Variant | None = None) -> list[tuple[SSAValue, SSAValue]]:
    """(result, operand) pairs of the op's read-write operands (``variant`` as `render`)."""
    if variant is None:
        variant = op.variant()
    places = variant.places if variant.places is not None else forms.places(op.ENTRY,
                                                                            variant.mods)
    if not any(place.operand.rw == "rw" for place in places):
        return []
    args, results = iter(op.operands), iter(op.results)
    pairs = []
    for place in places:
        if place.operand.kind == "imm":
            continue
        if place.operand.rw == "r":
            for _ in range(place.values):
                next(args)
        elif place.operand.rw == "w":
            for _ in range(place.values):
                next(results)
        else:
            pairs.extend((next(results), next(args)) for _ in range(place.values))
    return pairs
