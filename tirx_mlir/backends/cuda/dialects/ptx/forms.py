"""What a table row means for one modifier map: its legality, mnemonic, operand layout and the
register types, plus the enumeration of a row's legal variants. Shared by the ops (verifier,
syntax), the renderer, the coverage doc and the assembler tests; nothing here knows about xDSL.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterator

from tirx_mlir.backends.cuda.dialects.ptx.schema import Entry, Mods, Operand

PTX_REG_WIDTH = {"pred": 1, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
                 "b32": 32, "u32": 32, "s32": 32, "f32": 32, "b64": 64, "u64": 64, "s64": 64,
                 "f64": 64}
FLOAT_PTX = ("f16", "bf16", "f32", "f64")


class ModifierError(ValueError):
    """A modifier map the table does not allow."""


@dataclass(frozen=True)
class Place:
    """One present operand position of a variant."""

    operand: Operand
    lanes: int
    type: str

    @property
    def values(self) -> int:
        """SSA values it takes (a tensor operand: the map address plus its coordinates)."""
        return self.lanes + 1 if self.operand.kind == "tensor" else self.lanes


def imm_operands(entry: Entry) -> tuple[Operand, ...]:
    return tuple(o for o in entry.operands if o.kind == "imm")


def _resolve(spec, mods: Mods):
    return spec(mods) if callable(spec) else spec


def places(entry: Entry, mods: Mods) -> list[Place]:
    """The operands present for ``mods`` with their lane counts and PTX types."""
    out = []
    for op in entry.operands:
        if op.when is not None and not op.when(mods):
            continue
        out.append(Place(op, int(_resolve(op.lanes, mods)), str(_resolve(op.type, mods))))
    return out


def mnemonic(entry: Entry, mods: Mods) -> str:
    parts = []
    for token in entry.template.split("."):
        if token.startswith("{") and token.endswith("}"):
            value = mods.get(token[1:-1])
            if value is not None:
                parts.append(str(value))
        else:
            parts.append(token)
    return ".".join(parts)


def _known(entry: Entry) -> frozenset[str]:
    known = _KNOWN.get(entry.name)
    if known is None:
        known = _KNOWN[entry.name] = frozenset(
            [s.name for s in entry.slots] + [o.name for o in imm_operands(entry)])
    return known


_KNOWN: dict[str, frozenset[str]] = {}


def check_mods(entry: Entry, mods: Mods) -> None:
    """Raise ModifierError unless ``mods`` is a legal variant of ``entry``."""
    known = _known(entry)
    for name in mods:
        if name not in known:
            raise ModifierError(f"{entry.name} has no modifier '{name}'")
    for slot in entry.slots:
        value = mods.get(slot.name)
        if value is None:
            if not slot.optional:
                raise ModifierError(f"{entry.name} needs its '{slot.name}' modifier, one of: "
                                    f"{', '.join(slot.choices)}")
        elif value not in slot.choices:
            raise ModifierError(f"'{value}' is not a valid '{slot.name}' modifier of "
                                f"{entry.name}; choose one of: {', '.join(slot.choices)}")
    for op in imm_operands(entry):
        if op.when is not None and not op.when(mods):
            if mods.get(op.name) is not None:
                raise ModifierError(f"{entry.name} takes no '{op.name}' immediate here")
            continue
        value = mods.get(op.name)
        if not isinstance(value, int):
            raise ModifierError(f"{entry.name} needs the integer immediate '{op.name}'")
        lo, hi = op.imm_range
        if op.choices and value not in op.choices:
            raise ModifierError(f"immediate '{op.name}' of {entry.name} is {value}; it must be "
                                f"one of {', '.join(map(str, op.choices))}")
        if not op.choices and not lo <= value <= hi:
            raise ModifierError(f"immediate '{op.name}' of {entry.name} is {value}; it must be "
                                f"in [{lo}, {hi}]")
    if entry.check is not None and (why := entry.check(mods)) is not None:
        raise ModifierError(f"{mnemonic(entry, mods)}: {why}")


def is_legal(entry: Entry, mods: Mods) -> bool:
    try:
        check_mods(entry, mods)
    except ModifierError:
        return False
    return True


# --- the modifier string of the custom syntax: slot values in template order ------------------


def format_mods(entry: Entry, mods: Mods) -> str:
    return ".".join(str(mods[s.name]) for s in entry.slots if mods.get(s.name) is not None)


def parse_mods(entry: Entry, text: str) -> dict[str, str]:
    """Inverse of format_mods: each dot-separated token fills the next slot that accepts it."""
    tokens = text.split(".") if text else []
    mods: dict[str, str] = {}
    i = 0
    for slot in entry.slots:
        if i < len(tokens) and tokens[i] in slot.choices:
            mods[slot.name] = tokens[i]
            i += 1
        elif not slot.optional:
            got = f"'{tokens[i]}'" if i < len(tokens) else "nothing"
            raise ModifierError(f"{entry.name} expects its '{slot.name}' modifier (one of "
                                f"{', '.join(slot.choices)}) in \"{text}\", got {got}")
    if i < len(tokens):
        raise ModifierError(f"'{tokens[i]}' in \"{text}\" is not a modifier {entry.name} takes "
                            f"at that position; modifiers in order: "
                            f"{', '.join(s.name for s in entry.slots)}")
    return mods


# --- variant enumeration (coverage doc and assembler tests) ------------------------------------


def _axes(entry: Entry) -> list[tuple[str, tuple]]:
    axes: list[tuple[str, tuple]] = [(s.name, ((None,) if s.optional else ()) + s.choices)
                                     for s in entry.slots]
    for op in imm_operands(entry):
        example = op.example if op.example is not None else op.imm_range[0]
        axes.append((op.name, op.choices or (example,)))
    return axes


def _mods(names: list[str], values: tuple) -> dict:
    return {n: v for n, v in zip(names, values) if v is not None}


def all_variants(entry: Entry, limit: int = 4096) -> Iterator[dict]:
    """Every legal modifier map, or the first ``limit`` of them."""
    axes = _axes(entry)
    names = [n for n, _ in axes]
    count = 0
    for values in itertools.product(*(c for _, c in axes)):
        mods = _mods(names, values)
        if is_legal(entry, mods):
            yield mods
            count += 1
            if count >= limit:
                return


def variant_space(entry: Entry) -> int:
    size = 1
    for _, choices in _axes(entry):
        size *= len(choices)
    return size


def _repair(entry: Entry, names: list[str], axes: list[tuple], base: tuple,
            fixed: int) -> dict | None:
    """A legal variant equal to ``base`` except at ``fixed`` and at most two other axes."""
    others = [j for j in range(len(axes)) if j != fixed]
    for count in range(3):
        for changed in itertools.combinations(others, count):
            grid = [(base[j],) if j != fixed and j not in changed else axes[j]
                    for j in range(len(axes))]
            grid[fixed] = (base[fixed],)
            for values in itertools.product(*grid):
                mods = _mods(names, values)
                if is_legal(entry, mods):
                    return mods
    return None


def sampled_variants(entry: Entry, count: int, seed: int = 0, tries: int = 4000) -> list[dict]:
    """Up to ``count`` distinct legal variants drawn at random (reproducibly, from ``seed``):
    combinations of values the representative set does not pair up."""
    import random

    rng = random.Random(f"{entry.name}/{seed}")
    axes = _axes(entry)
    names = [n for n, _ in axes]
    found: dict[tuple, dict] = {}
    for _ in range(tries):
        if len(found) >= count:
            break
        values = tuple(rng.choice(c) for _, c in axes)
        if values not in found and is_legal(entry, mods := _mods(names, values)):
            found[values] = mods
    return list(found.values())


def representative_variants(entry: Entry, exhaustive_up_to: int = 256) -> list[dict]:
    """All legal variants when the product of the choices is small; otherwise a set in which
    every value of every slot appears in a legal variant, each found by setting that value in
    the first legal variant and changing at most two other slots."""
    if variant_space(entry) <= exhaustive_up_to:
        return list(all_variants(entry))
    axes = [c for _, c in _axes(entry)]
    names = [n for n, _ in _axes(entry)]
    first = next(all_variants(entry, limit=1))
    base = tuple(first.get(n) for n in names)
    chosen: list[dict] = [first]
    patches: list[dict] = []  # slot changes that made an earlier value legal: try them first
    for i, choices in enumerate(axes):
        for value in choices:
            if any(m.get(names[i]) == value for m in chosen):
                continue
            start = {**dict(zip(names, base)), names[i]: value}
            mods = next((m for p in patches
                         if is_legal(entry, m := _mods(names, tuple({**start, **p}[n]
                                                                     for n in names)))), None)
            if mods is None:
                mods = _repair(entry, names, axes, tuple(start[n] for n in names), i)
                if mods is None:
                    continue
                patches.append({n: mods.get(n) for n in names
                                if n != names[i] and mods.get(n) != start[n]})
            chosen.append(mods)
    return chosen
