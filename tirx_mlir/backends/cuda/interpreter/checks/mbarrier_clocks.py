"""What an mbarrier phase carries for the racecheck (races.py): happens-before through mbarriers.

The PTX memory model (PTX ISA, "Memory Consistency Model"; "mbarrier"): ``mbarrier.arrive`` has
release semantics at its scope (``.release.cta`` by default, ``.release.cluster`` for an arrive
on another CTA's mbarrier), and a ``test_wait``/``try_wait`` that observes a phase's completion
has acquire semantics. So:

* a phase's completion carries the join of the clocks of the arrivals counted in it, and of the
  copies that completed bytes on it (``complete_tx``: the issuing thread's clock when it issued
  the copy) — and of every earlier phase's, since a phase completes only after the one before;
* a waiter that observes the phase acquires that join, and also every TMA or bulk copy that
  landed on the mbarrier up to that phase (the copies' writes are ordered before it);
* an arrival counted in a *later* phase (an init count one short of the arrivals: the last
  arrival spills into the next phase) is not in it, so its earlier accesses stay unordered
  before the waiter, as on the hardware, where the waiter may pass before it arrives.

A `Clock` is what one synchronisation carries, at the granularity races.py keeps: per CTA, what
is known of its warps' clocks (a warps-vector; several CTAs for arrivals from other CTAs of the
cluster); per warp that took part, what is known of its lanes' clocks (so that an mbarrier orders
lanes of one warp too); per mbarrier, the phases whose landings are known. `PhaseClocks` keeps
one mbarrier's phases.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def _max_into(table: dict[int, np.ndarray], key: int, vec: np.ndarray) -> None:
    old = table.get(key)
    table[key] = vec.copy() if old is None else np.maximum(old, vec)


@dataclass
class Clock:
    """A vector clock in races.py's units (module docstring)."""

    warps: dict[int, np.ndarray] = field(default_factory=dict)
    """wave CTA -> what is known of each of its warps' clocks."""
    lanes: dict[int, np.ndarray] = field(default_factory=dict)
    """wave warp -> what is known of each of its 32 lanes' clocks."""
    lands: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int32))
    """per mbarrier number: 1 + the last phase whose landings are known (0: none)."""

    def join(self, other: "Clock") -> None:
        """Make this clock the least upper bound of itself and ``other``."""
        for cta, vec in other.warps.items():
            _max_into(self.warps, cta, vec)
        for warp, vec in other.lanes.items():
            _max_into(self.lanes, warp, vec)
        if other.lands.size > self.lands.size:
            self.lands, short = other.lands.copy(), self.lands
        else:
            short = other.lands
        np.maximum(self.lands[:short.size], short, out=self.lands[:short.size])


class PhaseClocks:
    """The clocks of one mbarrier's phases: phases up to ``folded`` joined in ``base`` (what a
    waiter of ``folded`` acquired), later phases apart, each the join of what it carries."""

    def __init__(self, number: int):
        self.number = number
        """The mbarrier's number (its column in races.py's per-warp landing knowledge)."""
        self.folded = -1
        self.base = Clock()
        self.later: dict[int, Clock] = {}

    def add(self, phase: int, clock: Clock) -> None:
        """An arrival or a copy's ``complete_tx`` counted in ``phase`` carries ``clock``."""
        if phase <= self.folded:  # counted in a phase a waiter already observed complete
            self.base.join(clock)
        else:
            self.later.setdefault(phase, Clock()).join(clock)

    def upto(self, phase: int) -> Clock:
        """What a waiter that observes ``phase`` complete acquires: every phase up to it."""
        for p in sorted(p for p in self.later if p <= phase):
            self.base.join(self.later.pop(p))
        self.folded = max(self.folded, phase)
        return self.base
