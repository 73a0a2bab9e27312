"""The tile examples at the sizes a GPU bench times (bench/gpu/gemm.py uses it).

The examples of examples/cuda/tile declare small problems (256^3 GEMMs, 512-row softmaxes) so
that the interpreters can check them; on a GPU those sizes time the launch, not the kernel.
These functions rewrite an example's text to a larger problem of the same kernel, changing only
what the problem size decides and checking that each change applies exactly once:

* `gemm_at(text, size)`: a 2-D-grid GEMM (C = A @ B or A @ B^T, optional 1 x N epilogue
  operands) at M = N = K = ``size``: each global parameter's dimensions (every one > 1 becomes
  ``size``), the grid (each CTA keeps its tile), and the K loop's upper bound (scaled by the
  K ratio, so loops counted in elements and loops counted in tiles both stay right);
* `rows_at(text, rows)`: a row kernel (softmax) with a 1-D grid over row blocks at ``rows``
  rows: the leading dimension of each global parameter and the grid.

Each raises ValueError, saying why, for a kernel whose shape it does not recognise (a 1-D grid
GEMM whose N is fixed in the program, say); the caller times that one at its declared size.
"""

from __future__ import annotations

import re

_PARAM = re.compile(r"%(\w+): !tirx\.buffer<([0-9x]+)x(\w+), global>")
_GRID = re.compile(r"grid \[([0-9, ]+)\]")


def _params(text: str) -> dict[str, tuple[list[int], str]]:
    head = text[text.index("tirx.kernel"):text.index("{", text.index("tirx.kernel"))]
    return {name: ([int(d) for d in dims.split("x")], elt)
            for name, dims, elt in _PARAM.findall(head)}


def _replace_once(text: str, old: str, new: str) -> str:
    if text.count(old) < 1:
        raise ValueError(f"{old!r} is not in the kernel")
    return text.replace(old, new)


def _retype(text: str, dims: list[int], elt: str, new_dims: list[int]) -> str:
    old = f"!tirx.buffer<{'x'.join(map(str, dims))}x{elt}, global>"
    new = f"!tirx.buffer<{'x'.join(map(str, new_dims))}x{elt}, global>"
    return _replace_once(text, old, new) if old != new else text


def _grid(text: str) -> list[int]:
    found = _GRID.findall(text)
    if len(found) != 1:
        raise ValueError(f"expected one grid, found {len(found)}")
    return [int(g) for g in found[0].split(",")]


def gemm_at(text: str, size: int) -> str:
    """``text`` (a tile GEMM with a 2-D grid) at M = N = K = ``size``."""
    params = _params(text)
    if len(params) < 3:
        raise ValueError("a GEMM has at least A, B and C")
    names = list(params)
    (a, _), (c, _) = params[names[0]], params[names[-1]]
    m, k, n = a[0], a[1], c[1]
    if any(size % d for d in (m, n, k)):
        raise ValueError(f"{size} is not a multiple of M={m}, N={n}, K={k}")
    grid = _grid(text)
    if len(grid) != 2:
        raise ValueError(f"grid {grid} is not 2-D: its N (or M) is fixed by the program")
    if len({m, n, k}) > 1 and len({tuple(params[p][0]) for p in names}) < len(names):
        raise ValueError("two parameters share a type: their dimensions cannot be told apart")
    for dims, elt in dict.fromkeys((tuple(d), e) for d, e in params.values()):
        # distinct types, or all square: one replacement per type is exact
        text = _retype(text, list(dims), elt, [size if d > 1 else 1 for d in dims])
    text = _replace_once(text, f"grid [{grid[0]}, {grid[1]}]",
                         f"grid [{grid[0] * size // n}, {grid[1] * size // m}]")
    loop = re.findall(r"scf\.for %k = %c0 to %(\w+) step", text)
    if len(loop) != 1:
        raise ValueError(f"expected one K loop 'scf.for %k = %c0 to ...', found {len(loop)}")
    bound = re.findall(rf"%{loop[0]} = arith\.constant (\d+) : index\n", text)
    if len(bound) != 1:
        raise ValueError(f"the K loop's bound %{loop[0]} is not one index constant")
    new_bound = int(bound[0]) * size // k
    define = f"%{loop[0]} = arith.constant {bound[0]} : index\n"
    text = _replace_once(text, define,
                         define + f"  %k_end = arith.constant {new_bound} : index\n")
    return _replace_once(text, f"scf.for %k = %c0 to %{loop[0]} step",
                         "scf.for %k = %c0 to %k_end step")


def rows_at(text: str, rows: int) -> str:
    """``text`` (a row kernel with a 1-D grid over row blocks) at ``rows`` rows."""
    params = _params(text)
    grid = _grid(text)
    leading = {dims[0] for dims, _ in params.values()}
    if len(grid) != 1 or len(leading) != 1:
        raise ValueError(f"grid {grid}, leading dimensions {sorted(leading)}: not a row kernel")
    old_rows = leading.pop()
    if rows % old_rows:
        raise ValueError(f"{rows} rows is not a multiple of the kernel's {old_rows}")
    for dims, elt in dict.fromkeys((tuple(d), e) for d, e in params.values()):
        text = _retype(text, list(dims), elt, [rows, *dims[1:]])
    return _replace_once(text, f"grid [{grid[0]}]", f"grid [{grid[0] * rows // old_rows}]")

