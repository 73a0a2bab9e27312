"""The ``ptx`` ops' interpreter dispatch, keyed by table row: ``@ptx_row("ld")`` registers a
lane implementation for the op generated from that row (dialects/ptx/table.py), so adding an
instruction is adding a row and its semantic function. `unimplemented_rows` lists the rows
without one (a test keeps it empty).

`row_view(op, args)` gives an implementation the row's view of its operands: the modifier map
(slot -> text, immediate -> int) and the read operands grouped by the row's operand names
(``view.reads["addr"]`` is the list of lane values of that operand), computed once per op.
"""

from __future__ import annotations

from dataclasses import dataclass

from tirx_mlir.backends.cuda.dialects.ptx import OPS_BY_ROW
from tirx_mlir.backends.cuda.dialects.ptx import forms
from tirx_mlir.backends.cuda.interpreter.impls import IMPLS, lane_impl


def ptx_row(*rows: str, blocking: bool = False):
    """Register the decorated function for the ops of ``rows``."""
    return lane_impl(*(OPS_BY_ROW[r] for r in rows), blocking=blocking)


@dataclass(frozen=True)
class RowLayout:
    mods: dict
    read_slices: dict[str, slice]
    write_slices: dict[str, slice]


_LAYOUTS: dict[int, tuple[object, RowLayout]] = {}


def layout(op) -> RowLayout:
    entry = _LAYOUTS.get(id(op))
    if entry is None or entry[0] is not op:
        mods = op.mods()
        reads, writes = {}, {}
        r = w = 0
        for place in forms.places(op.ENTRY, mods):
            if place.operand.kind == "imm":
                continue
            n = place.values
            if place.operand.rw in ("r", "rw"):
                reads[place.operand.name] = slice(r, r + n)
                r += n
            if place.operand.rw in ("w", "rw"):
                writes[place.operand.name] = slice(w, w + n)
                w += n
        entry = _LAYOUTS[id(op)] = (op, RowLayout(mods, reads, writes))
    return entry[1]


class RowView:
    __slots__ = ("mods", "reads")

    def __init__(self, op, args):
        lay = layout(op)
        self.mods = lay.mods
        self.reads = {name: args[s] for name, s in lay.read_slices.items()}

    def one(self, name: str):
        return self.reads[name][0]


def row_view(op, args) -> RowView:
    return RowView(op, args)


def unimplemented_rows() -> list[str]:
    from tirx_mlir.backends.cuda.interpreter.impls import load_impls

    load_impls()
    return [name for name, cls in OPS_BY_ROW.items() if cls not in IMPLS]
