"""Writing output files all at once, so that a failing run never truncates or corrupts one.

Each file is written to a temporary name beside it and renamed into place only when every file
of the batch is complete (`write_files_atomically`), so ``tirx-run --save`` that fails half way
leaves the old outputs intact. As ``mlir-opt`` does, a path that is a symbolic link is written
through (the link stays, its target gets the new text); a file with other hard links, and a path
that is not a regular file (``/dev/null``, ``/dev/full``, a pipe), are written in place, since a
rename would cut the link or cannot replace a device. Every failure is an `OutputFileError` that
names the path the user gave, never a temporary name.
"""

from __future__ import annotations

import os
import stat
import tempfile
from typing import BinaryIO, Callable, Sequence

Writer = Callable[[BinaryIO], None]


class OutputFileError(OSError):
    """An output file that cannot be written: ``cannot write 'PATH': <reason>``."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"cannot write '{path}': {reason}")
        self.path = path
        self.reason = reason

    def __str__(self) -> str:
        return self.args[0]


def write_atomically(path: str, text: str) -> None:
    """Replace the contents of ``path`` by ``text`` all at once (see the module docstring)."""
    data = text.encode("utf-8")
    write_files_atomically([(path, lambda f: f.write(data))])


def write_files_atomically(files: Sequence[tuple[str, Writer]]) -> None:
    """Write every ``(path, writer)``: each writer fills a temporary file beside its path, and
    only when all succeeded are they renamed into place; on any failure none is."""
    staged: list[tuple[str, str, str]] = []  # (user path, temp, final real path)
    try:
        for path, writer in files:
            real = _real_path(path)
            if _in_place(real):
                continue
            staged.append((path, _write_temp(path, real, writer), real))
        for path, writer in files:  # in place: devices, pipes, hard-linked files
            real = _real_path(path)
            if _in_place(real):
                _guard(path, lambda: _write_in_place(real, writer))
        for path, tmp, real in staged:
            _guard(path, lambda: os.replace(tmp, real))
    finally:
        for _, tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)


def _real_path(path: str) -> str:
    """Where a write to ``path`` lands: the final target of a symbolic link."""
    return os.path.realpath(path) if os.path.islink(path) else path


def _in_place(real: str) -> bool:
    try:
        info = os.stat(real)
    except OSError:
        return False  # a new file (or a bad folder, which the temp file reports)
    return not stat.S_ISREG(info.st_mode) or info.st_nlink > 1


def _write_in_place(real: str, writer: Writer) -> None:
    with open(real, "wb") as f:
        writer(f)


def _write_temp(path: str, real: str, writer: Writer) -> str:
    directory = os.path.dirname(os.path.abspath(real))
    if os.path.isdir(real):
        raise OutputFileError(path, "it is a directory")
    if not os.path.isdir(directory):
        raise OutputFileError(path, f"no such directory '{os.path.dirname(path) or '.'}'")
    fd, tmp = _guard(path, lambda: tempfile.mkstemp(prefix=f".{os.path.basename(real)}.",
                                                    suffix=".tmp", dir=directory))
    def fill() -> None:
        with os.fdopen(fd, "wb") as f:
            writer(f)

    try:
        _guard(path, fill)
        mode = os.stat(real).st_mode & 0o7777 if os.path.exists(real) else 0o666 & ~_umask()
        os.chmod(tmp, mode)
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def _guard(path: str, action: Callable):
    """Run ``action``; an OSError becomes an `OutputFileError` naming ``path``."""
    try:
        return action()
    except OutputFileError:
        raise
    except OSError as err:
        raise OutputFileError(path, err.strerror or str(err)) from None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
