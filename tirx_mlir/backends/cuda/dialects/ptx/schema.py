"""The vocabulary of the PTX instruction table (table.py): rows, modifier slots, operands and
requirements. Pure data classes; the ops, verifiers, renderer and coverage doc are derived from
rows built of these.

A row (`Entry`) is one instruction form, e.g. ``ld`` or ``cp_async_zfill``. Its ``template`` is
the PTX mnemonic with ``{slot}`` placeholders, joined by dots: ``"ld.{sem}.{space}.{vec}.{type}"``;
an omitted optional slot drops its dot-separated part. Modifier values are always one of the
slot's ``choices`` (the only text a modifier can contribute to the output).

Operands are listed in PTX order. ``kind``: ``reg`` (a register), ``addr`` (``[reg]``), ``imm``
(an integer literal, stored as a property), ``tensor`` (``[tmap, {c0, ...}]``: a 64-bit tensor-map
address then ``lanes`` 32-bit coordinates). ``rw``: ``r`` (an SSA operand), ``w`` (an op result),
``rw`` (both: an operand and a result that must live in the same register). ``lanes`` > 1 renders
as a vector ``{a, b, ...}``. ``type`` is a PTX type (``b32``, ``f32``, ``pred``...) or ``{slot}``.
``lanes``/``type``/``when`` may be functions of the modifier map where a count or type depends on
several slots (mma fragment sizes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Union

Mods = Mapping[str, object]
"""Modifier map of one instruction: slot name -> chosen text (absent: omitted), imm operand
name -> its integer."""

Check = Callable[[Mods], Union[str, None]]
Lanes = Union[int, Callable[[Mods], int]]
TypeSpec = Union[str, Callable[[Mods], str]]


@dataclass(frozen=True)
class Slot:
    """A modifier position of the mnemonic: one of ``choices``, or absent if ``optional``."""

    name: str
    choices: tuple[str, ...]
    optional: bool = False


@dataclass(frozen=True)
class Operand:
    """One PTX operand position (see the module docstring)."""

    name: str
    kind: str = "reg"
    rw: str = "r"
    type: TypeSpec = "b32"
    lanes: Lanes = 1
    when: Callable[[Mods], bool] | None = None
    choices: tuple[int, ...] = ()
    """imm only: the legal values (empty: any value in ``imm_range``)."""
    imm_range: tuple[int, int] = (0, 2**32 - 1)
    example: int | None = None
    """imm only: a value used by the generated assembler tests (default: first choice or lo)."""
    sink: bool = False
    """w only: the printer may write ``_`` when the result is unused (PTX 7.8+)."""
    vector: bool = False
    """Always written in braces, even with one lane (mma fragments, ldmatrix)."""
    sep: str = ", "
    """Separator printed after this operand (``elect.sync d|p, mask`` uses ``|``)."""


@dataclass(frozen=True)
class Req:
    """A requirement: a minimum ``sm`` (``"sm_80"``: any sm_80+ target, a/f variants included)
    or a tuple of exact arch-specific targets (``("sm_90a",)``), and a minimum PTX ISA version.
    ``when`` restricts it to variants whose slots take one of the given values."""

    sm: str | tuple[str, ...]
    ptx: str
    when: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Entry:
    """One instruction form: op ``ptx.<name>``, part of ``family`` (the coverage grouping)."""

    name: str
    family: str
    template: str
    slots: tuple[Slot, ...]
    operands: tuple[Operand, ...]
    requires: tuple[Req, ...]
    check: Check | None = None
    doc: str = ""
    tirx: str = ""
    """The TIRx ``T.ptx`` entry this row corresponds to, its family first (``cp.async.{ca,cg}``:
    family ``cp``); the coverage doc groups rows by that family."""
    collective: int = 0
    """The threads that execute it together, each with its part (`collective`): 32 (a warp:
    mma.sync, ldmatrix), 128 (a warpgroup: wgmma); 0 when a thread executes it on its own."""

    def slot(self, name: str) -> Slot:
        return next(s for s in self.slots if s.name == name)
