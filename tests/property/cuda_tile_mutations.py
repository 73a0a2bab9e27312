"""Edits of tile-level CUDA kernels for the CUDA fuzz campaign (`cuda_fuzz_campaign`).

`fuzz_campaign.MUTATIONS` edit one token at a time, so most of their mutants no longer parse
(an operand's type differs from its definition) and stop at the parser. These edits change a
buffer type, a dtype, a memory scope, a swizzle or an exec scope *everywhere it is written*, so
that the mutant usually still parses and verifies and reaches dispatch, the passes, the printers
and the interpreters with shapes and types no example has:

* ``tile-shape``: one dimension of one buffer type (every occurrence of that type) made 0, 1,
  -1, 2^40, 2^31, or a size no tile divides (33, 100, 7, 48);
* ``tile-dtype``: one element type of one buffer type, or one dtype in the whole file, made
  f64, i1, i8, i32, f8E4M3FN, f8E5M2, bf16, f16 (operands of an op then disagree, or all agree on
  a dtype the instructions lack);
* ``tile-scope``: one buffer type's memory scope swapped (shared/local/global);
* ``tile-swizzle``: a swizzle on a buffer of the wrong size (32/64/128-byte swizzles, with and
  without the ``S[...]`` shape), or a swizzle added to an unswizzled shared buffer;
* ``exec-scope``: the exec scope of one tile op, or of all, made warp/warpgroup/thread/cluster;
* ``global-layout``: a global buffer type given a layout that places it in memory otherwise
  than row-major (column-major, padded rows, head padding) or one device memory cannot hold (a
  swizzle, a thread axis);
* ``op-delete`` / ``op-duplicate``: one op line deleted or written twice.
"""

from __future__ import annotations

import random
import re

SHAPE_DIMS = ["0", "1", "-1", "1099511627776", "2147483648", "33", "100", "7", "48", "3"]
TILE_DTYPES = ["f64", "i1", "i8", "i32", "f8E4M3FN", "f8E5M2", "bf16", "f16", "f32", "index"]
TILE_SCOPES = ["shared", "local", "global"]
EXEC_SCOPES = ["warp", "warpgroup", "thread", "cluster", "cta"]
SWIZZLES = ["swizzle(1,4,3)", "swizzle(2,4,3)", "swizzle(3,4,3)", "swizzle(3,3,3)",
            "swizzle(3,2,3)", "swizzle(3,3,4)", "swizzle(2,3,3)", "swizzle(1,3,3)"]

_BUFFER = re.compile(r"!tirx\.buffer<([^<>\n]*)>")
_DIMS = re.compile(r"^((?:-?\d+x)+)([a-zA-Z]\w*)(.*)$")
_DTYPE_WORD = re.compile(r"(?<=x)(f32|f16|bf16|f64|i32|i8|i1|f8E4M3FN|f8E5M2)(?=[,>])")
_EXEC = re.compile(r"(?m)^(\s*(?:%[\w]+ = )?tirx\.[a-z_]+) (cta|warp|warpgroup|thread|cluster)\b")
_SWIZZLE_LAYOUT = re.compile(r"swizzle\(\d+, ?\d+, ?\d+\)(?: S\[[^\]]*\])?")
_OP_LINE = re.compile(r"(?m)^\s+(?:%[\w#:, %]+ = )?(?:tirx|cuda|ptx|nvshmem|scf|arith|memref)\."
                      r"[^\n]*$")


def _buffer_types(text: str) -> list[str]:
    return sorted({m.group(0) for m in _BUFFER.finditer(text)})


def _retype(rng: random.Random, text: str, edit, params_first: bool = False) -> str:
    """One buffer type (all its occurrences) replaced by ``edit(rng, body)``'s body; with
    ``params_first``, mostly one of the kernel's parameters."""
    types = _buffer_types(text)
    header = text[text.find("tirx.kernel @"):text.find("{", text.find("tirx.kernel @"))]
    params = [t for t in types if t in header]
    if params_first and params and rng.random() < 0.8:
        types = params
    if not types:
        return text
    old = rng.choice(types)
    body = old[len("!tirx.buffer<"):-1]
    new = edit(rng, body)
    return text.replace(old, f"!tirx.buffer<{new}>")


def _shape(rng: random.Random, body: str) -> str:
    m = _DIMS.match(body)
    if m is None:
        return body
    dims = m.group(1).rstrip("x").split("x")
    dims[rng.randrange(len(dims))] = rng.choice(SHAPE_DIMS)
    return "x".join(dims) + "x" + m.group(2) + m.group(3)


def _dtype(rng: random.Random, body: str) -> str:
    m = _DIMS.match(body)
    return body if m is None else m.group(1) + rng.choice(TILE_DTYPES) + m.group(3)


def _scope(rng: random.Random, body: str) -> str:
    parts = body.split(", ", 2)
    if len(parts) < 2:
        return body
    parts[1] = rng.choice([s for s in TILE_SCOPES if s != parts[1]] or TILE_SCOPES)
    return ", ".join(parts)


def _swizzle(rng: random.Random, body: str) -> str:
    """A swizzle of another size in place of the buffer's, or one added (with the buffer's shape
    as ``S[...]`` or none)."""
    new = rng.choice(SWIZZLES)
    if _SWIZZLE_LAYOUT.search(body):
        keep_shape = rng.random() < 0.5
        return _SWIZZLE_LAYOUT.sub(lambda m: new + (m.group(0)[m.group(0).find(" S["):]
                                                    if keep_shape and " S[" in m.group(0) else ""),
                                   body, count=1)
    m = _DIMS.match(body)
    parts = body.split(", ")
    if m is None or len(parts) != 2:
        return body
    dims = m.group(1).rstrip("x").split("x")
    return body + ", " + new + (f" S[{','.join(dims)}]" if rng.random() < 0.7 else "")


def _global_layout(rng: random.Random, body: str) -> str:
    m = _DIMS.match(body)
    if m is None or m.group(3).strip() != ", global":
        return body
    dims = [int(d) for d in m.group(1).rstrip("x").split("x")]
    shape = ",".join(map(str, dims))
    strides = [1] * len(dims)
    for d in range(len(dims) - 2, -1, -1):
        strides[d] = strides[d + 1] * dims[d + 1]
    padded = [1] * len(dims)
    for d in range(len(dims) - 2, -1, -1):
        padded[d] = padded[d + 1] * (dims[d + 1] + (8 if d == len(dims) - 2 else 0))
    choices = [f"S[{shape}] + 64", f"S[({shape}):({','.join(map(str, padded))})]",
               "swizzle(3,3,3) S[" + shape + "]", f"S[({shape}):({','.join(['1@laneid'] + ['1'] * (len(dims) - 1))})]"]
    if len(dims) >= 2:
        col = [1] * len(dims)
        for d in range(1, len(dims)):
            col[d] = col[d - 1] * dims[d - 1]
        choices += [f"S[({shape}):({','.join(map(str, col))})]"] * 2
    return body + ", " + rng.choice(choices)


def _all_dtypes(rng: random.Random, text: str) -> str:
    """Every buffer of one dtype made another (operands agree; the instructions may lack it)."""
    found = sorted({m.group(1) for m in _DTYPE_WORD.finditer(text)})
    if not found:
        return text
    old, new = rng.choice(found), rng.choice(TILE_DTYPES)
    return _BUFFER.sub(lambda m: _DTYPE_WORD.sub(lambda d: new if d.group(1) == old else d.group(1),
                                                 m.group(0)), text)


def _exec_scope(rng: random.Random, text: str) -> str:
    matches = list(_EXEC.finditer(text))
    if not matches:
        return text
    new = rng.choice(EXEC_SCOPES)
    if rng.random() < 0.3:
        return _EXEC.sub(lambda m: f"{m.group(1)} {new}", text)
    m = rng.choice(matches)
    return text[:m.start()] + f"{m.group(1)} {new}" + text[m.end():]


def _op_line(rng: random.Random, text: str, duplicate: bool) -> str:
    matches = list(_OP_LINE.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    if duplicate:
        return text[:m.end()] + "\n" + m.group(0) + text[m.end():]
    return text[:m.start()] + text[m.end() + 1:]


TILE_MUTATIONS = {
    "tile-shape": lambda r, t: _retype(r, t, _shape),
    "tile-dtype": lambda r, t: _retype(r, t, _dtype) if r.random() < 0.5 else _all_dtypes(r, t),
    "tile-scope": lambda r, t: _retype(r, t, _scope),
    "tile-swizzle": lambda r, t: _retype(r, t, _swizzle),
    "exec-scope": _exec_scope,
    "global-layout": lambda r, t: _retype(r, t, _global_layout, params_first=True),
    "op-delete": lambda r, t: _op_line(r, t, False),
    "op-duplicate": lambda r, t: _op_line(r, t, True),
}
