"""What a tile-dispatch variant sees: `DispatchContext` (the search itself is search.py).

The context mirrors TIRx's (apache/tvm `include/tvm/tirx/tile_primitive.h`): the target, the op's exec scope, the launch
configuration, the enclosing loop ranges, a per-kernel cache (``shared_state``), a builder for the
replacement, and explicit callbacks for side effects:

* `DispatchContext.alloc_private(key, type, init)`: a buffer allocated once at kernel entry and
  shared by every op that asks for the same key and type; ``init`` builds its initialisation,
  placed once at kernel entry (TIRx ``private_alloc``);
* `DispatchContext.add_init(build)`: code at kernel entry (TIRx ``device_init_stmt``);
* `DispatchContext.add_after_alloc(buffer, build)`: code right after the allocation of a buffer
  (TIRx ``post_buffer_def_stmt``).

Placement at kernel entry is deterministic: private buffers go after the leading allocations of
the kernel's entry block; init code goes after them, after any init code placed earlier, in the
order it was requested. Init code may use kernel arguments, private buffers and values it
creates itself. Callbacks of a variant that declines are dropped with the rest of its work.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from xdsl.builder import Builder
from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.ir_insert import LinkingBuilder, move_ops_before
from tirx_mlir.ir_walk import walk_ops
from tirx_mlir.type_tests import ClassRef, IsInstance


@dataclass
class LoopRange:
    """An enclosing ``scf.for``: its induction variable and constant bounds where known."""

    iv: SSAValue
    lower: int | None
    upper: int | None
    step: int | None

    @property
    def trip_count(self) -> int | None:
        if self.lower is None or self.upper is None or self.step is None:
            return None
        return max(0, -(-(self.upper - self.lower) // self.step))


@dataclass
class KernelState:
    """Per-kernel state of one dispatch run: private buffers by key, a shared cache, and where
    the last init code went."""

    kernel: KernelOp
    private: dict[Any, SSAValue] = field(default_factory=dict)
    shared_state: dict[str, Any] = field(default_factory=dict)
    init_ops: list[Operation] = field(default_factory=list)
    cases: dict[tuple[str, str], list] = field(default_factory=dict)
    """(op name, target kind) -> its cases in try order, looked up once per kernel (the
    registrations do not change while a pass runs)."""


class DispatchContext:
    """What a dispatch variant sees: target, exec scope, launch config, enclosing loops, a
    builder for the replacement, and callbacks for private buffers and init code."""

    def __init__(self, op: TileOp, target: Any, kernel: KernelOp, state: KernelState):
        self.op = op
        self.target = target
        self.kernel = kernel
        self._state = state
        self._scratch = Block()
        self.builder = LinkingBuilder(InsertPoint.at_end(self._scratch))
        self._pending_private: list[tuple[Any, AllocOp, Callable | None]] = []
        self._pending_init: list[Operation] = []
        self._pending_after: list[tuple[SSAValue, list[Operation]]] = []
        self.memo: dict[Any, Any] = {}
        """Answers about the op computed once per dispatch of it (`once`); the search gives
        every case's context the same one."""

    # ---- facts ----
    @property
    def target_kind(self) -> str:
        return self.target.kind_name

    def is_target(self, name: str) -> bool:
        """Whether the target's kind or one of its keys is ``name`` (``"cuda"``, ``"gpu"``)."""
        return name == self.target.kind_name or name in self.target.keys

    @property
    def exec_scope(self) -> ExecScope:
        return self.op.exec_scope

    @property
    def scope_kind(self) -> str:
        return self.op.exec_scope.value

    @property
    def is_thread(self) -> bool:
        return self.exec_scope == ExecScope.THREAD

    @property
    def is_warp(self) -> bool:
        return self.exec_scope == ExecScope.WARP

    @property
    def is_warpgroup(self) -> bool:
        return self.exec_scope == ExecScope.WARPGROUP

    @property
    def is_cta(self) -> bool:
        return self.exec_scope == ExecScope.CTA

    @property
    def is_cluster(self) -> bool:
        return self.exec_scope == ExecScope.CLUSTER

    @property
    def grid(self) -> tuple[int, ...]:
        return self.kernel.grid_dims()

    @property
    def threads(self) -> tuple[int, ...]:
        return self.kernel.thread_dims()

    @property
    def cluster(self) -> tuple[int, ...] | None:
        return self.kernel.cluster_dims()

    @property
    def launch_params(self) -> dict[str, tuple[int, ...] | None]:
        return {"grid": self.grid, "threads": self.threads, "cluster": self.cluster}

    @property
    def shared_state(self) -> dict[str, Any]:
        """A cache that persists across dispatch calls within one kernel and one pass run."""
        return self._state.shared_state

    def loop_ranges(self) -> list[LoopRange]:
        """Enclosing scf.for loops, outermost first."""
        loops: list[LoopRange] = []
        parent = self.op.parent_op()
        while parent is not None and parent is not self.kernel:
            if _IS_FOR(parent):
                loops.append(LoopRange(parent.body.block.args[0], constant_value(parent.lb),
                                       constant_value(parent.ub), constant_value(parent.step)))
            parent = parent.parent_op()
        return list(reversed(loops))

    def once(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()``, computed once per dispatch of the op: a fact a predicate and an impl
        (or several cases) all need, read from the op and the IR it uses, which do not change
        while the op is dispatched. ``key`` names the fact (a backend prefixes its own)."""
        if key in self.memo:
            return self.memo[key]
        value = self.memo[key] = compute()
        return value

    # ---- callbacks ----
    def alloc_private(self, key: Any, buffer_type: BufferType,
                      init: Callable[[Builder, SSAValue], None] | None = None) -> SSAValue:
        """A buffer allocated once at kernel entry and shared by every op that asks for the same
        ``key`` (and type). ``init(builder, buffer)`` builds its initialisation code, placed
        once at kernel entry."""
        full_key = (key, buffer_type)
        if full_key in self._state.private:
            return self._state.private[full_key]
        for k, alloc, _ in self._pending_private:
            if k == full_key:
                return alloc.result
        alloc = AllocOp(buffer_type)
        self._pending_private.append((full_key, alloc, init))
        return alloc.result

    def add_init(self, build: Callable[[Builder], None]) -> None:
        """Code placed at kernel entry (after private buffers), built by ``build(builder)``."""
        self._pending_init.extend(_build_detached(build))

    def add_after_alloc(self, buffer: SSAValue, build: Callable[[Builder], None]) -> None:
        """Code placed right after the ``tirx.alloc`` that defines ``buffer``."""
        if not isinstance(buffer.owner, AllocOp):
            raise TirxError("add_after_alloc needs a buffer defined by tirx.alloc", self.op)
        self._pending_after.append((buffer, _build_detached(build)))

    def insert(self, op: Operation) -> Operation:
        return self.builder.insert(op)

    # ---- driver side ----
    def _commit(self) -> list[Operation]:
        """Move the replacement before the op and apply the callbacks; returns the new ops."""
        entry = self.kernel.body.block
        init_ops: list[Operation] = []
        for full_key, alloc, init in self._pending_private:
            _insert_before(entry, alloc, _first_non_alloc(entry))
            self._state.private[full_key] = alloc.result
            if init is not None:
                init_ops += _build_detached(lambda b, v=alloc.result, f=init: f(b, v))
        for o in init_ops + self._pending_init:
            last = self._state.init_ops[-1] if self._state.init_ops else None
            if last is not None and last.parent_block() is entry:
                entry.insert_op_after(o, last)
            else:
                _insert_before(entry, o, _first_non_alloc(entry))
            self._state.init_ops.append(o)
        for buffer, ops in self._pending_after:
            anchor = buffer.owner
            assert isinstance(anchor, Operation) and anchor.parent_block() is not None
            for o in ops:
                anchor.parent_block().insert_op_after(o, anchor)  # type: ignore[union-attr]
                anchor = o
        new_ops = [o for o in self._scratch.ops]  # not list(): BlockOps' len() walks it
        _inherit_location([*new_ops, *init_ops, *self._pending_init,
                           *(a for _, a, _ in self._pending_private),
                           *(o for _, ops in self._pending_after for o in ops)], self.op)
        assert self.op.parent_block() is not None
        return move_ops_before(self._scratch, self.op)

    def _discard(self) -> None:
        for o in reversed([o for o in self._scratch.ops]):
            o.detach()
            o.erase(safe_erase=False)
        for _, alloc, _ in self._pending_private:
            alloc.erase(safe_erase=False)
        for o in reversed(self._pending_init):
            o.erase(safe_erase=False)
        for _, ops in self._pending_after:
            for o in reversed(ops):
                o.erase(safe_erase=False)


def _build_detached(build: Callable[[Builder], None]) -> list[Operation]:
    block = Block()
    build(LinkingBuilder(InsertPoint.at_end(block)))
    ops = [o for o in block.ops]  # not list(): BlockOps' len() walks the block once more
    for o in ops:
        o.detach()
    return ops


def _insert_before(block: Block, op: Operation, anchor: Operation | None) -> None:
    if anchor is None:
        block.add_op(op)
    else:
        block.insert_op_before(op, anchor)


def _first_non_alloc(block: Block) -> Operation | None:
    for o in block.ops:
        if not isinstance(o, AllocOp):
            return o
    return None


def _inherit_location(ops: list[Operation], source: Operation) -> None:
    """Ops built for ``source`` without a location of their own get its location (so an error
    in a later pass still names the line of the tile primitive they came from)."""
    if _is_unknown_loc(source.location):
        return
    for top in ops:
        for o in walk_ops(top):
            if _is_unknown_loc(o.location):
                o.location = source.location


_is_unknown_loc = IsInstance(UnknownLoc)
_IS_FOR = IsInstance(ClassRef("xdsl.dialects.scf", "ForOp"))  # scf stays unimported without loops
