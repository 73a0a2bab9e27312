"""The CTA masks of TMA multicast (``config {cta_mask = ...}``) and the code that picks a value
by the CTA's rank in its cluster; tma_multicast.py and tma_ring.py share them.

``cta_mask`` is an integer (every CTA's mask: bit ``r`` names the CTA of rank ``r`` in the
cluster, ``%cluster_ctarank = x + nx * (y + ny * z)``) or ``array<i64: m0, m1, ...>``, one mask
per rank. A CTA's mask is its *group*: the CTAs that fill the same tile together, each issuing
its share of the boxes to all of them. So the masks must partition the cluster: each CTA is in
its own mask (its copy fills its own tile), names only CTAs of the cluster, and the CTAs of a
mask have that same mask (each one receives the others' shares); every group has one size (a
stage's empty barrier counts the consumers of as many CTAs in every CTA). A 2x2 cluster (rank
``x + 2y``) multicasting along its rows is ``array<i64: 3, 3, 12, 12>``, along its columns
``array<i64: 5, 10, 5, 10>``.

A value that depends on the rank (this CTA's mask, whether it issues box ``i``, whether a
consumer arrives on the barrier of CTA ``q``) is built from ``cuda.cluster_block_rank`` with
constant bit sets (`rank_in`) and selects (`by_rank`); a value the same for every rank is a
constant.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseArrayBase, IndexType, IntegerAttr, IntegerType, i1
from xdsl.ir import Attribute, SSAValue

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.dispatch import fail

MAX_CLUSTER = 16
"""A ``.multicast::cluster`` mask is 16 bits."""


@dataclass(frozen=True)
class Groups:
    """The mask of each rank of a cluster of ``len(masks)`` CTAs (module docstring)."""

    masks: tuple[int, ...]

    @property
    def ctas(self) -> int:
        return len(self.masks)

    @property
    def size(self) -> int:
        """The CTAs of each group."""
        return bin(self.masks[0]).count("1")

    def member(self, rank: int) -> int:
        """The position of ``rank`` in its group (the share of the boxes it issues)."""
        return bin(self.masks[rank] & ((1 << rank) - 1)).count("1")

    def ranks_where(self, test) -> int:
        """The bit set of the ranks ``r`` for which ``test(r)`` holds."""
        return sum(1 << r for r in range(self.ctas) if test(r))

    def varying_dims(self, cluster: tuple[int, ...]) -> set[int]:
        """The cluster dims (0 = x) along which the CTAs of some group differ."""
        coords = [_coords(r, cluster) for r in range(self.ctas)]
        dims = set()
        for r, mask in enumerate(self.masks):
            for q in range(self.ctas):
                if mask >> q & 1:
                    dims |= {d for d in range(len(cluster)) if coords[q][d] != coords[r][d]}
        return dims


def _coords(rank: int, cluster: tuple[int, ...]) -> tuple[int, ...]:
    out = []
    for n in cluster:
        out.append(rank % n)
        rank //= n
    return tuple(out)


def _bits(mask: int) -> str:
    return f"0b{mask:b}"


def _values(value: Attribute, n: int) -> tuple[int, ...]:
    if isinstance(value, IntegerAttr) and value.type != i1:
        return (int(value.value.data),) * n
    if isinstance(value, DenseArrayBase) and isinstance(value.elt_type, IntegerType):
        masks = tuple(int(v) for v in value.get_values())
        if len(masks) != n:
            fail(f"config cta_mask lists {len(masks)} masks; the cluster has {n} CTAs: one "
                 f"mask per rank (array<i64: {', '.join(['...'] * min(n, 4))}>)")
        return masks
    fail(f"config cta_mask must be an integer (the mask of every CTA) or array<i64: ...> (one "
         f"mask per rank of the cluster), got {value}")


def cluster_groups(value: Attribute, cluster: tuple[int, ...]) -> Groups:
    """The groups of a ``cta_mask`` config value in a cluster of shape ``cluster``, checked
    (module docstring); a mask that cannot work fails with what to write."""
    n = math.prod(cluster)
    if n > MAX_CLUSTER:
        fail(f"a cta_mask holds {MAX_CLUSTER} CTAs; the cluster has {n}")
    masks = _values(value, n)
    every = (1 << n) - 1
    for r, mask in enumerate(masks):
        if mask < 0 or mask >> n:
            fail(f"config cta_mask {_bits(mask)} (rank {r}) names CTAs outside the cluster of "
                 f"{n} (ranks 0..{n - 1}: masks below {every + 1})")
        if not mask >> r & 1:
            fail(f"the CTA of rank {r} is not in its own cta_mask {_bits(mask)}: its copy "
                 f"fills its own tile, so its mask must name it; write the whole cluster "
                 f"(cta_mask = {every}) or one mask per rank, each rank's group (e.g. the rows "
                 f"of a 2x2 cluster: cta_mask = array<i64: 3, 3, 12, 12>)")
    for r, mask in enumerate(masks):
        for q in range(n):
            if mask >> q & 1 and masks[q] != mask:
                fail(f"cta_mask: rank {r} multicasts to rank {q} ({_bits(mask)}) but rank "
                     f"{q}'s mask is {_bits(masks[q])}; the CTAs of a mask must share it (each "
                     f"fills the tile with the shares of the others)")
    sizes = sorted({bin(m).count("1") for m in masks})
    if len(sizes) > 1:
        fail(f"cta_mask has groups of {' and '.join(map(str, sizes))} CTAs; every group must "
             f"have one size (each CTA's empty barriers count the consumers of its group)")
    return Groups(masks)


# --- values by rank -------------------------------------------------------------------------------


def _const(b: Builder, value: int, t) -> SSAValue:
    return b.insert(arith.ConstantOp(IntegerAttr(value, t))).result


def rank(b: Builder) -> SSAValue:
    return b.insert(cuda.ClusterBlockRankOp()).results[0]


def rank_in(b: Builder, ranks: int, ctas: int) -> SSAValue | None:
    """An i1 that holds in the CTAs whose rank is in the bit set ``ranks`` (of a cluster of
    ``ctas``); None when that is every CTA."""
    if ranks == (1 << ctas) - 1:
        return None
    r = rank(b)
    if bin(ranks).count("1") == 1:
        one = _const(b, ranks.bit_length() - 1, IndexType())
        return b.insert(arith.CmpiOp(r, one, "eq")).result
    shifted = b.insert(arith.ShRUIOp(_const(b, ranks, IndexType()), r)).result
    bit = b.insert(arith.AndIOp(shifted, _const(b, 1, IndexType()))).result
    return b.insert(arith.CmpiOp(bit, _const(b, 0, IndexType()), "ne")).result


def by_rank(b: Builder, values: tuple[int, ...], t) -> SSAValue:
    """The value ``values[rank]`` of type ``t``: a constant when all are equal, else selects
    on the rank's bit sets."""
    distinct = list(dict.fromkeys(values))
    out = _const(b, distinct[-1], t)
    for v in reversed(distinct[:-1]):
        ranks = sum(1 << r for r, x in enumerate(values) if x == v)
        cond = rank_in(b, ranks, len(values))
        out = b.insert(arith.SelectOp(cond, _const(b, v, t), out)).result
    return out
