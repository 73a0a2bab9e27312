"""The geometry of a wave: which CTAs (and PEs) run together, and where each lane is.

A launch of ``grid`` CTAs of ``block`` threads runs wave by wave; a wave holds ``W`` CTAs
(whole clusters) of every simulated PE, ``L = P * W * T`` lanes. Lane ``l`` is thread
``l % T`` of the wave's CTA ``l // T`` (CTAs of PE 0 first, then PE 1...). Everything an op asks
about a lane's place is an ``(L,)`` array here, computed once per wave.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

WARP = 32


def pad3(dims) -> tuple[int, int, int]:
    dims = tuple(int(d) for d in dims)
    return dims + (1,) * (3 - len(dims))  # type: ignore[return-value]


def unravel3(linear: np.ndarray, dims: tuple[int, int, int]) -> np.ndarray:
    """(n, 3) x/y/z coordinates of linear ids (x fastest)."""
    x = linear % dims[0]
    y = (linear // dims[0]) % dims[1]
    z = linear // (dims[0] * dims[1])
    return np.stack([x, y, z], axis=1)


@dataclass
class Wave:
    """Lanes of ``ctas`` (linear CTA ids, x fastest) of every PE of a launch."""

    block_dim: tuple[int, int, int]
    grid_dim: tuple[int, int, int]
    cluster_dim: tuple[int, int, int] | None
    ctas: np.ndarray
    pes: int = 1
    T: int = field(init=False)
    W: int = field(init=False)
    L: int = field(init=False)

    def __post_init__(self) -> None:
        self.T = math.prod(self.block_dim)
        self.W = len(self.ctas) * self.pes
        self.L = self.W * self.T
        lanes = np.arange(self.L, dtype=np.int64)
        self.tid = lanes % self.T
        self.cta = lanes // self.T
        """The lane's CTA in the wave (0..W-1; CTA ``c`` of PE ``c // len(ctas)``)."""
        self.pe = self.cta // len(self.ctas)
        self.cta_linear = self.ctas[self.cta % len(self.ctas)]
        """The lane's CTA id in the grid (linear, x fastest)."""
        self.thread_idx = unravel3(self.tid, self.block_dim)
        self.block_idx = unravel3(self.cta_linear, self.grid_dim)
        self.lane = self.tid % WARP
        self.warps_per_cta = -(-self.T // WARP)
        self.warp = self.cta * self.warps_per_cta + self.tid // WARP
        """The lane's warp, numbered across the wave."""
        self.warp_in_cta = self.tid // WARP
        if self.cluster_dim is not None:
            cluster_idx = self.block_idx // np.array(self.cluster_dim)
            in_cluster = self.block_idx % np.array(self.cluster_dim)
            self.cluster_idx = cluster_idx
            self.cluster_block_idx = in_cluster
            cx, cy, _ = self.cluster_dim
            self.cluster_rank = in_cluster[:, 0] + cx * (in_cluster[:, 1] + cy * in_cluster[:, 2])
        self.full_mask = np.ones(self.L, dtype=bool)

    @property
    def n_warps(self) -> int:
        return self.W * self.warps_per_cta

    def thread_name(self, lane: int) -> str:
        """``thread (x,y,z) of CTA (x,y,z)`` (and the PE when there are several)."""
        t = ",".join(str(int(v)) for v in self.thread_idx[lane])
        b = ",".join(str(int(v)) for v in self.block_idx[lane])
        pe = f" on PE {int(self.pe[lane])}" if self.pes > 1 else ""
        return f"thread ({t}) of CTA ({b}){pe}"

    def describe(self, lanes, limit: int = 3) -> str:
        """The threads of ``lanes`` (indices or a bool mask) in a few words: one thread as
        ``thread (x,y,z) of CTA (x,y,z)``; several as ranges of thread ids (linear ids, x
        fastest, for a multi-dimensional block) per CTA, CTAs with the same threads together,
        at most ``limit`` groups and a count of the rest."""
        lanes = np.asarray(lanes)
        if lanes.dtype == np.bool_:
            lanes = np.flatnonzero(lanes)
        if len(lanes) == 0:
            return "no thread"
        if len(lanes) == 1:
            return self.thread_name(int(lanes[0]))
        by_cta: dict[int, list[int]] = {}
        for lane in lanes.tolist():
            by_cta.setdefault(lane // self.T, []).append(lane % self.T)
        groups: dict[str, list[int]] = {}
        for cta, tids in by_cta.items():
            groups.setdefault(_ranges(tids), []).append(cta)
        word = "threads" if self.block_dim[1] == self.block_dim[2] == 1 else \
            "threads with linear ids"
        parts = []
        for text, ctas in list(groups.items())[:limit]:
            names = [self.cta_name(c) for c in ctas[:limit]]
            if len(names) > 1:
                names = ["CTAs " + names[0][4:], *(n[4:] for n in names[1:])]
            more = f" and {len(ctas) - limit} more CTAs" if len(ctas) > limit else ""
            parts.append(f"{word} {text} of {', '.join(names)}{more}")
        rest = len(groups) - limit
        tail = f", and other threads of {rest} more CTAs" if rest > 0 else ""
        return "; ".join(parts) + tail

    def cta_name(self, cta: int) -> str:
        lane = int(cta) * self.T
        b = ",".join(str(int(v)) for v in self.block_idx[lane])
        pe = f" on PE {int(self.pe[lane])}" if self.pes > 1 else ""
        return f"CTA ({b}){pe}"


def _ranges(ids: list[int]) -> str:
    """``0-15, 17, 20-31`` for a sorted list of ids."""
    out = []
    start = prev = ids[0]
    for i in ids[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        out.append(str(start) if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(out)
