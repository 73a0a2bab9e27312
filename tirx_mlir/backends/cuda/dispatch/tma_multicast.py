"""TMA multicast for ``tma_auto``: ``config {cta_mask = M}`` (TIRx's config key) issues each box
once for a group of CTAs of the cluster with ``cp.async.bulk.tensor...multicast::cluster``.

At the tile level the config changes nothing: every CTA's copy_async still fills its own
destination with its own source region. ``M`` (an integer, or one mask per rank:
cluster_masks.py) splits the cluster into groups, e.g. the rows of a 2x2 cluster
(``array<i64: 3, 3, 12, 12>``). Multicast is correct when the region is the same in every CTA
of a group, which the variant checks: each offset of the global view must be *group-uniform*
(built by arith from constants, loop induction variables with uniform bounds,
``tirx.cluster_id`` and ``tirx.cta_id`` along dims no group spans).

The lowering shares the boxes among the ``g`` CTAs of each group: box ``i`` is issued by the
group's member ``i % g`` (its position in the mask); when the boxes do not divide among them,
each box is first cut along its rows into ``g`` slices, each CTA issuing its slice of every
box (as CUTLASS does), and a box whose rows do not cut into ``g`` slices of whole swizzle
atoms (8 rows; unswizzled, 128 bytes) is an error. Every share is multicast to the group at the
same shared offset and completes on each member's ``full`` mbarrier at the same offset, which
every CTA arms with the *whole* tile's bytes as without multicast. A share from a peer may land
before this CTA's ``expect_tx``; the transaction count covers that (PTX ISA "mbarrier":
tx-count may go negative until the expected bytes are added).

Who may overwrite a stage: in a pipelined ring (its copies TMA, its readers ``gemm_async``:
tma_ring.py) every consumer warp releases the stage on the ``empty`` barrier of every CTA
that writes into it (its group), and each producer waits on its own, so no CTA refills a stage
a peer still reads; no cluster barrier in the loop. Otherwise (a multicast copy whose tile
something other than a gemm_async reads) every thread of the cluster meets at a cluster
barrier before the issue (every CTA is done with the stage's previous contents and has
initialised its barriers) and waits for the copy after it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, i16, i32
from xdsl.ir import BlockArgument, SSAValue

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import cluster_masks
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.backends.cuda.layout.swizzle import Swizzle
from tirx_mlir.backends.cuda.layout.tma_box import TmaBox, TmaPlan
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.kernel import ClusterIdOp, CtaIdOp, KernelOp
from tirx_mlir.dispatch import fail

TMA_ALIGN = 128
"""Bytes a TMA box's shared destination is aligned to."""


@dataclass(frozen=True)
class Multicast:
    """The cluster's groups (cluster_masks.Groups): each rank's mask and share; for a mask
    given at run time (``cta_mask %m``), ``groups`` is None and ``mask`` the value (an index;
    its i16 after `prepare`, which adds this CTA's ``member`` and the group's ``size``)."""

    groups: cluster_masks.Groups | None
    mask: SSAValue | None = None
    ctas: int = 0
    member: SSAValue | None = None
    size: SSAValue | None = None


def _uniform(value: SSAValue, cluster: tuple[int, ...], varying: set[int], seen: dict) -> bool:
    """Whether ``value`` is the same in every CTA of a group (module docstring); ``varying``:
    the cluster dims a group spans."""
    if value in seen:
        return seen[value]
    seen[value] = False  # a cycle (a loop-carried value) is not uniform
    if isinstance(value, BlockArgument):
        loop = value.block.parent_op()
        ok = isinstance(loop, scf.ForOp) and value is loop.body.block.args[0] and \
            all(_uniform(v, cluster, varying, seen) for v in (loop.lb, loop.ub, loop.step))
    else:
        owner = value.owner
        if isinstance(owner, (arith.ConstantOp, ClusterIdOp)):
            ok = True
        elif isinstance(owner, CtaIdOp):
            d = owner.dim_index
            ok = d not in varying or (cluster + (1, 1))[d] == 1
        elif owner.dialect_name() == "arith":
            ok = all(_uniform(v, cluster, varying, seen) for v in owner.operands)
        else:
            ok = False
    seen[value] = ok
    return ok


def plan(op, kernel: KernelOp, src) -> Multicast | None:
    """The multicast of a tma_auto copy with ``config cta_mask`` or a ``cta_mask`` operand,
    checked (module docstring); None without either."""
    value = op.config_dict().get("cta_mask")
    if value is None and op.cta_mask is None:
        return None
    cluster = kernel.cluster_dims()
    if cluster is None:
        fail("cta_mask multicasts to the CTAs of a cluster; the kernel has no cluster launch")
    cluster = tuple(cluster)
    groups = None if value is None else cluster_masks.cluster_groups(value, cluster)
    if op.exec_scope != ExecScope.CTA:
        fail(f"a multicast copy is cta-collective (every thread of the cluster meets before "
             f"it); this one is at {op.exec_scope.value} scope")
    _reached_by_the_whole_cluster(op, cluster, {})
    # a run-time mask may group any CTAs: the tile must be the same in the whole cluster
    varying = set(range(len(cluster))) if groups is None else groups.varying_dims(cluster)
    seen: dict = {}
    for d, offset in enumerate(src.offsets):
        for term, _ in offset.terms:
            if not _uniform(term, cluster, varying, seen):
                fail(f"the global tile differs between the CTAs of a multicast group (dim {d}'s "
                     f"offset depends on {term.name_hint and '%' + term.name_hint or term}); "
                     f"multicast needs one tile for the CTAs of each cta_mask" +
                     ("" if groups is not None else " (a mask known only at run time: one "
                      "tile for the whole cluster)"))
    if groups is None:
        return Multicast(None, op.cta_mask, math.prod(cluster))
    return Multicast(groups)


def prepare(b: Builder, cast: Multicast | None) -> Multicast | None:
    """For a run-time mask, its 16 bits (``.multicast::cluster`` takes a ``b16``), the group's
    ``size = popcount(mask)`` and this CTA's position in it, ``member = size -
    popcount(mask >> rank)`` (the members below this rank), over the cluster's ranks, built once
    in the issuing thread; other multicasts as they are."""
    if cast is None or cast.groups is not None:
        return cast
    assert cast.mask is not None
    mask = b.insert(arith.IndexCastOp(cast.mask, i16)).result
    wide = b.insert(arith.ExtUIOp(mask, i32)).result  # zero-extended: known non-negative
    bits = b.insert(arith.IndexCastOp(wide, IndexType())).result
    size = _popcount(b, bits, cast.ctas)
    above = b.insert(arith.ShRUIOp(bits, cluster_masks.rank(b))).result
    member = b.insert(arith.SubiOp(size, _popcount(b, above, cast.ctas))).result
    return replace(cast, mask=mask, member=member, size=size)


def _popcount(b: Builder, bits: SSAValue, n: int) -> SSAValue:
    """The number of set bits among the low ``n`` of the index ``bits``."""
    one = ring_.const(b, 1, IndexType())
    total = b.insert(arith.AndIOp(bits, one)).result
    for q in range(1, n):
        shifted = b.insert(arith.ShRUIOp(bits, ring_.const(b, q, IndexType()))).result
        total = b.insert(arith.AddiOp(total, b.insert(arith.AndIOp(shifted, one)).result)).result
    return total


def share(tma: TmaPlan, cast: Multicast | None, cut: bool) -> TmaPlan:
    """The boxes as the group issues them: box ``i`` by member ``i % g``; when the boxes do not
    divide among the ``g`` members and ``cut``, each box cut along its rows into ``g`` slices
    (slice ``p`` of box ``b`` is box ``b * g + p``: member ``p`` issues it)."""
    g = 1 if cast is None or cast.groups is None else cast.groups.size
    if g == 1 or len(tma.boxes) % g == 0 or not cut:
        return tma
    non_unit = [d for d, n in enumerate(tma.box) if n != 1][:-1]
    if not non_unit:
        fail(f"a multicast group of {g} CTAs shares the tile's boxes; its {len(tma.boxes)} "
             f"box(es) of one row do not divide among {g} CTAs")
    row_dim = non_unit[0]
    rows = tma.box[row_dim]
    row_bytes = tma.box_bytes // rows
    atom = 8 if tma.swizzle is not Swizzle.NONE else -(-TMA_ALIGN // row_bytes)
    if rows % g or (rows // g) % atom or (rows // g) * row_bytes % TMA_ALIGN:
        fail(f"a multicast group of {g} CTAs shares the tile's {len(tma.boxes)} box(es) of "
             f"{rows} rows: each CTA issues a slice of every box, and {rows} rows do not cut "
             f"into {g} slices of whole {atom}-row atoms ({TMA_ALIGN}-byte aligned); use a "
             f"tile whose rows are a multiple of {g * atom}, or masks of fewer CTAs")
    part = rows // g
    box = tuple(part if d == row_dim else n for d, n in enumerate(tma.box))
    width = math.prod(tma.box[row_dim + 1:])
    slices = []
    for b in tma.boxes:
        for p in range(g):
            coords = tuple(c + p * part if d == row_dim else c for d, c in enumerate(b.coords))
            slices.append(TmaBox(b.smem_offset + p * part * width, coords))
    return replace(tma, box=box, boxes=tuple(slices))


def _reached_by_the_whole_cluster(op, cluster: tuple[int, ...], seen: dict) -> None:
    """Every CTA of the cluster must reach the copy as often as the others (its cluster
    barrier would hang otherwise): the conditions and loop bounds around it may not depend on
    the CTA."""
    every_dim = set(range(len(cluster)))
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        if isinstance(parent, scf.IfOp):
            values = [parent.cond]
        elif isinstance(parent, scf.ForOp):
            values = [parent.lb, parent.ub, parent.step]
        elif isinstance(parent, scf.WhileOp):
            fail("a multicast copy inside scf.while: every CTA of the cluster must reach "
                 "its cluster barrier as often as the others")
        else:
            values = []
        for v in values:
            if not _uniform(v, cluster, every_dim, seen):
                fail(f"a multicast copy under a {parent.name} whose condition or bounds differ "
                     f"between the CTAs of the cluster: each CTA must reach its cluster "
                     f"barrier as often as the others")
        parent = parent.parent_op()


def before_issue(b: Builder, cast: Multicast | None) -> None:
    """Every thread of the cluster meets before a multicast copy (module docstring)."""
    if cast is not None:
        b.insert(cuda.SyncClusterOp())


def box_builder(inner: Builder, cast: Multicast | None, index: int) -> tuple[Builder, bool]:
    """Where box ``index`` is issued: the issuer's block, or an ``scf.if`` in it for the CTAs
    that are member ``index % g`` of their group; and whether that ``scf.if`` was opened."""
    if cast is None:
        return inner, False
    groups = cast.groups
    if groups is None:  # box i by the member i % size of the run-time group
        assert cast.member is not None and cast.size is not None, "prepare() first"
        which = inner.insert(arith.RemUIOp(ring_.const(inner, index, IndexType()),
                                           cast.size)).result
        mine = inner.insert(arith.CmpiOp(which, cast.member, "eq")).result
        return ring_.emit_if(inner, mine), True
    mine = cluster_masks.rank_in(
        inner, groups.ranks_where(lambda r: groups.member(r) == index % groups.size),
        groups.ctas)
    return (inner, False) if mine is None else (ring_.emit_if(inner, mine), True)


def issue_box(at: Builder, cast: Multicast | None, operands: list[SSAValue], dim: str,
              opened: bool, policy: dict) -> None:
    """The box's copy (multicast to this CTA's group when ``cast``; with ``policy``'s cache
    hint, copy_async_tma._cache_policy), and the end of the block `box_builder` opened."""
    hint, extra = policy["mods"], policy["operands"]
    if cast is None:
        at.insert(ptx("cp_async_bulk_tensor_g2s", [*operands, *extra], dim=dim,
                      space="shared::cluster", **hint))
    else:
        mask = cast.mask if cast.groups is None else \
            cluster_masks.by_rank(at, cast.groups.masks, i16)
        at.insert(ptx("cp_async_bulk_tensor_g2s_multicast", [*operands, mask, *extra], dim=dim,
                      **hint))
    if opened:
        ring_.close_if(at)
