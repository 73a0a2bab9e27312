"""Where a view of an on-chip buffer lands in the physical (partition, free) tile.

A view (a chain of ``tirx.slice`` / ``tirx.transpose`` / ``tirx.reshape`` over a buffer) reads
logical element ``base + sum_k v_k * step_k`` (`resolve_access`). The buffer's Trainium layout
flattens that index row-major and splits it mixed-radix over its shard iterators, each adding
``digit * stride`` to ``P`` or ``F``. The composition is affine in the view indices exactly when
no digit carries into the next one, which `physical_access` checks with the value ranges of the
symbolic offsets (loop variables, scope ids). Each view dim then walks one axis with one step:

    view [128, 512] of 256x2048 with S[(2,128,2048):(2048@F,1@P,1@F)], rows 128..255, cols 512..
      -> base P = 0, F = 2048 + 512;  dim 0: P step 1;  dim 1: F step 1

With ``allow_split`` a view dim that crosses a layout tile boundary (e.g. all 256 rows of the
buffer above) is split into pieces, outer to inner, each on one axis: ``[(2, F, 2048),
(128, P, 1)]``. Dispatch uses the split form to find instruction dims; layout lowering requires
the unsplit form. Both call this module, so the affinity rule lives here once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.ir import SSAValue

from tirx_mlir.dialects.tirx.access import IndexExpr, resolve_access, shared_answers, value_range
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.layout import TileLayout


class NotAffine(ValueError):
    """The view does not map to one strided (P, F) access pattern; the message says why."""


@dataclass(frozen=True)
class Piece:
    """A run of ``size`` view indices that moves ``step`` along ``axis`` ("P" or "F")."""

    size: int
    axis: str
    step: int


@dataclass(frozen=True)
class PhysicalAccess:
    """A view's physical access pattern: base coordinates and, per view dim, its pieces (outer
    to inner; no piece for a size-1 dim)."""

    buffer: SSAValue
    layout: TileLayout
    base: dict[str, IndexExpr]
    dims: tuple[tuple[Piece, ...], ...]
    guards: tuple[SSAValue | None, ...] | None = None
    """The view's dynamic extents (`AccessPattern.guards`); the pieces are of the maxima."""

    def is_simple(self) -> bool:
        """Every view dim walks one axis with one step (no split needed)."""
        return all(len(d) <= 1 for d in self.dims)

    def axis_of(self, k: int) -> str | None:
        """The axis view dim ``k`` walks (None for a size-1 dim); needs an unsplit dim."""
        pieces = self.dims[k]
        assert len(pieces) <= 1, "dim is split; use dims[k]"
        return pieces[0].axis if pieces else None

    def step_of(self, k: int) -> int:
        pieces = self.dims[k]
        return pieces[0].step if pieces else 0


# --- value ranges of symbolic offsets: `access.value_range` (scf.for ivs, scope ids) ---------


# --- the decomposition --------------------------------------------------------------------------



class _Digits:
    """The layout's shard as a mixed-radix number with per-digit usage (max value reached)."""

    def __init__(self, layout: TileLayout):
        self.iters = layout.shard
        self.extents = [it.extent for it in self.iters]
        self.radix = [math.prod(self.extents[j + 1:]) for j in range(len(self.extents))]
        self.usage = [0] * len(self.extents)

    def digit_for(self, coeff: int) -> int | None:
        """Outermost non-unit digit whose radix divides ``coeff`` (the smallest multiple)."""
        for j, (r, e) in enumerate(zip(self.radix, self.extents)):
            if e > 1 and coeff % r == 0:
                return j
        return None

    def fits(self, j: int, extra: int) -> bool:
        return self.usage[j] + extra < self.extents[j]


def physical_access(view: SSAValue, layout: TileLayout, *, allow_split: bool = False,
                    ranges=value_range) -> PhysicalAccess:
    """The physical access pattern of ``view`` over its root buffer laid out by ``layout``.

    Raises NotAffine when the view is not one strided (P, F) pattern: a dim crosses a layout tile
    boundary (unless ``allow_split``), a symbolic offset has no known range or could carry into
    another layout digit, or an offset is negative.
    """
    shared = shared_answers()
    if shared is None:
        return _physical_access(view, layout, allow_split, ranges)
    key = ("physical_access", view, id(layout), allow_split, ranges)  # a layout hashes deeply
    known = shared.get(key)
    if known is None or known[0] is not layout:
        known = shared[key] = (layout, _physical_access(view, layout, allow_split, ranges))
    return known[1]


def _physical_access(view: SSAValue, layout: TileLayout, allow_split: bool,
                     ranges) -> PhysicalAccess:
    ap = resolve_access(view)
    if any(o.terms for o in ap.offset):  # symbolic offsets: their value ranges come from the IR
        base, dims = _decompose(ap.flat_offset(), ap.sizes, ap.flat_steps(), layout, allow_split,
                                ranges)
        return PhysicalAccess(ap.buffer, layout, base, dims, ap.guards)
    # A static view's pattern depends on numbers only: kept with the layout (every view of
    # one shape at one offset of the buffers laid out alike is decomposed once).
    key = ("physical_access", ap.buffer_type.get_shape(), tuple(o.const for o in ap.offset),
           ap.sizes, ap.steps, allow_split)
    known = layout._cache.get(key)  # noqa: SLF001 - TileLayout's memo of derived facts
    if known is None:
        try:
            known = layout._cache[key] = _decompose(  # noqa: SLF001
                ap.flat_offset(), ap.sizes, ap.flat_steps(), layout, allow_split, ranges)
        except NotAffine as err:
            known = layout._cache[key] = err  # noqa: SLF001
    if isinstance(known, NotAffine):
        raise NotAffine(str(known))
    base, dims = known
    return PhysicalAccess(ap.buffer, layout, dict(base), dims, ap.guards)


def _decompose(flat: IndexExpr, sizes: tuple[int, ...], steps: tuple[int, ...],
               layout: TileLayout, allow_split: bool, ranges
               ) -> tuple[dict[str, IndexExpr], tuple[tuple[Piece, ...], ...]]:
    """The base coordinates and per-dim pieces of a view starting at flat index ``flat`` with
    ``sizes`` and flat ``steps`` (see the module docstring)."""
    digits = _Digits(layout)
    total = math.prod(digits.extents)
    if not 0 <= flat.const < total:
        raise NotAffine(f"the view starts at element {flat.const}, outside the buffer")
    base: dict[str, IndexExpr] = {"P": IndexExpr(), "F": IndexExpr()}
    for j, it in enumerate(digits.iters):
        d = (flat.const // digits.radix[j]) % it.extent
        digits.usage[j] = d
        base[it.axis] = base.get(it.axis, IndexExpr()) + d * it.stride
    for ax, off in layout.offset:
        base[ax] = base.get(ax, IndexExpr()) + off
    _place_symbols(flat, digits, base, ranges)
    dims: list[tuple[Piece, ...]] = []
    for k, (size, coeff) in enumerate(zip(sizes, steps)):
        dims.append(_place_view_dim(k, size, coeff, digits, allow_split))
    return base, tuple(dims)


def _place_symbols(flat: IndexExpr, digits: _Digits, base: dict[str, IndexExpr], ranges) -> None:
    for value, coeff in flat.terms:
        name = value.name_hint or "an index value"
        rng = ranges(value)
        if rng is None:
            raise NotAffine(f"offset %{name} has no known range (use an scf.for induction "
                            f"variable with constant bounds, or a scope id)")
        lo, hi = rng
        if coeff < 0 or lo < 0:
            raise NotAffine(f"offset term {coeff} * %{name} can be negative")
        j = digits.digit_for(coeff)
        if j is None:
            raise NotAffine(f"offset term {coeff} * %{name} does not align with the layout")
        b = coeff // digits.radix[j]
        if not digits.fits(j, b * hi):
            raise NotAffine(f"offset term {coeff} * %{name} (up to {coeff * hi}) crosses a "
                            f"layout tile boundary (extent {digits.extents[j]})")
        digits.usage[j] += b * hi
        it = digits.iters[j]
        base[it.axis] = base.get(it.axis, IndexExpr()) + IndexExpr(0, ((value, 1),)).scale(
            b * it.stride)


def _place_view_dim(k: int, size: int, coeff: int, digits: _Digits,
                    allow_split: bool) -> tuple[Piece, ...]:
    if size == 1:
        return ()
    pieces: list[Piece] = []
    remaining, a = size, coeff
    while True:
        j = digits.digit_for(a)
        if j is None:
            raise NotAffine(f"view dim {k} (size {size}) does not align with the layout")
        b = a // digits.radix[j]
        it = digits.iters[j]
        if digits.fits(j, b * (remaining - 1)):
            digits.usage[j] += b * (remaining - 1)
            pieces.insert(0, Piece(remaining, it.axis, b * it.stride))
            return tuple(pieces)
        m = _largest_fitting_divisor(remaining, b, digits, j) if allow_split else 1
        if m <= 1:
            raise NotAffine(f"view dim {k} (size {size}) crosses a layout tile boundary: only "
                            f"{max(1, (digits.extents[j] - digits.usage[j] - 1) // b + 1)} of "
                            f"its indices fit in the layout iterator "
                            f"{it.extent}:{it.stride}@{it.axis}")
        digits.usage[j] += b * (m - 1)
        pieces.insert(0, Piece(m, it.axis, b * it.stride))
        remaining //= m
        a *= m


def _largest_fitting_divisor(n: int, b: int, digits: _Digits, j: int) -> int:
    room = (digits.extents[j] - digits.usage[j] - 1) // b + 1
    for m in range(min(room, n), 1, -1):
        if n % m == 0:
            return m
    return 1


def root_buffer_type(view: SSAValue) -> BufferType:
    return resolve_access(view).buffer_type
