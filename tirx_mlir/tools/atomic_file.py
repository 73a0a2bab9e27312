"""Writing a file all at once, so that a failing run never truncates or corrupts it."""

from __future__ import annotations

import os
import tempfile


def write_atomically(path: str, text: str) -> None:
    """Replace ``path`` by ``text`` all at once: write a temp file beside it, then rename, so
    a failure never leaves a truncated or half-written file. A path that exists but is not a
    regular file (``/dev/null``, a pipe) is written in place."""
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if os.path.exists(path):
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
