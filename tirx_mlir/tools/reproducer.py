"""Crash reproducers: the input of a failed ``tirx-opt`` run plus what it was asked to do.

When a pass (or a verifier, the parser or a printer) raises something other than a diagnostic,
``tirx-opt`` writes a reproducer: one header comment holding the expanded pipeline, the target
and the flags that matter, followed by the input text of the failing chunk::

    // tirx-opt crash reproducer: internal compiler error in pass 'cse': KeyError: 'x'
    // tirx-opt-reproducer: {"passes": "canonicalize,cse,dce", "target": "mlir", ...}
    builtin.module { ... }

The header lines are comments, so the file is valid input on its own;
``tirx-opt --run-reproducer FILE`` reads the header and runs the same pipeline on it.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import asdict, dataclass

from tirx_mlir.tools.atomic_file import write_atomically

HEADER_KEY = "// tirx-opt-reproducer: "
TITLE_PREFIX = "// tirx-opt crash reproducer: "
DIR_ENV = "TIRX_MLIR_REPRODUCER_DIR"


class ReproducerError(ValueError):
    """A file given to --run-reproducer that is not a reproducer."""


@dataclass(frozen=True)
class ReproducerConfig:
    """What a run did, in the driver's own option spellings."""

    passes: str = ""
    target: str = "mlir"
    allow_unregistered_dialect: bool = False
    no_implicit_module: bool = False
    disable_verify: bool = False


def reproducer_text(config: ReproducerConfig, source: str, summary: str) -> str:
    title = " ".join(summary.split())  # one line
    return (f"{TITLE_PREFIX}{title}\n{HEADER_KEY}{json.dumps(asdict(config), sort_keys=True)}\n"
            f"{source if source.endswith(chr(10)) or not source else source + chr(10)}")


def write_reproducer(config: ReproducerConfig, source: str, summary: str,
                     path: str | None = None, input_name: str = "input") -> str:
    """Write a reproducer (to ``path``, else a fresh file in $TIRX_MLIR_REPRODUCER_DIR or the
    temp dir) and return its path. Written atomically: a temp file renamed into place."""
    text = reproducer_text(config, source, summary)
    if path is None:
        directory = os.environ.get(DIR_ENV) or tempfile.gettempdir()
        stem = "".join(c if c.isalnum() or c in "-_" else "_"
                       for c in os.path.splitext(os.path.basename(input_name))[0]) or "input"
        fd, path = tempfile.mkstemp(prefix=f"tirx-opt-reproducer-{stem}-"
                                           f"{time.strftime('%Y%m%d-%H%M%S')}-",
                                    suffix=".mlir", dir=directory)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    write_atomically(path, text)
    return path


def read_reproducer(path: str) -> ReproducerConfig:
    """The configuration in a reproducer's header (raises ReproducerError if there is none)."""
    with open(path, encoding="utf-8") as f:
        for _, line in zip(range(16), f):
            if not line.startswith(HEADER_KEY):
                continue
            try:
                fields = json.loads(line[len(HEADER_KEY):])
                known = ReproducerConfig.__dataclass_fields__
                return ReproducerConfig(**{k: v for k, v in fields.items() if k in known})
            except (json.JSONDecodeError, TypeError) as err:
                raise ReproducerError(f"{path}: malformed reproducer header: {err}") from None
    raise ReproducerError(f"{path} is not a tirx-opt reproducer: no '{HEADER_KEY.strip()}' "
                          f"line in its first 16 lines")
