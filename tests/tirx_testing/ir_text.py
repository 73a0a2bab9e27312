"""IR text for tests: the one way the suite spells a buffer type and a kernel around a body."""

from __future__ import annotations

from typing import Mapping, Sequence


def buffer_type(shape: str | Sequence[int], dtype: str | None = None, scope: str = "global") -> str:
    """``buffer_type("4x8xf32")`` or ``buffer_type((4, 8), "f32", "trn.sbuf")`` ->
    ``!tirx.buffer<4x8xf32, global>`` / ``!tirx.buffer<4x8xf32, trn.sbuf>``."""
    spec = shape if isinstance(shape, str) else f"{'x'.join(map(str, shape))}x{dtype}"
    return f"!tirx.buffer<{spec}, {scope}>"


def kernel_text(body: str, params: Mapping[str, str], outs: Mapping[str, str] | None = None, *,
                target: str | None = None, launch: str = "grid [1] threads [1]",
                name: str = "k") -> str:
    """``tirx.kernel @name(params) -> (outs) <launch> [target "..."] { body; tirx.return }``
    (parameter name -> buffer type text)."""
    ins = ", ".join(f"%{n}: {t}" for n, t in params.items())
    res = ", ".join(f"%{n}: {t}" for n, t in (outs or {}).items())
    arrow = f" -> ({res})" if outs else ""
    tgt = f' target "{target}"' if target else ""
    return f"tirx.kernel @{name}({ins}){arrow} {launch}{tgt} {{\n{body}\n  tirx.return\n}}\n"
