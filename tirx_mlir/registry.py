"""The project's registries: one mechanism, one place.

Every registry maps a key to a value and records which *owner* (a backend name, or ``"core"``)
made the entry, so that a backend whose ``register_backend()`` fails can be rolled back completely
(`drop_owner`). Registration is idempotent for the same owner and value, rejects a conflicting
duplicate unless ``override=True``, and every registry has a listing function.

The owner of a new entry (`current_owner`) follows the code that makes it, in this order: the
``owner=`` it passes; the innermost `owner_scope` of its thread (the loader runs a backend's hook
in `hook_scope`); a thread started while a hook runs belongs to that hook, so a registration
the hook makes from a worker thread is rolled back with it; code defined in a backend's package
(``tirx_mlir.backends.<name>...``: a variant module imported directly) belongs to that backend;
anything else is ``"core"``.

This module is pure Python with no project imports, so the core dialects may use it without a
layering cycle. The specialised registries (pipelines, dispatch, targets...) live beside their
subject and are built on `Registry`; this module is also the *facade* that names every
``register_*`` / ``list_*`` function in one place (those defined elsewhere are imported on first
access)::

    from tirx_mlir.registry import (register_pipeline, register_dispatch, register_tag,
                                    register_target_kind, register_device_target_detector,
                                    register_script_namespace, register_dialect, register_pass,
                                    register_printer, register_interpreter_functions,
                                    register_memory_scope, register_layout_axis,
                                    register_device, register_toolchain, ...)
    registrations_of("trn")       # what backend "trn" registered, registry by registry
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
from dataclasses import FrozenInstanceError, dataclass
from typing import Any, Callable, Generic, Iterator, TypeVar

V = TypeVar("V")

_scope_owner: contextvars.ContextVar[str | None] = contextvars.ContextVar("tirx_owner",
                                                                          default=None)
_running_hooks: list[tuple[str, frozenset[threading.Thread]]] = []
"""(owner, the threads alive when its hook started) of every hook running now, innermost last."""
_all_registries: list["Registry[Any]"] = []
_lock = threading.RLock()
_BACKEND_PREFIX = "tirx_mlir.backends."


class RegistryError(ValueError):
    """A conflicting or unknown registration."""


class UnknownKeyError(RegistryError, KeyError):
    """``registry[key]`` of a key nothing registered (a KeyError whose message lists the
    candidates)."""

    def __str__(self) -> str:
        return str(self.args[0])


@contextlib.contextmanager
def owner_scope(owner: str) -> Iterator[None]:
    """Attribute every registration made inside the block, by this thread, to ``owner``."""
    token = _scope_owner.set(owner)
    try:
        yield
    finally:
        _scope_owner.reset(token)


@contextlib.contextmanager
def hook_scope(owner: str) -> Iterator[None]:
    """`owner_scope` for a backend's hook, which also owns what threads it starts register."""
    entry = (owner, frozenset(threading.enumerate()))
    with _lock:
        _running_hooks.append(entry)
    try:
        with owner_scope(owner):
            yield
    finally:
        with _lock:
            _running_hooks.remove(entry)


def current_owner() -> str:
    """Who owns a registration made now (see the module docstring for the order)."""
    owner = _scope_owner.get()
    if owner is not None:
        return owner
    if _running_hooks:
        me = threading.current_thread()
        with _lock:
            for hook_owner, threads_before in reversed(_running_hooks):
                if me not in threads_before:
                    return hook_owner
    return _backend_of_caller() or "core"


def _backend_of_caller() -> str | None:
    """The backend whose package holds the nearest calling code, if any."""
    frame = sys._getframe(2)  # noqa: SLF001 - past current_owner and its caller
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith(_BACKEND_PREFIX):
            name = module[len(_BACKEND_PREFIX):].split(".", 1)[0]
            if not name.startswith("_"):  # the loader itself
                return name
        frame = frame.f_back
    return None


class Entry(Generic[V]):
    """A registered value, its owner and what an override replaced (restored on rollback).

    A plain class with slots (the registries make ~100 at ``import tirx_mlir``; a dataclass's
    generated methods cost more to create than all of them): equal when all three are."""

    __slots__ = ("value", "owner", "previous")

    def __init__(self, value: V, owner: str, previous: "Entry[V] | None" = None):
        self.value, self.owner, self.previous = value, owner, previous

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.value, self.owner, self.previous) == \
            (other.value, other.owner, other.previous)  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment] - mutable, as a dataclass with eq

    def __repr__(self) -> str:
        return f"Entry(value={self.value!r}, owner={self.owner!r}, previous={self.previous!r})"


class Registry(Generic[V]):
    """A named map of key -> value with owner tracking.

    ``same`` decides whether a repeated registration is the same (idempotent) or a conflict;
    by default values are compared with ``==`` (functions by identity).
    """

    def __init__(self, what: str, same: Callable[[V, V], bool] | None = None):
        self.what = what
        self._entries: dict[Any, Entry[V]] = {}
        self._same = same or (lambda a, b: a is b or a == b)
        self.listeners: list[Callable[[], None]] = []
        self.version = 0
        """Bumped by every change: a reader may cache what it derives from the entries."""
        with _lock:
            _all_registries.append(self)

    def register(self, key: Any, value: V, *, override: bool = False,
                 owner: str | None = None) -> V:
        owner = owner or current_owner()
        with _lock:
            old = self._entries.get(key)
            if old is not None and not override:
                if old.owner == owner and self._same(old.value, value):
                    return old.value
                raise RegistryError(
                    f"{self.what} '{key}' is already registered by '{old.owner}'; pass "
                    f"override=True to replace it")
            self._entries[key] = Entry(value, owner, previous=old)
        self._notify()
        return value

    def unregister(self, key: Any) -> None:
        with _lock:
            self._entries.pop(key, None)
        self._notify()

    def keys_of(self, owner: str) -> list[Any]:
        """The keys whose current entry ``owner`` made."""
        return [k for k, e in self._entries.items() if e.owner == owner]

    def get(self, key: Any, default: Any = None) -> V | Any:
        entry = self._entries.get(key)
        return default if entry is None else entry.value

    def lookup(self, key: Any) -> V:
        """The value for ``key``; an unknown key raises `UnknownKeyError` (a `RegistryError`
        and a KeyError) with the list of candidates."""
        entry = self._entries.get(key)
        if entry is None:
            candidates = ", ".join(sorted(map(str, self._entries))) or "(none registered)"
            raise UnknownKeyError(f"unknown {self.what} '{key}'; candidates are: {candidates}")
        return entry.value

    __getitem__ = lookup

    def owner_of(self, key: Any) -> str | None:
        entry = self._entries.get(key)
        return None if entry is None else entry.owner

    def __contains__(self, key: Any) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"<Registry {self.what!r}: {len(self._entries)} entries>"

    def keys(self) -> list[Any]:
        return list(self._entries)

    def items(self) -> list[tuple[Any, V]]:
        with _lock:
            return [(k, e.value) for k, e in self._entries.items()]

    def listing(self) -> dict[Any, V]:
        return {k: e.value for k, e in self._entries.items()}

    def drop_owner(self, owner: str) -> None:
        """Remove every entry ``owner`` made, restoring what its overrides replaced."""
        with _lock:
            for key in list(self._entries):
                entry = self._entries[key]
                while entry is not None and entry.owner == owner:
                    entry = entry.previous
                if entry is None:
                    del self._entries[key]
                else:
                    self._entries[key] = entry
        self._notify()

    def _notify(self) -> None:
        self.version += 1
        for fn in self.listeners:
            fn()


def drop_owner_everywhere(owner: str) -> None:
    """Roll back every registration ``owner`` made, in every registry."""
    with _lock:
        registries = list(_all_registries)
    for reg in registries:
        reg.drop_owner(owner)


def all_registries() -> list[Registry[Any]]:
    with _lock:
        return list(_all_registries)


# --- registries the core and the tools consult ---------------------------------------------------
# Each value is a zero-argument factory, so nothing is imported until it is used (start-up time).

dialects: Registry[Callable[[], Any]] = Registry("dialect")
"""name -> () -> xdsl Dialect, for tirx-opt's context."""

passes: Registry[Callable[[], type]] = Registry("pass")
"""pass name -> () -> ModulePass subclass."""

printers: Registry[Callable[[], type]] = Registry("printer target")
"""-t name -> () -> xdsl Target subclass."""

interpreter_functions: Registry[Callable[[], type]] = Registry("interpreter implementation")
"""name -> () -> InterpreterFunctions subclass registered on every interpreter."""

memory_scopes: Registry[str] = Registry("memory scope")
"""scope name -> description."""

layout_axes: Registry[str] = Registry("layout axis")
"""axis name -> ``"memory"`` or ``"thread"``: the axes backends add to the core's (the layout
module lists the core's own)."""

layout_shorthands: Registry[Callable[[], Callable[..., Any]]] = Registry("layout shorthand")
"""memory scope -> () -> ``expand(annotation, shape, element_type) -> TileLayout``: what a
quoted layout (``!tirx.buffer<256x2048xf32, acme.sram, "PF">``) means in that scope."""

script_namespaces: Registry[object] = Registry("script namespace")
"""name -> namespace object for the Python front end (``Tx.<name>``)."""


@dataclass(frozen=True)
class KernelExecutor:
    """How a backend runs kernels the core's tile-level interpreter cannot: a kernel whose body
    holds an op of one of ``dialects`` (e.g. thread-level CUDA ops) is handed to ``factory()``,
    a callable ``(interp, kernel, args) -> outputs`` (imported on first use)."""

    dialects: tuple[str, ...]
    factory: Callable[[], Callable[..., Any]]
    configure: Callable[[], Callable[..., Any]] | None = None
    """``configure()(interp, **options)`` sets run options on an interpreter (a tool's flags,
    e.g. ``racecheck=False``); it raises TypeError for an option the executor does not have."""
    outputs_per_pe: Callable[[], Callable[[Any], list | None]] | None = None
    """``outputs_per_pe()(interp)``: the outputs of every simulated PE (``pes=N``) of the last
    kernel it ran on ``interp`` (``tirx-run --pes``), or None when it ran none there."""
    report: Callable[[], Callable[[Any], str | None]] | None = None
    """``report()(interp)``: statistics of the last kernel it ran on ``interp`` as text
    (``tirx-run --stats``), or None when it ran none there."""


kernel_executors: Registry[KernelExecutor] = Registry("kernel executor")
"""name -> `KernelExecutor`: the interpreters of thread-level kernels (the core's
``tirx.kernel`` implementation asks them first)."""


class Lazy:
    """A zero-argument factory that imports ``module`` and returns its attribute ``name`` when
    called: what a backend registers so that ``import tirx_mlir`` imports none of its dialect,
    pass or printer modules (``register_dialect("acme", Lazy("acme_tirx.dialect", "ACME"))``).
    Equal specs are equal factories, so registering one again is idempotent. Immutable and
    hashable (a plain slotted class: cheaper to define at start-up than a frozen dataclass)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        object.__setattr__(self, "module", module)
        object.__setattr__(self, "name", name)

    def __setattr__(self, key: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field '{key}'")

    def __delattr__(self, key: str) -> None:
        raise FrozenInstanceError(f"cannot delete field '{key}'")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.module, self.name) == (other.module, other.name)  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.module, self.name))

    def __repr__(self) -> str:
        return f"Lazy(module={self.module!r}, name={self.name!r})"

    def __reduce__(self):  # copy and pickle rebuild it (its slots cannot be assigned)
        return Lazy, (self.module, self.name)

    def __call__(self) -> Any:
        import importlib

        return getattr(importlib.import_module(self.module), self.name)


devices: Registry[Callable[[], type]] = Registry("device")
"""device kind (``interpreter``, a backend's) -> () -> its `tirx_mlir.runtime.Device` subclass;
``get_device("kind:N")`` makes device N of it. The core's interpreter device is always there."""

toolchains: Registry[Callable[[], Any]] = Registry("toolchain")
"""target kind -> () -> a `tirx_mlir.runtime.Toolchain`: the sources, binary and statistics
``tirx_mlir.compile`` makes for kernels of that kind (a kind without one gets the printers its
backend registered)."""

devices.register("interpreter", Lazy("tirx_mlir.runtime.interpreter_device", "InterpreterDevice"),
                 owner="core")
printers.register("tx", Lazy("tirx_mlir.script.to_script", "TxTarget"), owner="core")
"""``-t tx``: tile-level IR printed back as Python front-end source (docs/frontend.md)."""


def register_device(name: str, factory: Callable[[], type], *, override: bool = False) -> None:
    """Register a device kind: ``factory()`` returns its `tirx_mlir.runtime.Device` subclass."""
    if not name.isidentifier():
        raise RegistryError(f"invalid device kind '{name}': use an identifier (e.g. 'acme')")
    devices.register(name, factory, override=override)


def list_devices() -> list[str]:
    """Registered device kinds (the interpreter's first); which exist here: `runtime.devices`."""
    return sorted(devices.keys(), key=lambda k: (k != "interpreter", k))


def register_toolchain(kind: str, factory: Callable[[], Any], *, override: bool = False) -> None:
    """Register what ``tirx_mlir.compile`` makes for kernels of target kind ``kind``."""
    toolchains.register(kind, factory, override=override)


def list_toolchains() -> list[str]:
    return sorted(toolchains.keys())


def register_dialect(name: str, factory: Callable[[], Any], *, override: bool = False) -> None:
    dialects.register(name, factory, override=override)


def register_pass(name: str, factory: Callable[[], type], *, override: bool = False) -> None:
    passes.register(name, factory, override=override)


def register_printer(name: str, factory: Callable[[], type], *, override: bool = False) -> None:
    printers.register(name, factory, override=override)


def register_interpreter_functions(name: str, factory: Callable[[], type], *,
                                   override: bool = False) -> None:
    interpreter_functions.register(name, factory, override=override)


def register_kernel_executor(name: str, dialects: tuple[str, ...],
                             factory: Callable[[], Callable[..., Any]], *,
                             configure: Callable[[], Callable[..., Any]] | None = None,
                             outputs_per_pe: Callable[[], Callable[[Any], list | None]] | None
                             = None,
                             report: Callable[[], Callable[[Any], str | None]] | None = None,
                             override: bool = False) -> None:
    """Run kernels that use any of ``dialects`` with ``factory()`` (see `KernelExecutor`)."""
    kernel_executors.register(name, KernelExecutor(tuple(dialects), factory, configure,
                                                   outputs_per_pe, report), override=override)


def register_memory_scope(name: str, description: str = "", *, override: bool = False) -> None:
    memory_scopes.register(name, description, override=override)


def register_layout_axis(name: str, kind: str = "memory", *, override: bool = False) -> None:
    """Let a backend add a layout axis name (``kind`` is ``"memory"`` or ``"thread"``)."""
    if not name.isidentifier() or not name.isascii():
        raise RegistryError(f"invalid layout axis name '{name}'")
    if kind not in ("memory", "thread"):
        raise RegistryError(f"layout axis '{name}': kind must be 'memory' or 'thread', not "
                            f"'{kind}'")
    layout_axes.register(name, kind, override=override)


def register_layout_shorthand(scope: str, factory: Callable[[], Callable[..., Any]], *,
                              override: bool = False) -> None:
    """Let a backend give quoted layout shorthands (TIRx's ``"PF"``) a meaning in one of its
    memory scopes; ``factory()`` returns ``expand(annotation, shape, element_type)``."""
    layout_shorthands.register(scope, factory, override=override)


def register_script_namespace(name: str, namespace: object, *, override: bool = False) -> object:
    """Publish ``namespace`` as ``tirx_mlir.script.<name>`` (``Tx.<name>`` in kernels)."""
    script_namespaces.register(name, namespace, override=override)
    return namespace


def list_script_namespaces() -> dict[str, object]:
    return script_namespaces.listing()


def list_dialects() -> list[str]:
    return sorted(dialects.keys())


def list_passes() -> list[str]:
    """Passes registered by the core and loaded backends (tirx-opt adds xDSL's own)."""
    return sorted(passes.keys())


def list_printers() -> list[str]:
    return sorted(printers.keys())


def list_interpreter_functions() -> list[str]:
    return sorted(interpreter_functions.keys())


def list_memory_scopes() -> dict[str, str]:
    return dict(sorted(memory_scopes.items()))


def registrations_of(owner: str) -> dict[str, list[Any]]:
    """``{registry: [keys]}`` of every entry ``owner`` (a backend name, or "core") made."""
    out: dict[str, list[Any]] = {}
    for reg in all_registries():
        keys = reg.keys_of(owner)
        if keys:
            out[reg.what] = keys
    return out


# --- the facade: register_*/list_* functions defined beside their subject -----------------------

_FACADE = {
    "tirx_mlir.pipelines": ("register_pipeline", "get_pipeline", "list_pipelines",
                            "pipeline_options"),
    "tirx_mlir.dispatch": ("register_dispatch", "register_dispatch_module", "predicate", "fail",
                           "list_registered_dispatch"),
    "tirx_mlir.target": ("register_target_kind", "list_target_kinds", "register_tag", "list_tags",
                         "register_device_target_detector", "detect_target_from_device",
                         "list_device_detectors"),
    "tirx_mlir.dialects.tirx.layout": ("known_axes",),
}
_FACADE_NAMES = {name: module for module, names in _FACADE.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _FACADE_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_FACADE_NAMES])
