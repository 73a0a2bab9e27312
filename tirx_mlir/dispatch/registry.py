"""Tile dispatch: choosing a backend implementation for each tile primitive.

The semantics are TIRx's (apache/tvm `python/tvm/tirx/tile_primitive.py`):

* key ``(tile op name, target kind)`` -> cases ``(variant, priority, predicates, impl)``;
* cases are tried by priority (high first), ties broken by ascending variant name;
* a predicate returns ``True``/``False``, ``(ok, reason)``, or raises `DispatchFail`; any other
  exception rejects the case with ``"predicate exception: <Type>: <msg>"``. A predicate is a
  pure function of the op and the dispatch facts: one shared by several cases of an op is
  evaluated once for that op (search.py);
* an impl may decline (raise `DispatchFail`, e.g. through `fail`) and the search goes on; any
  other exception from an impl is recorded in the table too, and the search goes on;
* an op's forced ``dispatch "variant"`` keeps only that variant, whose predicates still run;
* when nothing succeeds the error is a table, one row per variant with its reason, located at the
  op and chained from the last exception an impl raised.

Cases registered for the target kind ``"*"`` apply to every target, after the kind's own.

An impl is ``impl(op, ctx) -> None``. It builds the replacement with ``ctx.builder``, which
inserts into a scratch block: nothing reaches the program unless the impl succeeds, so a decline
leaves no trace. Side effects go through explicit callbacks of the `DispatchContext`
(context.py): private buffers shared by key, code at kernel entry, code right after a
buffer's allocation.

This module is the registration side and imports no xDSL, so a backend can register its variants
cheaply; a backend can even defer importing its variant modules until the first dispatch for its
target kind with `register_dispatch_module`.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from tirx_mlir import registry

if TYPE_CHECKING:
    from tirx_mlir.dialects.tirx.tile_base import TileOp
    from tirx_mlir.dispatch.context import DispatchContext


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

    def evaluate(self, op: "TileOp", ctx: "DispatchContext") -> tuple[bool, str]:
        try:
            result = self.fn(op, ctx, **dict(self.kwargs)) if self.kwargs else self.fn(op, ctx)
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


# --- common predicates ------------------------------------------------------------------------------


def forced_only(variant: str) -> Predicate:
    """Accept only when the op forces ``dispatch "<variant>"`` (TIRx's forced-only variants)."""

    def check(op: "TileOp", ctx: "DispatchContext") -> tuple[bool, str]:
        forced = op.dispatch.data if op.dispatch is not None else None
        return forced == variant, f"only used when forced with dispatch \"{variant}\""

    return Predicate("forced_only", check)


def no_where(why: str) -> Predicate:
    """Accept ops without a ``where`` predicate (a predicated ``copy_async``); ``why`` says what
    the variant does instead."""

    def check(op: "TileOp", ctx: "DispatchContext") -> tuple[bool, str]:
        return getattr(op, "where", None) is None, f"the op has a where predicate; {why}"

    return Predicate("no_where", check)


def exec_scope_in(*scopes: str) -> Predicate:
    """Accept ops whose exec scope is one of ``scopes`` (``"thread"``, ``"cta"``...)."""

    def check(op: "TileOp", ctx: "DispatchContext") -> tuple[bool, str]:
        scope = op.exec_scope.value
        return scope in scopes, f"exec scope {scope} is not {'/'.join(scopes)}"

    return Predicate("exec_scope", check)


# --- the registry ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class DispatchCase:
    variant: str
    priority: int
    predicates: tuple[Predicate, ...]
    impl: Callable[["TileOp", "DispatchContext"], None]
    owner: str


def accepts_guards(impl: Callable) -> Callable:
    """Mark a variant's impl as handling guarded operands (views with a dynamic extent, a
    ``tirx.slice`` size given by an index value); the search rejects every other variant for an
    op with such an operand, so no lowering silently reads a guarded view at its maximum."""
    impl.accepts_guards = True  # type: ignore[attr-defined]
    return impl


_cases: registry.Registry[DispatchCase] = registry.Registry(
    "dispatch variant", same=lambda a, b: (a.priority, a.predicates, a.impl)
    == (b.priority, b.predicates, b.impl))
"""(op name, target kind, variant) -> case."""

_modules: registry.Registry[str] = registry.Registry("dispatch module")
"""(target kind, module name) -> module name: modules whose import registers variants."""
_imported: dict[tuple[str, str], object] = {}


def _op_name(op: "str | type[TileOp]") -> str:
    if isinstance(op, str):
        return op if op.startswith("tirx.") else f"tirx.{op}"
    return op.name


def register_dispatch(op: "str | type[TileOp]", target_kind: str, *, variant: str,
                      priority: int = 0, when: Sequence[Predicate] = (),
                      override: bool = False) -> Callable:
    """Decorator registering ``impl(op, ctx)`` as ``variant`` of ``op`` for ``target_kind``.

    Registering the same case again from the same owner is a no-op; a different case under the
    same (op, kind, variant) is an error unless ``override=True``. The case records its owner,
    so a failed backend load removes it.
    """
    name = _op_name(op)
    for p in when:
        if not isinstance(p, Predicate):
            raise TypeError(f"register_dispatch({name}, {variant}): `when` takes Predicate "
                            f"objects (tirx_mlir.dispatch.predicate(name, fn)), got {p!r}")

    def decorator(impl: Callable[["TileOp", "DispatchContext"], None]):
        declared = _modules.get((target_kind, getattr(impl, "__module__", None)))
        if declared is not None and declared[1] is not None and name not in declared[1]:
            raise registry.RegistryError(
                f"dispatch module '{declared[0]}' registers variant '{variant}' of {name} for "
                f"'{target_kind}', but register_dispatch_module declared it for "
                f"{', '.join(sorted(declared[1]))} only")
        owner = registry.current_owner()  # a variant module of a backend: that backend
        case = DispatchCase(variant, priority, tuple(when), impl, owner)
        _cases.register((name, target_kind, variant), case, override=override, owner=owner)
        return impl

    return decorator


def register_dispatch_module(target_kind: str, module: str,
                             ops: "Iterable[str | type[TileOp]] | None" = None) -> None:
    """Declare that importing ``module`` registers variants for ``target_kind``; it is imported
    (with the registering backend as owner) the first time an op is dispatched for that kind,
    so loading a backend does not import its variant code.

    ``ops`` (names, ``tirx.`` optional, or op classes) narrows that to the first time one of
    those ops is dispatched for the kind (or the registrations are listed): a kernel without
    gemms does not import the gemm variants. A variant the module itself then registers for
    another op under that kind is an error (`RegistryError`, at its registration), so the
    declaration cannot silently miss a variant."""
    names = None if ops is None else frozenset(_op_name(op) for op in ops)
    _modules.register((target_kind, module), (module, names))


_preconditions: registry.Registry[Callable[[], Callable[[Any, Any], None]]] = registry.Registry(
    "dispatch precondition")
"""target kind -> factory of ``check(kernel, target)``: what must hold before that kind's
variants see a kernel (e.g. a backend's layout pass has run, the target is one the variants can
lower for); ``check`` raises a located error saying what to change."""


def register_dispatch_precondition(target_kind: str,
                                   factory: Callable[[], Callable[[Any, Any], None]]) -> None:
    """Declare the check the dispatch pass runs on each kernel before dispatching it for
    ``target_kind`` (a zero-argument factory, e.g. `registry.Lazy`, so registering is cheap)."""
    _preconditions.register(target_kind, factory)


def check_dispatch_precondition(kernel: Any, target: Any) -> None:
    """Run the precondition registered for ``target``'s kind on ``kernel`` (none: nothing)."""
    factory = _preconditions.get(target.kind_name)
    if factory is not None:
        factory()(kernel, target)


_kind_modules: dict[str, tuple[int, list[tuple[tuple[str, str], frozenset[str] | None]]]] = {}
"""target kind -> (``_modules.version``, the (kind, module) keys it imports, each with the ops
it was declared for, None for every op): the registry is read again only after it changes
(dispatch asks once per op)."""


def _import_dispatch_modules(target_kind: str, op_name: str | None = None) -> None:
    """Import the kind's variant modules declared for ``op_name`` (None: all of them) that are
    not imported yet."""
    listed = _kind_modules.get(target_kind)
    if listed is None or listed[0] != _modules.version:
        version = _modules.version
        keys = [(key, value[1]) for key, value in _modules.items()
                if key[0] in (target_kind, "*")]
        listed = _kind_modules[target_kind] = (version, keys)
    for key, ops in listed[1]:
        if op_name is not None and ops is not None and op_name not in ops:
            continue
        if key in _imported and sys_module(key[1]) is _imported[key]:
            continue
        with registry.owner_scope(_modules.owner_of(key) or "core"):
            _imported[key] = importlib.import_module(key[1])


def sys_module(name: str) -> object | None:
    return sys.modules.get(name)


def _sorted(cases: Iterable[DispatchCase]) -> list[DispatchCase]:
    return sorted(cases, key=lambda c: (-c.priority, c.variant))


_cases_memo: dict[tuple[str, str], tuple[int, list[DispatchCase]]] = {}


def cases_for(op_name: str, target_kind: str) -> list[DispatchCase]:
    """Cases for (op, kind) in try order, then the ``"*"`` fallbacks in try order (a fresh
    list; recomputed only after the registrations change)."""
    _import_dispatch_modules(target_kind, op_name)
    memo = _cases_memo.get((op_name, target_kind))
    if memo is not None and memo[0] == _cases.version:
        return list(memo[1])
    version = _cases.version
    cases = _cases_for(op_name, target_kind)
    _cases_memo[(op_name, target_kind)] = (version, cases)
    return list(cases)


def _cases_for(op_name: str, target_kind: str) -> list[DispatchCase]:
    items = _cases.items()
    own = _sorted(c for (o, k, _), c in items if o == op_name and k == target_kind)
    generic = _sorted(c for (o, k, _), c in items if o == op_name and k == "*")
    return own + generic


def list_registered_dispatch() -> dict[str, dict[str, list[str]]]:
    """``{op: {target_kind: [variants in try order]}}`` (imports deferred dispatch modules)."""
    for kind in {k for k, _ in _modules.keys()}:
        _import_dispatch_modules(kind)
    out: dict[str, dict[str, list[DispatchCase]]] = {}
    for (o, k, _), case in _cases.items():
        out.setdefault(o, {}).setdefault(k, []).append(case)
    return {o: {k: [c.variant for c in _sorted(cs)] for k, cs in sorted(kinds.items())}
            for o, kinds in sorted(out.items())}
