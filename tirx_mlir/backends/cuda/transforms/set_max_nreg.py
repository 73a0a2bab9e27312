"""``cuda-set-max-nreg``: a warp-specialised kernel's producer warpgroup gives its registers to
the consumer warpgroups (``setmaxnreg``), as CUTLASS's and FlashAttention 3's sm90 kernels do,
so that more CTAs fit an SM or the consumers hold more.

``cuda-split-roles`` leaves a kernel's K loop as one ``scf.if`` tagged ``cuda.role_split``
(split_roles.py): the consumer warpgroups' loop and drain, else the producer's loop. On sm_90a,
when that ``scf.if`` is at the kernel's top level, its condition is a function of the thread id
that holds for whole warpgroups (role_registers.thread_values), and the numbers fit
(role_registers.register_budget: the CTAs per SM that shared memory and threads allow, each
consumer thread still getting at least the estimate of what its code needs, and more CTAs than
every thread holding that estimate would allow), the pass writes::

    scf.if %c {                         // the consumers
      ptx.setmaxnreg "inc" C
      <the consumers' register set-up moved from before the split>
      <consumers' loop; drain>
      <the kernel's code after the split>
    } else {                            // the producer
      ptx.setmaxnreg "dec" P
      <producer's loop>
    }

and records the launch's registers per thread on the kernel, ``cuda.max_registers = R``
(`MAX_REGISTERS`; the printers write ``.maxnreg R`` / ``__maxnreg__(R)``: ptxas honours
``setmaxnreg`` only when the kernel fixes its register count, else advisory C7508 and the
instruction is ignored). ``P * producers + C * consumers <= R * warpgroups``: the counts move
within the CTA's pool.

Two moves make the kernel one ptxas (13.0) can compile; both keep every thread's effects:

* *the code after the split* goes into the consumers' branch: ptxas cannot allocate code that
  both roles reach with different register counts (it fails with C7600, "Register allocation
  failed"). It is moved only when it means nothing to a producer thread: pure ops, register code
  (split_roles.register_code: the thread's own registers and its warp's, which the producer's
  threads never read again) and ``scf.if`` whose condition is false in every producer thread
  (an epilogue guarded by ``warp < 4``); otherwise the pass leaves the kernel as it is.
* *register code before the split* that only the consumers' arrays see (a tile's zeroing, a
  softmax's running max) moves to the start of the consumers' branch, after the ``inc``: ptxas
  spills a wgmma accumulator that is live across a ``setmaxnreg`` (measured: the flash
  attention's 32 accumulators, a 128-byte stack frame and serialised wgmmas, C7512).

The tag is removed in every case; ``enabled=False`` (the pipeline's ``setmaxnreg=false``) only
removes it.

The pass reports what it changes (`tirx_mlir.changes`): each tagged op whose tag it removes (its
own attributes), and a kernel it rewrites (whole: its body's ops move between blocks). A kernel
without a tag, such as every kernel that ``cuda-split-roles`` did not split, is reported
unchanged, so the verification after the pass has nothing to visit again (it verified the whole
module before, ~1.2 ms of softmax_row's compile).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.cuda.max_registers import MAX_REGISTERS
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx
from tirx_mlir.backends.cuda.dispatch.tma_ring import pure_loop_op
from tirx_mlir.backends.cuda.memory import LOCAL
from tirx_mlir.backends.cuda.transforms import role_registers as R
from tirx_mlir.backends.cuda.transforms.allocate_shared import ARENA_ATTR
from tirx_mlir.backends.cuda.transforms.split_roles import ROLE_SPLIT, register_code
from tirx_mlir.changes import current_changes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.ir_walk import walk_ops
from tirx_mlir.target.target import kernel_target

ARCH = "sm_90a"
SM_SHARED, BLOCK_RESERVED, SHARED_UNIT = 228 * 1024, 1024, 128
"""sm_90's shared memory per SM, reserved per block, and its allocation unit (CUDA C++
Programming Guide, compute capability 9.0; the CUDA occupancy calculator)."""
SM_THREADS, SM_BLOCKS = 2048, 32


def max_ctas(threads: int, shared_bytes: int) -> int:
    """CTAs per SM that shared memory and threads allow (registers aside)."""
    block = math.ceil((shared_bytes + BLOCK_RESERVED) / SHARED_UNIT) * SHARED_UNIT
    return min(SM_SHARED // block, SM_THREADS // threads, SM_BLOCKS)


def _local_arrays(op: Operation) -> set[SSAValue]:
    """The local arrays ``op`` (and its regions) loads or stores."""
    found = set()
    for inner in op.walk():
        if isinstance(inner, (LoadOp, StoreOp)):
            t = inner.memory.type
            if isinstance(t, BufferType) and t.scope_name == LOCAL:
                found.add(inner.memory)
    return found


def consumer_demand(ops: list[Operation]) -> int:
    """Registers per thread the consumers' code ``ops`` needs, estimated: its local arrays'
    registers plus `role_registers.DEMAND_MARGIN`, a multiple of 8."""
    arrays = set().union(*(_local_arrays(op) for op in ops)) if ops else set()
    held = sum(R.array_registers(math.prod(a.type.get_shape()), a.type.element_type.bitwidth)
               for a in arrays)
    return -(-(held + R.DEMAND_MARGIN) // 8) * 8


def _producer_safe(op: Operation, producer: list[int], threads: int, memo) -> bool:
    """Whether ``op`` (after the split) means nothing to the producer's threads ``producer``:
    an ``scf.if`` when its condition is false in each of them and its else branch (which they
    run) holds only such ops."""
    if pure_loop_op(op) or register_code(op):
        return True
    if not isinstance(op, scf.IfOp) or op.results:
        return False
    cond = R.thread_values(op.cond, threads, memo)
    if cond is None or any(cond[t] for t in producer):
        return False
    return all(isinstance(inner, scf.YieldOp) or _producer_safe(inner, producer, threads, memo)
               for block in op.false_region.blocks for inner in block.ops)


def _sinkable(before: list[Operation], theirs: set[SSAValue],
              consumers: set[Operation]) -> list[Operation]:
    """The register code of ``before`` (the ops before the split, in order) that can move into
    the consumers' branch: it touches only arrays the producers (``theirs``) and the ops staying
    after it do not, and its results are used only by ops in ``consumers`` (the branch, the
    tail and the ops already moved). In program order."""
    blocked: set[SSAValue] = set()
    moved: list[Operation] = []
    for op in reversed(before):
        arrays = _local_arrays(op)
        uses_inside = all(use.operation in consumers for r in op.results for use in r.uses)
        if arrays and not pure_loop_op(op) and register_code(op) and uses_inside and \
                not arrays & (theirs | blocked):
            moved.append(op)
            consumers.update(op.walk())
        else:
            blocked |= arrays
    return moved[::-1]


def rebalance(kernel: KernelOp, target: str | None = None,
              enabled: bool = True) -> R.Budget | None:
    """Apply the pass to one kernel (module docstring); its budget, or None when unchanged."""
    tagged = [op for op in walk_ops(kernel) if ROLE_SPLIT in op.attributes]
    changes = current_changes()
    for op in tagged:
        del op.attributes[ROLE_SPLIT]
        changes.changed(op, inside=False)
    body = kernel.body.block
    split = next((op for op in tagged if op.parent_block() is body), None)
    resolved = kernel_target(kernel, target, required=False)
    dims = kernel.thread_dims()
    if not enabled or split is None or resolved is None or resolved.arch != ARCH or \
            any(d != 1 for d in dims[1:]) or not isinstance(split, scf.IfOp) or \
            not split.false_region.blocks:
        return None
    threads = math.prod(dims)
    memo: dict = {}
    cond = R.thread_values(split.cond, threads, memo)
    if cond is None or threads % R.WARPGROUP:
        return None
    roles = [{bool(c) for c in cond[w:w + R.WARPGROUP]} for w in range(0, threads, R.WARPGROUP)]
    if any(len(r) != 1 for r in roles):
        return None  # a warpgroup with threads on both sides
    producer = [t for t in range(threads) if not cond[t]]
    ops = list(body.ops)
    at = ops.index(split)
    tail = ops[at + 1:-1]  # the terminator stays
    if not all(_producer_safe(op, producer, threads, memo) for op in tail):
        return None
    consumers = {inner for op in tail for inner in op.walk()}
    consumers.update(inner for inner in split.true_region.walk())
    theirs = set().union(*(_local_arrays(op) for op in split.false_region.block.ops))
    moved = _sinkable(ops[:at], theirs, consumers)
    mine = [*moved, *split.true_region.block.ops, *tail]
    demand = consumer_demand(mine)
    entry_min = R.wgmma_need(max((len(inner.results) for op in mine for inner in op.walk()
                                  if inner.name.startswith("ptx.wgmma_mma_async")), default=0))
    shared = kernel.attributes.get(ARENA_ATTR)
    limit = max_ctas(threads, shared.value.data if shared else 0)
    budget = R.register_budget(threads, sum(True in r for r in roles), demand, entry_min, limit)
    if budget is None or budget.ctas <= R.uniform_ctas(threads, max(demand, entry_min), limit):
        return None  # no more CTAs per SM than without it
    _rewrite(split, moved, tail, budget)
    kernel.attributes[MAX_REGISTERS] = IntegerAttr(budget.entry, i64)
    changes.changed(kernel)  # ops moved into the split's branches, two inserted, the launch
    return budget


def _rewrite(split: scf.IfOp, moved: list[Operation], tail: list[Operation],
             budget: R.Budget) -> None:
    rewriter = Rewriter()
    mine, theirs = split.true_region.block, split.false_region.block
    rewriter.insert_op(ptx("setmaxnreg", [], action="dec", count=budget.producer),
                       InsertPoint.at_start(theirs))
    first = mine.first_op
    rewriter.insert_op(ptx("setmaxnreg", [], action="inc", count=budget.consumer),
                       InsertPoint.before(first))
    for op in moved:
        op.detach()
        rewriter.insert_op(op, InsertPoint.before(first))
    for op in tail:
        op.detach()
        rewriter.insert_op(op, InsertPoint.before(mine.last_op))


@dataclass(frozen=True)
class CudaSetMaxNRegPass(ModulePass):
    """Re-balance registers between a split kernel's roles (module docstring)."""

    name = "cuda-set-max-nreg"
    REPORTS_CHANGES = True  # each tag removed, each kernel rewritten (module docstring)
    target: str | None = None
    enabled: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            rebalance(kernel, self.target, self.enabled)
