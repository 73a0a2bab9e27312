"""Backends of tirx_mlir and the loader that registers them.

Each backend is a package ``tirx_mlir.backends.<name>`` whose ``register_backend()`` registers
everything it provides (target kinds and tags, device detectors, dialects, passes, pipelines,
tile-dispatch variants, printers, interpreter implementations, script namespaces) in the
registries of `tirx_mlir.registry`::

    from tirx_mlir import backends
    backends.load("cuda")            # idempotent, thread-safe; rolls back completely on failure
    backends.is_loaded("cuda")       # True
    backends.loaded_backends()       # ("cuda", "trn", ...)
    import tirx_mlir.tirx.cuda       # the same module object as tirx_mlir.backends.cuda

``import tirx_mlir`` autoloads the builtin backends (`BUILTIN_BACKENDS`) and the entry points of
the group ``tirx_mlir.backends`` unless ``TIRX_MLIR_BACKEND_AUTOLOAD=0``. See docs/backends.md.

Builtin backends: ``cuda`` and ``trn`` (code generation), and ``metal``, ``rocm``, ``opencl``,
``vulkan``, ``webgpu``, ``hexagon``, ``adreno``, which register target kinds, tags and device
detectors only (no code generation yet).
"""

from __future__ import annotations

from tirx_mlir.backends._autoload import (AUTOLOAD_ENV, BUILTIN_BACKENDS, ENTRY_POINT_GROUP,
                                          EXTRA_BACKENDS_ENV, _autoload_backends,
                                          autoload_enabled, load_entry_points,
                                          missing_backend_hint)
from tirx_mlir.backends._loader import (SEARCH_PATH_ENV, BackendLoadError, add_search_path,
                                        install_alias_finder, is_loaded, load, loaded_backends,
                                        refresh_search_path)

__all__ = ["SEARCH_PATH_ENV", "add_search_path", "AUTOLOAD_ENV", "BUILTIN_BACKENDS", "BackendLoadError", "ENTRY_POINT_GROUP",
           "EXTRA_BACKENDS_ENV", "autoload_enabled", "is_loaded", "load", "load_entry_points",
           "loaded_backends", "missing_backend_hint", "refresh_search_path"]

refresh_search_path()
install_alias_finder()
