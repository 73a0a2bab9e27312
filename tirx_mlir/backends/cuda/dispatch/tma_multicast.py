"""TMA multicast for ``tma_auto``: ``config {cta_mask = M}`` (TIRx's config key) issues each box
once for the whole cluster with ``cp.async.bulk.tensor...multicast::cluster``.

At the tile level the config changes nothing: every CTA's copy_async still fills its own
destination with its own source region. Multicast is correct when that region is the same in
every CTA of the cluster, which the variant checks: each offset of the global view must be
*cluster-uniform* (built by arith from constants, loop induction variables with uniform bounds,
``tirx.cluster_id`` and ``tirx.cta_id`` along dims the cluster does not split); ``M`` must name
every CTA of the cluster (``2^n - 1``). The lowering then splits the boxes among the CTAs (box
``i`` by the CTA of rank ``i % n``), each multicast to all of them at the same shared offset
and completing on each CTA's ``full`` mbarrier at the same offset, which every CTA arms with the
whole tile's bytes as without multicast. A box from a peer may land before this CTA's
``expect_tx``; the transaction count covers that (PTX ISA "mbarrier": tx-count may go
negative until the expected bytes are added).

Who may overwrite a stage: in a pipelined ring (its copies all multicast, its readers
``gemm_async``: tma_ring.py) every consumer thread releases the stage on the ``empty`` barrier
of every CTA of the cluster, and each producer waits on its own, so no CTA refills a stage a
peer still reads; no cluster barrier in the loop. Otherwise (a multicast copy whose tile
something other than a gemm_async reads, or a ring that multicast and plain copies both
write) every thread of the cluster meets at a cluster barrier before the issue (every CTA is
done with the stage's previous contents and has initialised its barriers) and waits for the
copy after it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, i16
from xdsl.ir import BlockArgument, SSAValue

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.kernel import ClusterIdOp, CtaIdOp, KernelOp
from tirx_mlir.dispatch import fail


@dataclass(frozen=True)
class Multicast:
    """The cluster's CTA count and the mask every box goes to."""

    ctas: int
    mask: int


def _uniform(value: SSAValue, cluster: tuple[int, ...], seen: dict) -> bool:
    """Whether ``value`` is the same in every CTA of a cluster (module docstring)."""
    if value in seen:
        return seen[value]
    seen[value] = False  # a cycle (a loop-carried value) is not uniform
    if isinstance(value, BlockArgument):
        loop = value.block.parent_op()
        ok = isinstance(loop, scf.ForOp) and value is loop.body.block.args[0] and \
            all(_uniform(v, cluster, seen) for v in (loop.lb, loop.ub, loop.step))
    else:
        owner = value.owner
        if isinstance(owner, (arith.ConstantOp, ClusterIdOp)):
            ok = True
        elif isinstance(owner, CtaIdOp):
            ok = (cluster + (1, 1))[owner.dim_index] == 1
        elif owner.dialect_name() == "arith":
            ok = all(_uniform(v, cluster, seen) for v in owner.operands)
        else:
            ok = False
    seen[value] = ok
    return ok


def plan(op, kernel: KernelOp, src) -> Multicast | None:
    """The multicast of a tma_auto copy with ``config cta_mask``, checked (module docstring);
    None without the config."""
    value = op.config_dict().get("cta_mask")
    if value is None:
        return None
    cluster = kernel.cluster_dims()
    if cluster is None:
        fail("config cta_mask multicasts to the CTAs of a cluster; the kernel has no cluster "
             "launch")
    n = math.prod(cluster)
    if n > 16:
        fail(f"a cta_mask holds 16 CTAs; the cluster has {n}")
    every = (1 << n) - 1
    if not isinstance(value, IntegerAttr) or value.value.data != every:
        fail(f"config cta_mask must name every CTA of the cluster of {n}: {every}")
    if op.exec_scope != ExecScope.CTA:
        fail(f"a multicast copy is cta-collective (every thread of the cluster meets before "
             f"it); this one is at {op.exec_scope.value} scope")
    seen: dict = {}
    _reached_by_the_whole_cluster(op, tuple(cluster), seen)
    for d, offset in enumerate(src.offsets):
        for term, _ in offset.terms:
            if not _uniform(term, tuple(cluster), seen):
                fail(f"the global tile differs between the CTAs of the cluster (dim {d}'s "
                     f"offset depends on {term.name_hint and '%' + term.name_hint or term}); "
                     f"multicast needs one tile for the whole cluster")
    return Multicast(n, every)


def _reached_by_the_whole_cluster(op, cluster: tuple[int, ...], seen: dict) -> None:
    """Every CTA of the cluster must reach the copy as often as the others (its cluster
    barrier would hang otherwise): the conditions and loop bounds around it may not depend on
    the CTA."""
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
            if not _uniform(v, cluster, seen):
                fail(f"a multicast copy under a {parent.name} whose condition or bounds differ "
                     f"between the CTAs of the cluster: each CTA must reach its cluster "
                     f"barrier as often as the others")
        parent = parent.parent_op()


def before_issue(b: Builder, cast: Multicast | None) -> None:
    """Every thread of the cluster meets before a multicast copy (module docstring)."""
    if cast is not None:
        b.insert(cuda.SyncClusterOp())


def box_builder(inner: Builder, cast: Multicast | None, index: int) -> Builder:
    """Where box ``index`` is issued: the issuer's block, or its part for the CTA of rank
    ``index % n``."""
    if cast is None:
        return inner
    rank = inner.insert(cuda.ClusterBlockRankOp()).results[0]
    mine = inner.insert(arith.CmpiOp(rank, ring_.const(inner, index % cast.ctas, IndexType()),
                                     "eq")).result
    return ring_.emit_if(inner, mine)


def issue_box(at: Builder, cast: Multicast | None, operands: list[SSAValue], dim: str) -> None:
    """The box's copy (multicast to the cluster when ``cast``), and the end of its block."""
    if cast is None:
        at.insert(ptx("cp_async_bulk_tensor_g2s", operands, dim=dim, space="shared::cluster"))
        return
    mask = at.insert(arith.ConstantOp(IntegerAttr(cast.mask, i16))).result
    at.insert(ptx("cp_async_bulk_tensor_g2s_multicast", [*operands, mask], dim=dim))
    ring_.close_if(at)
