"""The on-disk compile cache, as Triton's: a compile whose key was seen before loads its result
instead of running the pipeline, the printers and the tools again (in any later process).

Key: the SHA-256 of the input IR's text, the target, the pipeline's spec, the compile options,
the primary printer, the toolchain's tool versions, the versions of tirx_mlir, xDSL and Python,
and a fingerprint of tirx_mlir's own source files (`source_fingerprint`: each .py file's path,
size and modification time), so an edited or reinstalled compiler never reuses what an older one
built, as Triton keys its cache on its sources (`compile_key`). Entry:
``<dir>/<key[:2]>/<key>/`` with the lowered IR, each source, the binary and ``meta.json``
(statistics, notes); every file is written to a temporary name and renamed into place,
``meta.json`` last, so a reader sees a complete entry or none, and two processes that compile
the same kernel at once both succeed.

Where: ``$TIRX_MLIR_CACHE_DIR``, else ``$XDG_CACHE_HOME/tirx_mlir``, else ``~/.cache/tirx_mlir``
(`cache_location`). ``TIRX_MLIR_CACHE=0`` turns it off. An unreadable or partial entry is a
miss; a directory that cannot be written only costs the cache (the artifact's notes say so).
"""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tirx_mlir.runtime.cache_location import (CACHE_DIR_ENV, CACHE_ENV,  # noqa: F401 - re-exported
                                             cache_dir, cache_enabled)
from tirx_mlir.tools.atomic_file import OutputFileError, write_files_atomically

FORMAT = 1


def compile_key(parts: dict[str, Any]) -> str:
    """The key of a compile described by ``parts`` (plus the versions every key includes)."""
    import xdsl

    import tirx_mlir

    full = {**parts, "format": FORMAT, "tirx_mlir": tirx_mlir.__version__,
            "sources": source_fingerprint(Path(tirx_mlir.__file__).parent),
            "xdsl": getattr(xdsl, "__version__", "?"), "python": platform.python_version()}
    text = json.dumps(full, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


_FINGERPRINTS: dict[Path, str] = {}


def source_fingerprint(root: Path) -> str:
    """SHA-256 of (path, size, mtime) of every .py file under ``root``: stat calls only, once
    per process (the sources of a running compiler do not change under it)."""
    known = _FINGERPRINTS.get(root)
    if known is None:
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            st = path.stat()
            digest.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        known = _FINGERPRINTS[root] = digest.hexdigest()
    return known


@dataclass
class Entry:
    lowered: str
    sources: dict[str, str]
    binary: bytes | None
    meta: dict[str, Any]


class CompileCache:
    """One cache directory."""

    def __init__(self, directory: Path | str | None = None):
        self.directory = Path(directory) if directory is not None else cache_dir()

    def path(self, key: str) -> Path:
        return self.directory / key[:2] / key

    def load(self, key: str) -> Entry | None:
        where = self.path(key)
        try:
            meta = json.loads((where / "meta.json").read_text())
            if meta.get("format") != FORMAT:
                return None
            lowered = (where / "lowered.mlir").read_text()
            sources = {name: (where / file).read_text()
                       for name, file in meta["sources"].items()}
            binary = (where / "binary.bin").read_bytes() if meta.get("binary") else None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return Entry(lowered, sources, binary, meta)

    def store(self, key: str, entry: Entry) -> str | None:
        """Write an entry; returns None, or why it could not be written."""
        where = self.path(key)
        files: list[tuple[str, Any]] = [(str(where / "lowered.mlir"), _text(entry.lowered))]
        source_files = {}
        for i, (name, text) in enumerate(entry.sources.items()):
            source_files[name] = f"source{i}.txt"
            files.append((str(where / source_files[name]), _text(text)))
        if entry.binary is not None:
            files.append((str(where / "binary.bin"), lambda f, b=entry.binary: f.write(b)))
        meta = {**entry.meta, "format": FORMAT, "sources": source_files,
                "binary": entry.binary is not None}
        files.append((str(where / "meta.json"), _text(json.dumps(meta, indent=1, default=str))))
        try:
            where.mkdir(parents=True, exist_ok=True)
            write_files_atomically(files)
        except (OSError, OutputFileError) as err:
            return f"the compile cache at {self.directory} cannot be written: {err}"
        return None

    def clear(self) -> None:
        """Delete every entry."""
        shutil.rmtree(self.directory, ignore_errors=True)


def _text(text: str):
    data = text.encode("utf-8")
    return lambda f: f.write(data)
