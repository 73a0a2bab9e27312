"""The dispatch search: try a tile op's cases by priority and splice the first that succeeds,
or raise the failure table (one row per variant with its reason) located at the op; for an op
that a variant decomposed another into, at the op the user wrote, naming the decomposition."""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from typing import Callable, Iterable

from xdsl.ir import Operation

from tirx_mlir.diagnostics import PassError, TirxError
from tirx_mlir.dialects.tirx.access import shared_answers, shared_views
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dispatch.context import DispatchContext
from tirx_mlir.dispatch.registry import DispatchFail, cases_for

@dataclass
class Attempt:
    variant: str
    priority: int
    reason: str


def failure_table(op_name: str, kind: str, attempts: Iterable[Attempt]) -> str:
    """TIRx's ``Variant | Error`` table, one row per variant tried."""
    rows = [(f"{a.variant} (prio={a.priority})", a.reason) for a in attempts]
    width = max([len("Variant")] + [len(r[0]) for r in rows])
    lines = [f"tile dispatch failed: op={op_name} target={kind}",
             f"{'Variant'.ljust(width)} | Error", f"{'-' * width}-+-{'-' * 40}"]
    lines += [f"{v.ljust(width)} | {r}" for v, r in rows]
    return "\n".join(lines)


Origin = tuple[tuple[TileOp, str], ...]
"""The tile ops (and the variant each was dispatched by) whose decomposition produced an op,
from the op the user wrote down to the op's immediate parent."""


def _failure(message: str, op: TileOp, origin: Origin, hint: str | None) -> PassError:
    """The PassError of ``op``'s failed dispatch. An op a variant decomposed another into
    reports at the op the user wrote, naming the decomposition path, with ``op``'s own table."""
    if not origin:
        return PassError(message, op, hint=hint)
    user = origin[0][0]
    path = " -> ".join(f"{o.name} (variant '{v}')" for o, v in origin)
    return PassError(f"tile dispatch failed: op={user.name}: it decomposes as {path} into "
                     f"{op.name}, which cannot be dispatched:\n{message}", user, hint=hint)


def run_dispatch(op: TileOp, ctx_factory: Callable[[], DispatchContext],
                 origin: Origin = ()) -> tuple[str, list[Operation]]:
    """Try the cases for ``op``; on success splice the replacement and return (variant, ops).

    Raises PassError with the table of every variant and its reason, located at the op, or,
    for an op another's variant decomposed into (``origin``), at the op the user wrote.
    """
    memo: dict = {}

    def new_context() -> DispatchContext:
        ctx = ctx_factory()
        ctx.memo = memo  # one op's answers, shared by all its cases
        return ctx

    first = new_context()
    kind = first.target_kind
    known = first._state.cases
    all_cases = known.get((op.name, kind))
    if all_cases is None:
        all_cases = known[(op.name, kind)] = cases_for(op.name, kind)
    if not all_cases:
        raise _failure(f"tile dispatch failed: op={op.name} target={kind}\nno registered "
                       f"variants for this op/target", op, origin,
                       hint="load a backend that implements it, or pick another target")
    cases = all_cases
    forced = op.dispatch.data if op.dispatch is not None else None
    if forced is not None:
        cases = [c for c in all_cases if c.variant == forced]
        if not cases:
            raise _failure(f"tile dispatch failed: op={op.name} target={kind}\nno variant "
                           f"named '{forced}' is registered", op, origin,
                           hint=f"registered variants: "
                                f"{', '.join(c.variant for c in all_cases)}")
    attempts: list[Attempt] = []
    guarded = _guarded_operand(op)
    # the cases read the IR and build detached ops until the commit; the dispatch pass may
    # share the answers across the ops of a kernel (tile_dispatch.py)
    with nullcontext() if shared_answers() is not None else shared_views():
        chosen = _first_case(op, cases, new_context, first, attempts,
                             None if guarded is None else _guard_reason(guarded, kind, all_cases))
    if isinstance(chosen, tuple):
        return chosen[0], chosen[1]._commit()
    last_exception = chosen
    hint = last_exception.hint if isinstance(last_exception, TirxError) else None
    raise _failure(failure_table(op.name, kind, attempts), op, origin, hint) from last_exception


def _first_case(op: TileOp, cases: list, new_context: Callable[[], DispatchContext],
                first: DispatchContext, attempts: list[Attempt], guard_reason: str | None
                ) -> tuple[str, DispatchContext] | BaseException | None:
    """The first case whose predicates hold and whose impl succeeds, as (variant, its context
    to commit); else the last exception an impl raised (None if none did), every attempt
    recorded in ``attempts``. With a guarded operand (``guard_reason`` says which), only the
    variants that accept guards are tried.

    A predicate shared by several cases is evaluated once (predicates are pure functions of the
    op and the dispatch facts, registry.py); a context is reused until an impl has built in it
    (``first`` is the one to start with)."""
    last_exception: BaseException | None = None
    verdicts: dict[int, tuple[bool, str]] = {}  # id(predicate) -> its verdict on this op
    ctx: DispatchContext | None = first
    for case in cases:
        if guard_reason is not None and not getattr(case.impl, "accepts_guards", False):
            attempts.append(Attempt(case.variant, case.priority,
                                    f"rejected: guards — {guard_reason}"))
            continue
        if ctx is None:
            ctx = new_context()
        rejected = None
        for pred in case.predicates:
            verdict = verdicts.get(id(pred))
            if verdict is None:
                verdict = verdicts[id(pred)] = pred.evaluate(op, ctx)
            if not verdict[0]:
                rejected = f"rejected: {pred.name} — {verdict[1]}"
                break
        if rejected is not None:
            attempts.append(Attempt(case.variant, case.priority, rejected))
            continue
        try:
            case.impl(op, ctx)
        except DispatchFail as err:
            ctx._discard()
            ctx = None
            attempts.append(Attempt(case.variant, case.priority, f"declined — {err.reason}"))
            continue
        except Exception as err:  # noqa: BLE001 - recorded in the table, the search goes on
            ctx._discard()
            ctx = None
            last_exception = err
            text = err.message if isinstance(err, TirxError) else _exception_line(err)
            attempts.append(Attempt(case.variant, case.priority, f"impl raised: {text}"))
            continue
        return case.variant, ctx
    if ctx is not None:
        ctx._discard()
    return last_exception


def _guarded_operand(op: TileOp) -> str | None:
    """The name of an operand of ``op`` with a dynamic extent (a guarded view), or None."""
    from tirx_mlir.dialects.tirx.access import is_guarded
    from tirx_mlir.dialects.tirx.attributes import is_buffer_type

    for name, value in op.named_operands().items():
        if is_buffer_type(value.type) and is_guarded(value):  # the class test kept per class
            return name
    return None


def _guard_reason(name: str, kind: str, cases) -> str:
    """The table row's reason for a variant that does not take guarded operand ``name``."""
    if not any(getattr(c.impl, "accepts_guards", False) for c in cases):
        return (f"operand '{name}' has a dynamic extent (a guarded tirx.slice); dynamic extents "
                f"are not supported by the {kind} dispatch yet")
    return f"operand '{name}' has a dynamic extent (a guarded tirx.slice), which this variant " \
           f"does not take"


def _exception_line(err: Exception) -> str:
    """``TypeError: message`` as Python prints the last line of a traceback (``traceback`` is
    imported only here: a compile whose variants raise nothing does not load it)."""
    import traceback

    return traceback.format_exception_only(type(err), err)[-1].strip()
