"""Autoloading backends at ``import tirx_mlir``: the builtin ones, then out-of-tree entry points.

* The builtin backends load in a fixed order: ``cuda``, ``trn``, then ``metal``, ``rocm``,
  ``opencl``, ``vulkan``, ``webgpu``, ``hexagon``, ``adreno``. A builtin backend that fails to
  load fails ``import tirx_mlir`` (as in TIRx: a broken install must not pass silently).
* ``TIRX_MLIR_BACKENDS=name1,name2`` loads further backends by name (packages
  ``tirx_mlir.backends.<name>`` found on ``sys.path``; used by tests and tools). A failure is a
  warning.
* Every entry point of the group ``tirx_mlir.backends`` is loaded and called with no arguments
  (typically ``def _autoload(): tirx_mlir.backends.load("foo")``). One that raises (even
  ``SystemExit`` or ``KeyboardInterrupt``) produces a `RuntimeWarning` naming it, never a failed
  import, and leaves nothing behind: what it registered (owned by ``"entry point <name>"``) and
  the backends it loaded are rolled back.
* ``TIRX_MLIR_BACKEND_AUTOLOAD=0`` turns all of this off; backends can then be loaded by hand.

Start-up time matters (every ``tirx-opt`` run pays it): backends register factories, not
imported dialect modules, and entry points are looked up through ``importlib.metadata`` only when
a distribution on ``sys.path`` declares the group (a directory scan is much cheaper than
importing ``importlib.metadata``).
"""

from __future__ import annotations

import os
import sys
import threading
import warnings

from tirx_mlir import registry
from tirx_mlir.backends._loader import is_loaded, load, loaded_backends, unload

BUILTIN_BACKENDS = ("cuda", "trn", "metal", "rocm", "opencl", "vulkan", "webgpu", "hexagon",
                    "adreno")
ENTRY_POINT_GROUP = "tirx_mlir.backends"
AUTOLOAD_ENV = "TIRX_MLIR_BACKEND_AUTOLOAD"
EXTRA_BACKENDS_ENV = "TIRX_MLIR_BACKENDS"

_done = False
_lock = threading.Lock()


def autoload_enabled() -> bool:
    return os.environ.get(AUTOLOAD_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


def _autoload_backends() -> None:
    """Load the builtin backends, ``TIRX_MLIR_BACKENDS`` and entry points (once per process)."""
    global _done
    with _lock:
        if _done:
            return
        _done = True
    if not autoload_enabled():
        return
    for name in BUILTIN_BACKENDS:
        load(name)
    for name in _extra_backend_names():
        try:
            load(name)
        except Exception as err:  # noqa: BLE001 - an optional backend never breaks the import
            warnings.warn(f"failed to load backend '{name}' named in ${EXTRA_BACKENDS_ENV}: "
                          f"{type(err).__name__}: {err}", RuntimeWarning, stacklevel=2)
    load_entry_points()


def missing_backend_hint(what: str, name: str = "") -> str:
    """The end of an error about an unknown ``name`` of a kind (``what``: "memory scopes",
    "layout axes"...) that backends register: which builtin backends are not loaded and how to
    load one; "" when all of them are. A dotted name's prefix picks the example
    (``trn.sbuf`` -> ``load('trn')``)."""
    missing = [backend for backend in BUILTIN_BACKENDS if not is_loaded(backend)]
    if not missing:
        return ""
    prefix = name.split(".", 1)[0]
    example = prefix if prefix in missing else missing[0]
    off = "" if autoload_enabled() else f" ({AUTOLOAD_ENV}=0 is set)"
    unset = "" if autoload_enabled() else f", or unset {AUTOLOAD_ENV}"
    return (f". Backends register their own {what} when they are loaded, and these builtin "
            f"backends are not loaded{off}: {', '.join(missing)}; load the one the IR is for "
            f"first, e.g. tirx_mlir.backends.load('{example}'){unset}")


def _extra_backend_names() -> list[str]:
    text = os.environ.get(EXTRA_BACKENDS_ENV, "")
    return [n.strip() for n in text.replace(";", ",").split(",") if n.strip()]


def load_entry_points(group: str = ENTRY_POINT_GROUP) -> list[str]:
    """Call every entry point of ``group``; returns the names of those that succeeded."""
    if not _some_distribution_declares(group):
        return []
    from importlib.metadata import entry_points

    done: list[str] = []
    for entry in entry_points(group=group):
        owner = f"entry point {entry.name}"
        backends_before = set(loaded_backends())
        try:
            with registry.hook_scope(owner):
                hook = entry.load()
                hook()
        except (Exception, SystemExit, KeyboardInterrupt) as err:  # noqa: BLE001 - a broken
            # plugin never breaks the import, nor exits the tool that imports tirx_mlir
            _roll_back(owner, backends_before)
            warnings.warn(f"failed to autoload tirx_mlir backend entry point '{entry.name}' "
                          f"({entry.value}): {type(err).__name__}: {err}", RuntimeWarning,
                          stacklevel=2)
            continue
        done.append(entry.name)
    return done


def _roll_back(owner: str, backends_before: set[str]) -> None:
    """Undo a failed entry point: what it registered itself and the backends it loaded."""
    registry.drop_owner_everywhere(owner)
    for name in loaded_backends():
        if name not in backends_before:
            unload(name)


def _some_distribution_declares(group: str) -> bool:
    """Whether a ``*.dist-info`` / ``*.egg-info`` on ``sys.path`` has an ``entry_points.txt``
    with a ``[group]`` section (a cheap pre-check before importlib.metadata)."""
    header = f"[{group}]"
    for entry in sys.path:
        if not isinstance(entry, str):
            continue
        directory = entry or "."
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(directory, name, "entry_points.txt"),
                          encoding="utf-8") as f:
                    if header in f.read():
                        return True
            except OSError:
                continue
    return False
