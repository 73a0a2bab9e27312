"""One wgmma group in flight across the K loop of a pipelined ring, as CUTLASS's sm90
warp-specialised mainloop keeps it (``K_PIPE_MMAS = 1``).

Without it a consumer warpgroup waits for every K step's wgmmas (``wgmma.wait_group 0``) before
it releases the ring stage they read, so the tensor cores idle between K steps. With it, K step
``k`` issues its wgmmas, commits them and waits with ``wgmma.wait_group 1``, which retires every
group but the newest one: step ``k - 1``'s. Only then is step ``k - 1``'s stage released (the
consumer warps arrive on its ``empty`` mbarrier, tma_ring.py `release`); step ``k``'s stays
read until the next step's wait. After the loop, ``wgmma.wait_group 0`` retires the last group
and its stage is released (the *drain*), before anything reads the accumulators.

Which stage is still to be released is a private ``local`` i32 per barrier pair, stage slot of
the GEMM and thread (the stage + 1, 0 for none), so any loop structure works, as the ring's use
bits do: each execution of the GEMM releases the stage the register names (when it names one)
and stores its own; the drain releases and clears it. A stage may be refilled only after its
release, so the producer of step ``k`` waits for step ``k - stages``'s stage, released at step
``k - stages + 1``: rings of two or more stages do not deadlock (a ring of one would).

ptxas serialises wgmma (advisory C7518, a warpgroup wait it inserts in a divergent path) when a
group in flight crosses the edge of the consumers' ``scf.if``, as it does when every K step
has its own: so the loop is tagged (`mark`) and transforms/split_roles.py gives the consumers
a loop of their own inside one ``scf.if``, the drain after it, as CUTLASS's consumer branch.

When it applies (`in_flight_loop`): an accumulating cta-scope ``gemm_async`` whose shared
operands are stages of pipelined rings of two or more stages (one at least) or tiles only the
TMA writes that are no ring (one-shot loads before the loop, tma_one_shot.py: the loop only
reads them, nothing releases them), A not in registers (an rs-form A's registers would be read
by the group in flight), in a CTA whose producer has a
warpgroup of its own, placed directly in an ``scf.for`` body (no results) whose other tile ops
are only copies into pipelined rings (no other GEMM) and which holds no nested region: so its
accumulator is touched by nothing else in the loop (the in-flight group owns its registers
until the next step's wait or the drain) and the loop splits by role. Other GEMMs keep
``wait_group 0`` and release their stages at once.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, StringAttr, UnitAttr, i32
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch import tma_ring as ring_
from tirx_mlir.backends.cuda.layout.roles import consumer_warpgroups, warpgroups
from tirx_mlir.dialects.tirx.attributes import BufferType

MIN_STAGES = 2
"""The fewest stages a ring needs for its stage to be released one K step late."""
SPLIT = "cuda.split_roles"
"""The loop attribute that asks transforms/split_roles.py to give each role its own loop."""
ROLE = "cuda.role"
CONSUMER_ROLE, DRAIN_ROLE = "consumer", "drain"


def in_flight_loop(op, ctx, operands: list) -> scf.ForOp | None:
    """The ``scf.for`` across whose iterations ``op`` keeps one wgmma group in flight, or None
    (``operands``: its shared operands, gemm_async.py ``_Operand``; see the module docstring)."""
    loop = op.parent_op()
    kernel = ctx.kernel
    if not op.flag("accum") or not isinstance(loop, scf.ForOp) or loop.results or \
            op.a.type.scope_name == "local" or op.exec_scope.value != "cta":
        return None
    if warpgroups(kernel) < 2 or consumer_warpgroups(kernel) >= warpgroups(kernel):
        return None  # the consumers need a warpgroup of their own (split_roles.py)
    ring = [x for x in operands if x.pipelined]
    if not ring or not all(x.view.stages >= MIN_STAGES for x in ring) or \
            not all(x.pipelined or x.async_proxy_writes for x in operands):
        return None  # besides ring stages: one-shot TMA tiles (tma_one_shot.py)
    if not ring_.ring_loops(ctx).get(loop, False):
        return None
    return loop


def mark(loop: scf.ForOp, consumer: scf.IfOp, drain: scf.IfOp) -> None:
    """Tag the loop for `split_roles` (transforms/split_roles.py): ``consumer`` is the
    consumers' code in its body, ``drain`` their code right after it."""
    loop.attributes[SPLIT] = UnitAttr()
    consumer.attributes[ROLE] = StringAttr(CONSUMER_ROLE)
    drain.attributes[ROLE] = StringAttr(DRAIN_ROLE)


def _pending(ctx, alloc: SSAValue, slot: int) -> SSAValue:
    """The private register naming the stage of the barrier pair of ``alloc`` that waits for
    its release (stage + 1; 0: none); ``slot``: which of the GEMM's stages of that pair (a ring
    read at two stages by one GEMM, as A's and B's tiles of one alloc, holds two)."""
    return ctx.alloc_private(("wgmma_pending_release", ring_.barrier_key(ctx, alloc), slot),
                             BufferType((1,), i32, "local"), _zero)


def _zero(b: Builder, reg: SSAValue) -> None:
    b.insert(cuda.StoreOp.build(operands=[reg, ring_.const(b, 0, IndexType()),
                                          ring_.const(b, 0)]))


def release_pending(ctx, b: Builder, operand, slot: int, store: SSAValue | None) -> None:
    """Release the stage the pending register ``slot`` of ``operand``'s barrier pair names (if
    any), then store ``store`` (an index: this step's stage, pending now) or 0 (the drain)."""
    release_pending_view(ctx, b, operand.view, slot, store)


def release_pending_view(ctx, b: Builder, view: "ring_.StageView", slot: int,
                         store: SSAValue | None, release: bool = True) -> None:
    """`release_pending` of the ring stage view ``view`` (dispatch/ring_loop_roles.py releases
    a deferred GEMM's stage at the wait of the GEMM after it); ``release=False``: only the
    store (the register is known to name no stage: that GEMM's wait cleared it)."""
    reg = _pending(ctx, view.alloc, slot)
    zero = ring_.const(b, 0, IndexType())
    if not release:
        _store_pending(b, reg, zero, store)
        return
    pending = b.insert(cuda.LoadOp.build(operands=[reg, zero], result_types=[i32])).result
    named = b.insert(arith.CmpiOp(pending, ring_.const(b, 0), "ne")).result
    stage = b.insert(arith.IndexCastOp(b.insert(arith.SubiOp(pending, ring_.const(b, 1))).result,
                                       IndexType())).result
    ring_.release(b, ring_.ring_barriers(ctx, view), stage, when=named)
    _store_pending(b, reg, zero, store)


def _store_pending(b: Builder, reg: SSAValue, zero: SSAValue, store: SSAValue | None) -> None:
    """Store ``store`` + 1 (an index: a stage now pending) or 0 (none) into ``reg``."""
    if store is None:
        new = ring_.const(b, 0)
    else:
        new = b.insert(arith.AddiOp(b.insert(arith.IndexCastOp(store, i32)).result,
                                    ring_.const(b, 1))).result
    b.insert(cuda.StoreOp.build(operands=[reg, zero, new]))


def drain(ctx, loop: scf.ForOp, operands: list, consumer_block) -> scf.IfOp:
    """After ``loop``: the consumers wait for their last group (``wgmma.wait_group 0``) and
    release its stages (``consumer_block(builder)``: a builder in the consumers' ``scf.if``,
    returned)."""
    outer = Builder(InsertPoint.after(loop))
    inner = consumer_block(outer)
    inner.insert(ptx("wgmma_wait_group", [], n=0))
    for slot, x in enumerate(operands):
        release_pending(ctx, inner, x, slot, None)
    ring_.close_if(inner)
    guard = inner.insertion_point.block.parent_op()
    assert isinstance(guard, scf.IfOp)
    return guard
