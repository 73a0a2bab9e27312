"""Rolled rounds: a variant's repeated access groups as ``scf.for`` loops instead of copies.

A pointwise variant visits the slots of its iteration partition in groups (one vector access
each: TIRx's ``[outer, threads, vec]`` spread makes ``outer`` rounds of ``vec`` elements per
thread). When every group is the same body at a coordinate that moves by constant steps, the
groups are loops: `roll` factors the groups' base coordinates into nested counted loops
(innermost first, each with a constant step per dim, checked against every group), and
`Rounds.emit` builds them, giving the body's coordinate as affine expressions of the induction
variables. Addresses are then computed from the induction variables (`cuda-hoist-invariants`
moves their thread part out of the loops), and the printed kernel stays one body long.

A register operand rolls when the caller adds its register index to the coordinate (one more
dim: the index then moves by constant steps too); the body indexes the thread's local array
with an affine function of the induction variables. PTX registers are named one by one (no
indexing), so the PTX printer expands such loops (printers/ptx/unroll.py). A swizzled memory
operand stays unrolled (`unswizzled`): cuda-peel-constants gives its unrolled rounds one
swizzled offset plus immediates, which a loop would recompute each round. The loops carry the
``cuda.unroll`` hint (`loop_hints`): the C++ printer writes ``#pragma unroll``; the IR and the
interpreters see an ordinary counted loop, and so does the PTX printer when the body touches
no local array.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

from xdsl.builder import Builder

from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dispatch.common import buffer_layout
from tirx_mlir.backends.cuda.loop_hints import mark_unroll
from tirx_mlir.dialects.tirx.access import IndexExpr, resolve_access
from tirx_mlir.dispatch.builders import emit_loop

MAX_DEPTH = 3
"""The most nested loops one rolled access may take (deeper factorizations stay unrolled)."""

Coord = tuple[int, ...]


@dataclass(frozen=True)
class Loop:
    trips: int
    step: Coord
    """What one iteration adds to the coordinate, per dim."""


@dataclass(frozen=True)
class Rounds:
    loops: tuple[Loop, ...]
    """Innermost first."""
    offsets: tuple[Coord, ...]
    """The register part of the first group's elements, in group order."""

    def emit(self, b: Builder) -> tuple[Builder, tuple[IndexExpr, ...]]:
        """The loop nest at ``b`` (outermost first); a builder in the innermost body and the
        round's coordinate offset per dim (add `offsets` for each element)."""
        rank = len(self.offsets[0])
        coord = [IndexExpr()] * rank
        for loop in reversed(self.loops):
            b, iv = emit_loop(b, loop.trips, 1)
            mark_unroll(iv.owner.parent_op())
            for d, s in enumerate(loop.step):
                if s:
                    coord[d] = coord[d] + IndexExpr.of(iv).scale(s)
        return b, tuple(coord)


def unswizzled(buffers: Sequence[SSAValue]) -> bool:
    """Whether none of the memory ``buffers`` (or views) has a swizzled layout."""
    return all(buffer_layout(resolve_access(v).buffer_type).swizzle is None for v in buffers)


def roll(groups: Sequence[Sequence[int]], reg_coords: Callable[[int], Coord]) -> Rounds | None:
    """The loops that visit ``groups`` (slot lists, in order) when every group is the first
    one moved by a constant coordinate and their moves factor into at most `MAX_DEPTH` nested
    counted loops; None otherwise (or for fewer than two groups)."""
    if len(groups) < 2 or any(len(g) != len(groups[0]) for g in groups):
        return None
    first = [reg_coords(r) for r in groups[0]]
    bases: list[Coord] = []
    for g in groups:
        coords = [reg_coords(r) for r in g]
        base = _sub(coords[0], first[0])
        if any(_sub(c, base) != f for c, f in zip(coords, first)):
            return None
        bases.append(base)
    loops = _factor(bases)
    if loops is None:
        return None
    return Rounds(tuple(loops), tuple(first))


def _factor(bases: list[Coord]) -> list[Loop] | None:
    """Mixed-radix loops (innermost first) whose digits times steps give every base (found
    once per distinct list of bases: variants of one kernel ask for the same few)."""
    found = _factor_once(tuple(bases))
    return None if found is None else list(found)


@lru_cache(maxsize=4096)
def _factor_once(bases: tuple[Coord, ...]) -> tuple[Loop, ...] | None:
    total = len(bases)
    loops: list[Loop] = []
    period = 1
    while period < total:
        count = total // period
        seq = bases[::period]
        step = seq[1]
        run = 1
        while run < count and seq[run] == _scale(step, run):
            run += 1
        trips = max(n for n in range(1, run + 1) if count % n == 0)
        if trips < 2:
            return None
        loops.append(Loop(trips, step))
        period *= trips
        if len(loops) > MAX_DEPTH:
            return None
    for g, base in enumerate(bases):
        expect = [0] * len(base)
        rest = g
        for loop in loops:
            rest, digit = divmod(rest, loop.trips)
            expect = [e + digit * s for e, s in zip(expect, loop.step)]
        if tuple(expect) != base:
            return None
    return tuple(loops)


def _sub(x: Coord, y: Coord) -> Coord:
    return tuple(a - b for a, b in zip(x, y))


def _scale(x: Coord, k: int) -> Coord:
    return tuple(a * k for a in x)
