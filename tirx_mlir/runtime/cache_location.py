"""Where tirx_mlir keeps its on-disk caches, and the switch that turns them off.

``$TIRX_MLIR_CACHE_DIR``, else ``$XDG_CACHE_HOME/tirx_mlir``, else ``~/.cache/tirx_mlir``;
``TIRX_MLIR_CACHE=0`` (or false/off/no) turns caching off. Used by the compile cache
(`tirx_mlir.runtime.cache`) and the tools' dataclass-code cache
(`tirx_mlir.tools.dataclass_cache`); it imports nothing, so the tools can read it before
anything else at start-up.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "TIRX_MLIR_CACHE_DIR"
CACHE_ENV = "TIRX_MLIR_CACHE"
_OFF = ("0", "false", "off", "no")


def cache_enabled() -> bool:
    return os.environ.get(CACHE_ENV, "1").strip().lower() not in _OFF


def cache_dir() -> Path:
    if os.environ.get(CACHE_DIR_ENV):
        return Path(os.environ[CACHE_DIR_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tirx_mlir"
