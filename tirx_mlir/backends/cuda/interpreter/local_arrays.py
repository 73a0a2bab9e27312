"""``tirx.alloc`` at the CUDA level: a thread's ``local`` array, and static shared arrays.

* ``tirx.alloc : !tirx.buffer<N x T, local>`` gives every lane its own array of N elements (a
  `LocalArray`: one ``(L, N)`` numpy array for the wave, row ``l`` being lane ``l``'s). Fresh
  contents are all-ones bytes, as fresh shared memory (NaN in every float type, -1 in every
  integer type), so a read before a write shows. Running the alloc again (in a loop body)
  refreshes the running lanes' rows only; the other lanes keep theirs.
* ``cuda.load`` / ``cuda.store`` on it (cuda_ops.py calls `load` / `store`) read and write the
  running lanes' rows at their own index (constant or per lane), bounds-checked as every
  buffer is (cuda_ops.py, a located error); a store rounds to the element type (``interpreter.runtime.convert``). The array is
  private to its thread: no memory observer sees it (no races, no bank conflicts), and a
  store does not wake pollers.
* A register tile may hold values still in flight (`values.Deferred`: wgmma accumulators
  between the ``wgmma.mma_async`` and the ``wgmma.wait_group`` that retires it, stored back in
  a K loop that keeps one group in flight): a scalar store of one at a constant index keeps
  it there (`LocalArray.pending`), a load of that element returns it still deferred (a chained
  wgmma may take it; any other op reading it is the engine's located error), and once it is
  delivered the element reads as any other. A store of an undelivered value anywhere else
  (at a per-lane index, into memory) is that error at the store.
* ``tirx.alloc`` in ``shared`` is a static shared array the executor laid out with the
  ``cuda.shared_alloc`` arrays (executor.shared_layout); it yields that buffer.

An op costs its steps as every op does (engine.run_block); a constant index (every lane the
same, the register tiles of dispatched code) is one slice of the ``(L, N)`` array.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tirx_mlir.backends.cuda.interpreter.core_ops import TileView
from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.backends.cuda.interpreter.memory import FRESH_BYTE
from tirx_mlir.backends.cuda.interpreter.values import Deferred, lane_dtype
from tirx_mlir.backends.cuda.memory import LOCAL, SHARED
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp

SPACE = LOCAL


@dataclass
class LocalArray:
    """The run-time value of a ``local`` buffer: ``data[lane, element]``."""

    data: np.ndarray
    name: str = ""
    space: str = SPACE
    pending: dict = field(default_factory=dict)
    """element -> (the `Deferred` stored there, the lanes that stored it), until delivered or
    overwritten (module docstring)."""

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def numel(self) -> int:
        return self.data.shape[1]

    def refresh(self, mask: np.ndarray) -> None:
        """All-ones bytes in the rows of the lanes of ``mask``."""
        self.data.view(np.uint8).reshape(len(self.data), -1)[mask] = FRESH_BYTE

    def load(self, ctx, index: np.ndarray, count: int) -> np.ndarray:
        """``(L, count)``: each running lane's elements ``index .. index + count`` (the other
        lanes' rows hold garbage, as every inactive lane's value does); the caller checked
        the bounds."""
        first = _uniform(ctx, index)
        if first is not None:
            return self.data[:, first:first + count].copy()
        lanes = ctx.lanes
        out = np.empty((len(self.data), count), dtype=self.dtype)
        out[lanes] = self.data[lanes[:, None], index[lanes, None] + np.arange(count)]
        return out

    def deferred(self, ctx, index: np.ndarray, count: int) -> Deferred | None:
        """The undelivered value a load of ``count`` elements at ``index`` by the running lanes
        reads, if any (raising the engine's error for a load that would take it apart)."""
        if not self.pending:
            return None
        first = _uniform(ctx, index)
        hits = [i for i in (range(first, first + count) if first is not None else
                            np.unique(index[ctx.lanes, None] + np.arange(count)).tolist())
                if i in self.pending]
        found = None
        for i in hits:
            value, lanes = self.pending[i]
            if value.ready:
                del self.pending[i]
            elif (lanes & ctx.mask).any():
                if first is None or count != 1 or (ctx.mask & ~lanes).any():
                    ctx.engine._read(value, ctx.op, ctx)  # noqa: SLF001 - its located error
                found = value
        return found

    def store_deferred(self, ctx, index: np.ndarray, value: Deferred) -> None:
        """Keep the undelivered ``value`` (one element per lane) at ``index``."""
        first = _uniform(ctx, index)
        if first is None:
            ctx.engine._read(value, ctx.op, ctx)  # noqa: SLF001 - its located error
        self.store(ctx, index, value.value.astype(self.dtype, copy=False).reshape(-1, 1))
        self.pending[first] = (value, ctx.mask.copy())

    def store(self, ctx, index: np.ndarray, values: np.ndarray) -> None:
        """Write each running lane's ``values`` (``(L, count)`` of the array's dtype)."""
        count = values.shape[1]
        first = _uniform(ctx, index)
        if self.pending:
            touched = range(first, first + count) if first is not None else \
                np.unique(index[ctx.lanes, None] + np.arange(count)).tolist()
            for i in touched:
                self.pending.pop(i, None)
        if first is not None and ctx.mask.all():
            self.data[:, first:first + count] = values
            return
        lanes = ctx.lanes
        self.data[lanes[:, None], index[lanes, None] + np.arange(count)] = values[lanes]


def _uniform(ctx, index: np.ndarray) -> int | None:
    """The index when every lane of the wave has the same one (a constant), else None."""
    first = int(index[0])
    return first if (index == first).all() else None


@lane_impl(AllocOp)
def run_alloc(ctx, op: AllocOp, args):
    t = op.result.type
    assert isinstance(t, BufferType)
    if t.scope_name == SHARED:
        return (ctx.engine.shared_buffers[op],)
    if t.scope_name != LOCAL:
        raise ctx.error(f"tirx.alloc in {t.scope_name} has no CUDA-level meaning here; the "
                        f"SIMT interpreter allocates local (per-thread) and shared arrays",
                        hint="lower the kernel's tile ops with the cuda pipeline first")
    if t.get_layout() is not None:
        # a logical register tile of a dispatched kernel (until cuda-lower-layout): only its
        # register array is read
        return (TileView(),)
    existing = ctx.engine.env.get(op.result)
    if isinstance(existing, LocalArray):
        existing.refresh(ctx.mask)
        return (existing,)
    dtype = lane_dtype(t.element_type)
    raw = np.full((ctx.wave.L, t.numel * dtype.itemsize), FRESH_BYTE, dtype=np.uint8)
    name = f"%{op.result.name_hint}" if op.result.name_hint else "the local array"
    return (LocalArray(raw.view(dtype), name),)
