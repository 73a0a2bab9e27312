"""``cuda-allocate-shared``: every shared array of a kernel placed in the ONE dynamic shared arena,
reusing the memory of arrays whose lifetime has ended.

After dispatch and ``cuda-lower-layout`` a kernel's shared memory is static arrays: the
``cuda.shared_alloc`` ops that pass made of its shared tiles (aligned to 128 bytes, a swizzled
tile to its swizzle atom: 1024 bytes for a 128B swizzle), those the author wrote, and any
``tirx.alloc`` in shared without a layout (its alignment in `ALIGN_ATTR`). Static shared memory is limited to 48 KiB per block
and never reused; this pass makes each array a view of the dynamic arena, ``cuda.dynamic_shared
offset X align A`` (dialects/cuda/shared.py), so a kernel may use the target's whole opt-in
shared memory and two arrays that are never live together share bytes. (Author-written arrays
are planned too: a view of the arena is the same CTA-private memory, and it costs them nothing
but a pointer.)

Placement is the core allocator's (`tirx_mlir.transforms.allocate`): live ranges in program
order (an array used in a loop is live for the whole loop), first fit largest first, and its
failure report. CUDA adds four rules:

* **Barriers.** Threads run ahead of each other, so an array's bytes are free for another only
  after a CTA-wide barrier (``cuda.sync_threads``, its vote forms, ``cuda.sync_cluster``,
  ``cuda.sync_grid``) at the kernel's top level that follows its last use: every thread has
  then finished with it. An array's live range extends to that barrier (to the end of the kernel
  when there is none); reuse never adds a barrier.
* **Addresses.** The variants address shared memory through ``cuda.address`` and ptx ops: an
  array's uses are followed through every value computed from it (address arithmetic, casts)
  to the ops that finally access it. An address that flows into a region's arguments or out
  of a block (``scf.yield``, a loop's ``iter_args``) cannot be followed: the array is then live
  for the whole kernel. An array allocated inside a region (a loop body) is live for the
  whole top-level op that holds it.
* **Other CTAs.** A ``cuda.cluster_visible`` array (a dsmem copy's destination: other CTAs of
  the cluster write it whenever they run) is live for the whole kernel.
* **Alignment.** Every view is at least `MIN_ALIGN` (128) bytes aligned, or its array's own
  alignment when larger; the arena starts after any view the kernel already had (``offset`` is
  kept) at a multiple of the largest alignment.

The kernel records the arena's size in ``cuda.dynamic_shared_bytes``; the launch learns the
same size from the views (`shared.dynamic_shared_bytes`: the runtime's signature, which raises
``cudaFuncAttributeMaxDynamicSharedMemorySize`` above 48 KiB, and the SIMT executor's default).
It must fit the target's shared memory per block (`target_tags.max_shared_bytes`: 163 KiB on
sm_80, 227 KiB on sm_90): otherwise a compile-time error at the kernel lists every array's
bytes, the total, the peak of those live together and the limit, and says what to change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from tirx_mlir.backends.cuda.dialects.cuda import atomics, sync
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.cuda.shared import (ALIGN_ATTR, CLUSTER_VISIBLE_ATTR,
                                                         DynamicSharedOp,
                                                         SharedAllocOp, static_shared_array)
from tirx_mlir.backends.cuda.dialects.cuda.warp import CtaReduceOp
from tirx_mlir.backends.cuda.memory import SHARED, SHARED_DYN, SHARED_SCOPES
from tirx_mlir.backends.cuda.target_tags import DEFAULT_SHARED_BYTES, max_shared_bytes
from tirx_mlir.changes import current_changes
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, place_like
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dialects.tirx.memory_space import MemorySpace, round_up
from tirx_mlir.target.target import kernel_target
from tirx_mlir.transforms.allocate import (Buffer, FailureReport, ProgramOrder, failure,
                                           live_range, place)
from tirx_mlir.ir_uses import replace_uses
from tirx_mlir.type_tests import IsInstance, find_ops

ARENA_ATTR = "cuda.dynamic_shared_bytes"
"""Kernel attribute: bytes of the dynamic shared arena a launch gives."""
MIN_ALIGN = 128
"""Bytes: the least alignment of a planned view (TMA boxes and vector rows)."""
UNIT = 16
"""Bytes: sizes are rounded to this (one 128-bit access)."""
CODE = "CUDA-SHARED"
HINT = ("use fewer pipeline stages or smaller tiles (or shorter-lived shared tiles with a "
        "barrier between their uses), or target a GPU with more shared memory per block")
BARRIERS = (sync.SyncThreadsOp, sync.SyncThreadsVoteOp, sync.SyncClusterOp, sync.SyncGridOp)
"""Ops after which every thread of the CTA has finished what came before."""
ACCESSES = (LoadOp, StoreOp, atomics.AtomicOp, atomics.AtomicCasOp, CtaReduceOp)
"""Ops that read or write an array without letting its address escape."""
_IS_BARRIER, _IS_ACCESS = IsInstance(*BARRIERS), IsInstance(*ACCESSES)
_IS_ARRAY, _IS_SHARED_ALLOC = IsInstance(SharedAllocOp, AllocOp), IsInstance(SharedAllocOp)
_IS_VIEW = IsInstance(DynamicSharedOp)
"""The class tests of the pass's walks, answered once per op class (`type_tests`)."""


def shared_arrays(kernel: KernelOp) -> list[Operation]:
    """The static shared arrays the pass places: ``cuda.shared_alloc`` and ``tirx.alloc`` in
    shared without a layout (with one, the kernel is still tile level: a located error)."""
    out: list[Operation] = []
    for op in find_ops(kernel, _IS_ARRAY):
        if _IS_SHARED_ALLOC(op):
            out.append(op)
        elif op.result.type.scope_name in SHARED_SCOPES:
            if op.result.type.get_layout() is not None:
                raise PassError(f"shared tile {op.result.type} still has its layout; "
                                f"cuda-allocate-shared places physical arrays", op,
                                code="CUDA-PASS-ORDER",
                                hint="run tirx-dispatch and cuda-lower-layout first")
            out.append(op)
    return out


def alignment(op: Operation) -> int:
    """A view's alignment: `MIN_ALIGN`, or the array's own when larger (``cuda.shared_alloc
    align A``, or a ``tirx.alloc``'s `ALIGN_ATTR`)."""
    static = static_shared_array(op)
    return max(MIN_ALIGN, 0 if static is None else static[1])


def nbytes(btype: BufferType) -> int:
    return btype.numel * dtypes.itemsize(btype.element_type)


def address_users(op: Operation) -> list[Operation] | None:
    """The ops that access the array ``op``: its loads, stores, atomics and reductions, and
    every op that computes with or through an address taken of it (``cuda.address``, a cast
    for a ptx op, the index arithmetic, the ptx op that finally accesses it), followed through
    their results. None when an address flows where it cannot be followed (into a region's
    arguments or out of a block): the array is then live for the whole kernel."""
    from tirx_mlir.transforms.canonicalize import FactsByClass

    facts = FactsByClass.shared()  # a class's terminator trait looked up once, not per user
    found: list[Operation] = []
    seen: set[int] = set()
    stack = [op.results[0]]
    while stack:
        value = stack.pop()
        use = value.first_use  # the uses by their links (no generator, no view per use)
        while use is not None:
            user = use._operation  # noqa: SLF001
            if user.regions or facts[type(user)].terminator:
                return None
            if id(user) not in seen:
                seen.add(id(user))
                found.append(user)
                if not (_IS_ACCESS(user) and use._index == 0):  # noqa: SLF001
                    stack.extend(user.results)
            use = use._next_use  # noqa: SLF001
    return found


def lifetime(op: Operation, kernel: KernelOp, order: ProgramOrder,
             barriers: list[int] | None = None) -> tuple[int, int]:
    """The array's live range at the kernel's top level, extended to the next barrier
    (``barriers``: `barrier_positions` of the kernel, found here when not given)."""
    body = kernel.body.block
    assert body.last_op is not None
    kernel_end = order.end[body.last_op]
    holder = op
    while holder.parent_block() is not body:
        holder = holder.parent_op()  # type: ignore[assignment]
    found = address_users(op)
    if CLUSTER_VISIBLE_ATTR in op.attributes:  # other CTAs write it when they run
        return order.pos[body.first_op], kernel_end
    if found is None:
        return order.pos[holder], kernel_end
    if holder is not op:  # allocated inside a region: live for all of its top-level op
        start, end = order.pos[holder], order.end[holder]
    else:
        start, end = live_range(op, order, lambda _: found)  # type: ignore[arg-type]
    for at in barrier_positions(kernel, order) if barriers is None else barriers:
        if at > end:
            return start, at
    return start, kernel_end


def barrier_positions(kernel: KernelOp, order: ProgramOrder) -> list[int]:
    """The program positions of the kernel's top-level barriers (`BARRIERS`), in order."""
    pos = order.pos
    return [pos[top] for top in kernel.body.block.ops if _IS_BARRIER(top)]


class SharedFailureReport(FailureReport):
    """The core's report (peak, live buffers, those not placed) plus every array and the
    total."""

    def error(self, kernel, space, buffers, failed) -> PassError:
        err = failure(kernel, space, buffers, failed, self)
        total = sum(b.size for b in buffers)
        listing = ", ".join(b.name for b in sorted(buffers, key=lambda b: -b.size))
        return PassError(f"{err.message}\nshared arrays: {listing}; {total} bytes in all, "
                         f"{space.bytes_per_row} bytes per block allowed", err.op,
                         code=err.code, hint=err.hint)


@dataclass(frozen=True)
class CudaAllocateSharedPass(ModulePass):
    """Place every static shared array in the dynamic arena, reusing dead arrays' bytes."""

    name = "cuda-allocate-shared"
    report: ClassVar[FailureReport] = SharedFailureReport(CODE, HINT)
    REPORTS_CHANGES: ClassVar[bool] = True  # `allocate_shared` reports what it replaces and sets

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            allocate_shared(kernel, kernel_target(kernel, self.target, required=False),
                            self.report)


def allocate_shared(kernel: KernelOp, target, report: FailureReport = SharedFailureReport(
        CODE, HINT)) -> int:
    """Place ``kernel``'s shared arrays (see the module docstring); returns the arena's bytes
    (0 when the kernel has no shared memory)."""
    arrays = shared_arrays(kernel)
    views = find_ops(kernel, _IS_VIEW)
    reserved = max((v.int_prop("offset") + v.nbytes() for v in views), default=0)
    changes = current_changes()
    if not arrays:
        if reserved:
            kernel.attributes[ARENA_ATTR] = IntegerAttr(reserved, i64)
            changes.changed(kernel, inside=False)
        return reserved
    limit = DEFAULT_SHARED_BYTES if target is None else max_shared_bytes(target)
    base = round_up(reserved, max(alignment(a) for a in arrays))
    source = f"the opt-in shared memory per block of target '{target}'" if target is not None \
        else "no target: the 48 KiB every block may use"
    space = MemorySpace(SHARED, 1, limit, "cuda.offset", UNIT, reserve=min(base, limit),
                        source=source)
    order = ProgramOrder(kernel)
    barriers = barrier_positions(kernel, order)
    buffers = []
    for op in arrays:
        start, end = lifetime(op, kernel, order, barriers)
        size = round_up(nbytes(op.results[0].type), UNIT)  # type: ignore[arg-type]
        buffers.append(Buffer(op, size, start, end, align=alignment(op)))  # type: ignore[arg-type]
    failed = place(buffers, space.capacity, UNIT)
    if failed:
        raise report.error(kernel, space, buffers, failed)
    for buf in buffers:
        changes.removed(buf.alloc)  # its block and users (the view replacing it sits there)
        _to_view(buf.alloc, base + buf.addr, alignment(buf.alloc))  # type: ignore[operator]
    arena = max(reserved, max(base + b.addr + b.size for b in buffers))  # type: ignore[operator]
    kernel.attributes[ARENA_ATTR] = IntegerAttr(arena, i64)
    changes.changed(kernel, inside=False)
    return arena


def _to_view(op: Operation, offset: int, align: int) -> None:
    """Replace the static array ``op`` by the arena's view at ``offset``."""
    btype = op.results[0].type
    assert isinstance(btype, BufferType)
    view = DynamicSharedOp(result_types=[BufferType(btype.get_shape(), btype.element_type,
                                                    SHARED_DYN)],
                           offset=IntegerAttr(offset, i64), align=IntegerAttr(align, i64))
    place_like(view, op)
    view.attributes.pop(ALIGN_ATTR, None)  # stated by the view's align
    replace_uses(op.results[0], view.result)
    op.detach()
    op.erase()
