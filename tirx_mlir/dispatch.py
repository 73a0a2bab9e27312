"""Tile dispatch: choosing a backend implementation for each tile primitive.

The semantics are TIRx's (reference/tirx.md §2.2):

* key ``(tile op name, target kind)`` -> cases ``(variant, priority, predicates, impl)``;
* cases are tried by priority (high first), ties broken by ascending variant name;
* a predicate returns ``True``/``False``, ``(ok, reason)``, or raises `DispatchFail`; any other
  exception rejects the case with ``"predicate exception: <Type>: <msg>"``;
* an impl may decline (raise `DispatchFail`) and the search goes on;
* an op's forced ``dispatch = "variant"`` keeps only that variant, whose predicates still run;
* when nothing succeeds the error is a table, one row per variant with its reason, on the op.

Cases registered for the target kind ``"*"`` apply to every target, after the kind's own.

An impl is ``impl(op, ctx) -> None``. It builds the replacement with ``ctx.builder``, which
inserts into a scratch block: nothing reaches the program unless the impl succeeds, so a decline
leaves no trace. Side effects go through explicit context callbacks: `DispatchContext.alloc_private`
(buffers allocated at kernel entry, shared by key) and `DispatchContext.add_init` (code at kernel
entry). The driver (passes/tile_dispatch.py) splices the result in place of the op.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir import registry
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.tile_base import TileOp


class DispatchFail(Exception):
    """Raised by a predicate or an impl to reject/decline with a reason."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def fail(reason: str):
    """Decline (from an impl) or reject (from a predicate) with ``reason``."""
    raise DispatchFail(reason)


@dataclass(frozen=True)
class Predicate:
    """A named guard ``fn(op, ctx, **kwargs) -> bool | (bool, reason)``."""

    name: str
    fn: Callable[..., Any]
    kwargs: tuple[tuple[str, Any], ...] = ()

    def evaluate(self, op: TileOp, ctx: "DispatchContext") -> tuple[bool, str]:
        try:
            result = self.fn(op, ctx, **dict(self.kwargs))
        except DispatchFail as err:
            return False, err.reason
        except Exception as err:  # noqa: BLE001 - any predicate crash is a reject, as in TIRx
            return False, f"predicate exception: {type(err).__name__}: {err}"
        if isinstance(result, tuple):
            ok, reason = result
            return bool(ok), reason or ("" if ok else "rejected")
        return bool(result), "" if result else "rejected"


def predicate(name: str, fn: Callable[..., Any], **kwargs: Any) -> Predicate:
    return Predicate(name, fn, tuple(kwargs.items()))


@dataclass(frozen=True)
class DispatchCase:
    variant: str
    priority: int
    predicates: tuple[Predicate, ...]
    impl: Callable[[TileOp, "DispatchContext"], None]
    owner: str


_cases: registry.Registry[DispatchCase] = registry.Registry("dispatch variant")
"""(op name, target kind, variant) -> case."""


def _op_name(op: str | type[TileOp]) -> str:
    if isinstance(op, str):
        return op if op.startswith("tirx.") else f"tirx.{op}"
    return op.name


def register_dispatch(op: str | type[TileOp], target_kind: str, *, variant: str,
                      priority: int = 0, when: Sequence[Predicate] = (),
                      override: bool = False) -> Callable:
    """Decorator registering ``impl(op, ctx)`` as ``variant`` of ``op`` for ``target_kind``.

    Registering the same case again from the same owner is a no-op; a different case under the
    same (op, kind, variant) is an error unless ``override=True``. The case records its owner,
    so a failed backend load removes it.
    """
    name = _op_name(op)

    def decorator(impl: Callable[[TileOp, DispatchContext], None]):
        case = DispatchCase(variant, priority, tuple(when), impl, registry.current_owner())
        _cases.register((name, target_kind, variant), case, override=override)
        return impl

    return decorator


def _sorted(cases: Iterable[DispatchCase]) -> list[DispatchCase]:
    return sorted(cases, key=lambda c: (-c.priority, c.variant))


def cases_for(op_name: str, target_kind: str) -> list[DispatchCase]:
    """Cases for (op, kind) in try order, then the ``"*"`` fallbacks in try order."""
    items = _cases.items()
    own = _sorted(c for (o, k, _), c in items if o == op_name and k == target_kind)
    generic = _sorted(c for (o, k, _), c in items if o == op_name and k == "*")
    return own + generic


def list_registered_dispatch() -> dict[str, dict[str, list[str]]]:
    """``{op: {target_kind: [variants in try order]}}``."""
    out: dict[str, dict[str, list[DispatchCase]]] = {}
    for (o, k, _), case in _cases.items():
        out.setdefault(o, {}).setdefault(k, []).append(case)
    return {o: {k: [c.variant for c in _sorted(cs)] for k, cs in kinds.items()}
            for o, kinds in out.items()}


# --- the context a variant sees ------------------------------------------------------------------


@dataclass
class LoopRange:
    """An enclosing ``scf.for``: its induction variable and constant bounds where known."""

    iv: SSAValue
    lower: int | None
    upper: int | None
    step: int | None

    @property
    def trip_count(self) -> int | None:
        if None in (self.lower, self.upper, self.step):
            return None
        return max(0, -(-(self.upper - self.lower) // self.step))  # type: ignore[operator]


def _const_index(value: SSAValue) -> int | None:
    from xdsl.dialects import arith

    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


@dataclass
class KernelState:
    """Per-kernel state of one dispatch run: private buffers by key and a shared cache."""

    kernel: KernelOp
    private: dict[Any, SSAValue] = field(default_factory=dict)
    shared_state: dict[str, Any] = field(default_factory=dict)
    init_ops: list[Operation] = field(default_factory=list)


class DispatchContext:
    """What a dispatch variant sees: target, exec scope, launch config, enclosing loops, a
    builder for the replacement, and callbacks for private buffers and init code."""

    def __init__(self, op: TileOp, target: Any, kernel: KernelOp, state: KernelState):
        self.op = op
        self.target = target
        self.kernel = kernel
        self._state = state
        self._scratch = Block()
        self.builder = Builder(InsertPoint.at_end(self._scratch))
        self._pending_private: list[tuple[Any, AllocOp, Callable | None]] = []
        self._pending_init: list[Operation] = []

    # ---- facts ----
    @property
    def target_kind(self) -> str:
        return self.target.kind_name

    @property
    def exec_scope(self) -> ExecScope:
        return self.op.exec_scope

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
    def shared_state(self) -> dict[str, Any]:
        """A cache that persists across dispatch calls within one kernel and one pass run."""
        return self._state.shared_state

    def loop_ranges(self) -> list[LoopRange]:
        """Enclosing scf.for loops, outermost first."""
        loops: list[LoopRange] = []
        parent = self.op.parent_op()
        while parent is not None and parent is not self.kernel:
            if isinstance(parent, scf.ForOp):
                loops.append(LoopRange(parent.body.block.args[0], _const_index(parent.lb),
                                       _const_index(parent.ub), _const_index(parent.step)))
            parent = parent.parent_op()
        return list(reversed(loops))

    # ---- callbacks ----
    def alloc_private(self, key: Any, buffer_type: BufferType,
                      init: Callable[[Builder, SSAValue], None] | None = None) -> SSAValue:
        """A buffer allocated once at kernel entry and shared by every op that asks for the same
        ``key`` (and type). ``init(builder, buffer)`` builds its initialisation code, run once
        at kernel entry."""
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
        block = Block()
        build(Builder(InsertPoint.at_end(block)))
        ops = list(block.ops)
        for o in ops:
            o.detach()
        self._pending_init.extend(ops)

    def insert(self, op: Operation) -> Operation:
        return self.builder.insert(op)

    # ---- driver side ----
    def _commit(self) -> list[Operation]:
        """Move the replacement before the op and apply the callbacks; returns the new ops."""
        entry = self.kernel.body.block
        anchor = _first_non_alloc(entry)
        for full_key, alloc, init in self._pending_private:
            entry.insert_op_before(alloc, anchor) if anchor else entry.add_op(alloc)
            self._state.private[full_key] = alloc.result
            if init is not None:
                init_block = Block()
                init(Builder(InsertPoint.at_end(init_block)), alloc.result)
                for o in list(init_block.ops):
                    o.detach()
                    self._pending_init.insert(0, o)
        init_anchor = _first_non_alloc(entry)
        for o in self._pending_init:
            entry.insert_op_before(o, init_anchor) if init_anchor else entry.add_op(o)
        new_ops = list(self._scratch.ops)
        parent = self.op.parent_block()
        assert parent is not None
        for o in new_ops:
            o.detach()
            parent.insert_op_before(o, self.op)
        return new_ops

    def _discard(self) -> None:
        for o in reversed(list(self._scratch.ops)):
            o.detach()
            o.erase(safe_erase=False)
        for _, alloc, _ in self._pending_private:
            alloc.erase(safe_erase=False)


def _first_non_alloc(block: Block) -> Operation | None:
    for o in block.ops:
        if not isinstance(o, AllocOp):
            return o
    return None


# --- running the search ---------------------------------------------------------------------------


@dataclass
class Attempt:
    variant: str
    priority: int
    reason: str


def failure_table(op_name: str, kind: str, attempts: Iterable[Attempt]) -> str:
    rows = [(f"{a.variant} (prio={a.priority})", a.reason) for a in attempts]
    width = max([len("Variant")] + [len(r[0]) for r in rows])
    lines = [f"tile dispatch failed: op={op_name} target={kind}",
             f"{'Variant'.ljust(width)} | Error", f"{'-' * width}-+-{'-' * 40}"]
    lines += [f"{v.ljust(width)} | {r}" for v, r in rows]
    return "\n".join(lines)


def run_dispatch(op: TileOp, ctx_factory: Callable[[], DispatchContext]) -> tuple[str, list[Operation]]:
    """Try the cases for ``op``; on success splice the replacement and return (variant, ops).

    Raises PassError (located at the op) with the table of every variant and its reason.
    """
    ctx0 = ctx_factory()
    kind = ctx0.target_kind
    ctx0._discard()
    cases = cases_for(op.name, kind)
    if not cases:
        raise PassError(f"tile dispatch failed: op={op.name} target={kind}\nno registered "
                        f"variants for this op/target", op,
                        hint="load a backend that implements it, or pick another target")
    forced = op.dispatch.data if op.dispatch is not None else None
    if forced is not None:
        cases = [c for c in cases if c.variant == forced]
        if not cases:
            raise PassError(f"tile dispatch failed: op={op.name} target={kind}\nno variant "
                            f"named '{forced}' is registered", op,
                            hint=f"registered variants: "
                                 f"{', '.join(c.variant for c in cases_for(op.name, kind))}")
    attempts: list[Attempt] = []
    for case in cases:
        ctx = ctx_factory()
        rejected = None
        for pred in case.predicates:
            ok, reason = pred.evaluate(op, ctx)
            if not ok:
                rejected = f"rejected: {pred.name} - {reason}"
                break
        if rejected is not None:
            ctx._discard()
            attempts.append(Attempt(case.variant, case.priority, rejected))
            continue
        try:
            case.impl(op, ctx)
        except DispatchFail as err:
            ctx._discard()
            attempts.append(Attempt(case.variant, case.priority, f"declined - {err.reason}"))
            continue
        except PassError:
            ctx._discard()
            raise
        except Exception as err:  # noqa: BLE001 - recorded in the table, search goes on
            ctx._discard()
            tb = traceback.format_exception_only(type(err), err)[-1].strip()
            attempts.append(Attempt(case.variant, case.priority, f"impl crashed: {tb}"))
            continue
        return case.variant, ctx._commit()
    raise PassError(failure_table(op.name, kind, attempts), op)
