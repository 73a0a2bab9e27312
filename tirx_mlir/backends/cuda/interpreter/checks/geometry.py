"""Where a wave lane sits: its CTA, its warp (in the wave and in its CTA) and its lane in the warp.

A wave holds ``ctas`` CTAs of ``threads`` threads; lane ``l`` is thread ``l % threads`` of CTA
``l // threads`` and warps never span CTAs (a CTA of 48 threads has a full warp and a half one), as
the SIMT interpreter's contract lays lanes out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

WARP_SIZE = 32


@dataclass(frozen=True)
class LaneGeometry:
    ctas: int
    threads: int

    @property
    def warps_per_cta(self) -> int:
        return -(-self.threads // WARP_SIZE)

    @property
    def warps(self) -> int:
        return self.ctas * self.warps_per_cta

    @cached_property
    def lane_table(self) -> dict[str, np.ndarray]:
        """Per wave lane (int64 arrays of ``ctas * threads``): cta, warp, warp_in_cta, lane."""
        lanes = np.arange(self.ctas * self.threads, dtype=np.int64)
        return {
            "cta": self.cta_of(lanes),
            "warp": self.warp_of(lanes),
            "warp_in_cta": self.warp_in_cta(lanes),
            "lane": self.lane_in_warp(lanes),
        }

    def cta_of(self, lanes: np.ndarray) -> np.ndarray:
        return lanes // self.threads

    def tid_of(self, lanes: np.ndarray) -> np.ndarray:
        return lanes % self.threads

    def warp_in_cta(self, lanes: np.ndarray) -> np.ndarray:
        return self.tid_of(lanes) // WARP_SIZE

    def lane_in_warp(self, lanes: np.ndarray) -> np.ndarray:
        return self.tid_of(lanes) % WARP_SIZE

    def warp_of(self, lanes: np.ndarray) -> np.ndarray:
        return self.cta_of(lanes) * self.warps_per_cta + self.warp_in_cta(lanes)

    def lanes_of_warps(self, warps: np.ndarray) -> np.ndarray:
        """Every lane of the given wave warps (a CTA's last warp may be partial)."""
        cta, local = np.divmod(np.asarray(warps, dtype=np.int64), self.warps_per_cta)
        tid = local[:, None] * WARP_SIZE + np.arange(WARP_SIZE)
        lanes = cta[:, None] * self.threads + tid
        return lanes[tid < self.threads]
