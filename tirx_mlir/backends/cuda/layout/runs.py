"""Which runs of a tile are contiguous in memory: the static question behind every vector access
(``ld``/``st.v*``, ``cp.async`` of 16/8/4 bytes, an ``ldmatrix`` row of 16 bytes).

A *run* is ``run`` consecutive elements along one dim starting at a multiple of ``run``. A
buffer's runs along a dim are *aligned* when every such run is ``run`` consecutive physical
elements starting at a physical multiple of ``run``: true for a row-major (or strided) layout
whose dim has stride 1 and whose other strides are multiples of ``run``, and for a swizzled one
whose swizzle moves whole runs (an XOR on 16-byte chunks keeps 16-byte runs; `aligned_runs`
reads the layout itself when it is not a plain stride per dim). A view's runs along view dim
``dim`` are aligned when that dim walks one buffer dim with step 1 from an offset that is a
multiple of ``run`` for every value of the offset's variables (`aligned`), the other view dims
step by multiples of ``run`` along that buffer dim, and the buffer's runs along it are aligned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy
from tirx_mlir.dialects.tirx.access import IndexExpr, resolve_access, value_domain
from tirx_mlir.dialects.tirx.attributes import BufferType, decoded
from tirx_mlir.dialects.tirx.layout import TileLayout

if TYPE_CHECKING:
    import numpy as np
else:  # numpy on first use (lazy_numpy.py)
    np = lazy_numpy(globals())

MAX_TABLE = 1 << 20
"""Elements up to which a layout without a stride per dim is read element by element."""


def aligned(expr: IndexExpr, run: int) -> bool:
    """Whether an affine index is a multiple of ``run`` for every value its variables take: each
    term's coefficient times every value of its variable (a loop variable's range or a scope
    id's extent, `access.value_domain`; any value when unknown) is."""
    if expr.const % run:
        return False
    for value, coeff in expr.terms:
        if coeff % run == 0:
            continue
        domain = value_domain(value)
        if domain is None or (coeff * domain.start) % run or \
                (len(domain) > 1 and (coeff * domain.step) % run):
            return False
    return True


def _strides(layout: TileLayout, shape: tuple[int, ...]) -> list[int] | None:
    """The physical stride of each dim, when the layout is one stride per dim on ``m`` without
    swizzle (None otherwise)."""
    if layout.swizzle is not None or layout.replica or \
            any(it.axis != "m" for it in layout.shard):
        return None
    groups = layout.dim_groups(shape)
    if groups is None:
        return None
    out = []
    for n, group in zip(shape, groups):
        inner = [it for it in group if it.extent > 1]
        stride = inner[-1].stride if inner else 0
        step = stride
        for it in reversed(inner):
            if it.stride != step:
                return None
            step = it.stride * it.extent
        out.append(stride if n > 1 else 0)
    return out


def aligned_runs(btype: BufferType, dim: int, run: int) -> bool:
    """Whether every run of ``run`` elements of ``btype`` along ``dim`` (module docstring) is
    ``run`` consecutive, ``run``-aligned physical elements. Answered once per type, dim and
    run (kept on the type: `decoded`)."""
    answers = decoded(btype, "_cuda_aligned_runs", _no_answers)
    key = (dim, run)
    found = answers.get(key)
    if found is None:
        found = answers[key] = _aligned_runs(btype, dim, run)
    return found


def _no_answers(_: BufferType) -> dict:
    return {}


def _aligned_runs(btype: BufferType, dim: int, run: int) -> bool:
    shape = btype.get_shape()
    if shape[dim] % run:
        return False
    layout = btype.get_layout() or TileLayout.row_major(shape)
    strides = _strides(layout, shape)
    if strides is not None:
        return (run == 1 or strides[dim] == 1) and layout.offset_of("m") % run == 0 and \
            all(s % run == 0 for d, s in enumerate(strides) if d != dim)
    if btype.numel > MAX_TABLE:
        return False
    phys = np.moveaxis(layout.apply_array(shape)["m"], dim, -1)
    runs = phys.reshape(*phys.shape[:-1], phys.shape[-1] // run, run)
    return bool((runs[..., :1] % run == 0).all() and
                (runs == runs[..., :1] + np.arange(run)).all())


def view_runs(view: SSAValue, dim: int, run: int) -> bool:
    """Whether the runs of ``run`` elements of ``view`` along its dim ``dim`` are aligned in
    the buffer it views, whatever values its offsets take."""
    access = resolve_access(view)
    if access.flat:
        return False
    step = access.steps[dim]
    moving = [d for d, s in enumerate(step) if s]
    if len(moving) != 1 or step[moving[0]] != 1:
        return run == 1
    bd = moving[0]
    if access.sizes[dim] % run:
        return False
    if not aligned(access.offset[bd], run):
        return False
    if any(s[bd] % run for k, s in enumerate(access.steps) if k != dim):
        return False
    return aligned_runs(access.buffer_type, bd, run)


def padded_runs(view: SSAValue, dim: int, run: int, write: bool) -> bool:
    """Like `view_runs` for a view whose extent along ``dim`` is not a multiple of ``run``: each
    run's valid elements are consecutive from an aligned physical start; for a ``write`` (a
    zero-filling copy into the tile) the rest of the run's ``run`` physical elements must be
    padding, held by no element of the buffer and inside its span."""
    access = resolve_access(view)
    step = access.steps[dim]
    moving = [d for d, s in enumerate(step) if s]
    if access.flat or len(moving) != 1 or step[moving[0]] != 1:
        return False
    bd = moving[0]
    off = access.offset[bd]
    if not aligned(off, run) or any(s[bd] % run for k, s in enumerate(access.steps) if k != dim):
        return False
    btype = access.buffer_type
    shape = btype.get_shape()
    layout = btype.get_layout() or TileLayout.row_major(shape)
    strides = _strides(layout, shape)
    if not write and strides is not None:
        return strides[bd] == 1 and layout.offset_of("m") % run == 0 and \
            all(s % run == 0 for d, s in enumerate(strides) if d != bd)
    if btype.numel > MAX_TABLE or any(o.terms for o in access.offset):
        return False
    table = layout.apply_array(shape)["m"]
    used = set(table.ravel().tolist())
    span = layout.span("m")
    # the physical index of every element of the view, view dim ``dim`` last
    grids = np.indices(access.sizes)
    base = [o.const + sum(g * st[d] for g, st in zip(grids, access.steps))
            for d, o in enumerate(access.offset)]
    phys = np.moveaxis(table[tuple(base)], dim, -1)
    n = access.sizes[dim]
    for s in range(0, n, run):
        valid = min(run, n - s)
        p0 = phys[..., s]
        if (p0 % run).any() or any((phys[..., s + j] != p0 + j).any() for j in range(valid)):
            return False
        if write and valid < run:
            pads = (p0[..., None] + np.arange(valid, run)).ravel().tolist()
            if any(p in used or p >= span for p in pads):
                return False
    return True
