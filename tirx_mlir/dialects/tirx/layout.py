"""TileLayout: TIRx's explicit layout algebra (shard + replica + offset, optional swizzle).

A layout maps a logical index of a buffer to a *set* of coordinates on named axes
(apache/tvm `python/tvm/tirx/layout.py`, `docs/tirx/layout.rst`):

    L(x) = { D(x) + r + O  |  r in R }

* ``D`` (the shard) is a list of strided iterators ``extent:stride@axis``. The logical index is
  flattened row-major against the buffer shape, split mixed-radix over the shard extents
  (innermost last), and each digit ``c_k`` adds ``c_k * stride_k`` to its axis.
* ``R`` (the replica) is a list of iterators whose every combination is added: one logical element
  lives at several coordinates (e.g. replicated across lanes).
* ``O`` adds a constant per axis.
* A swizzle ``(M, B, S)`` composes an XOR swizzle on the memory axis ``m``:
  ``addr = f(m >> M) * 2^M + (m mod 2^M)`` with ``f(x) = x ^ ((x & ((2^B - 1) << S)) >> S)``.

The text form is TIRx's spec DSL: ``S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)] + R[2:4@warpid]
+ 5@warpid``; ``S[128,512]`` is row-major on ``m``; a bare stride means axis ``m``; a swizzle is
written ``swizzle(3,3,3) S[8,64]``.

This module is pure Python and numpy: the dialect attribute, the interpreter and the backends'
layout lowering all call it, so each rule lives here once.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Sequence

from tirx_mlir import registry

if TYPE_CHECKING:
    import numpy as np


# --- axes ---------------------------------------------------------------------------------------

MEMORY_AXES: dict[str, str] = {
    "m": "default memory axis (element offset)",
}
THREAD_AXES: dict[str, tuple[str, str]] = {
    # axis: (scope, subscope)
    "bx": ("kernel", "cta"), "by": ("kernel", "cta"), "bz": ("kernel", "cta"),
    "cbx": ("cluster", "cta"), "cby": ("cluster", "cta"), "cbz": ("cluster", "cta"),
    "tx": ("cta", "thread"),
    "warpid": ("cta", "warp"),
    "laneid": ("warp", "thread"),
    "wgid": ("cta", "warpgroup"),
    "tid_in_wg": ("warpgroup", "thread"),
    "wid_in_wg": ("warpgroup", "warp"),
}
"""The core's axes; a backend adds its own (its memories' axes) with
`tirx_mlir.registry.register_layout_axis` from its ``register_backend()``."""


def known_axes() -> list[str]:
    return [*MEMORY_AXES, *THREAD_AXES, *registry.layout_axes.keys()]


def is_memory_axis(axis: str) -> bool:
    return axis in MEMORY_AXES or registry.layout_axes.get(axis) == "memory"


def _unknown_axis(axis: str) -> str:
    from tirx_mlir.backends import missing_backend_hint

    return f"unknown layout axis '{axis}'; known axes: {', '.join(known_axes())}" \
        f"{missing_backend_hint('layout axes', axis)}"


class LayoutError(ValueError):
    """A malformed layout, or one that does not fit the buffer it describes."""


# --- the layout value ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Iter:
    """One strided access ``extent:stride@axis``."""

    extent: int
    stride: int
    axis: str = "m"

    def __str__(self) -> str:
        return f"{self.stride}" if self.axis == "m" else f"{self.stride}@{self.axis}"


@dataclass(frozen=True)
class Swizzle:
    """XOR swizzle ``(per_element M, swizzle_len B, atom_len S)`` applied to axis ``m``."""

    per_element: int
    swizzle_len: int
    atom_len: int

    def apply(self, m: np.ndarray | int) -> np.ndarray | int:
        low_mask = (1 << self.per_element) - 1
        x = m >> self.per_element
        x = x ^ ((x & (((1 << self.swizzle_len) - 1) << self.atom_len)) >> self.atom_len)
        return (x << self.per_element) | (m & low_mask)


@dataclass(frozen=True)
class TileLayout:
    shard: tuple[Iter, ...]
    replica: tuple[Iter, ...] = ()
    offset: tuple[tuple[str, int], ...] = ()
    swizzle: Swizzle | None = None
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __hash__(self) -> int:
        """The dataclass's hash (of the four fields), computed once per layout and kept beside
        the fields, where ``dataclasses.replace`` does not copy it: a layout keys the
        dispatch caches (partitions, holders, register slots), and hashing its iterators
        again at every look-up cost ~3 us."""
        found = self.__dict__.get("_hash")
        if found is None:
            found = self.__dict__["_hash"] = hash((self.shard, self.replica, self.offset,
                                                   self.swizzle))
        return found

    def __getstate__(self) -> dict:
        """The instance's fields for pickle and ``copy`` without the kept hash (a string's hash
        differs between processes)."""
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state

    # ---- construction ----
    @staticmethod
    def row_major(shape: Sequence[int], axis: str = "m") -> "TileLayout":
        strides = row_major_strides(shape)
        return TileLayout(tuple(Iter(e, s, axis) for e, s in zip(shape, strides)))

    @staticmethod
    def parse(text: str) -> "TileLayout":
        return _LayoutTextParser(text).parse()

    # ---- queries ----
    def size(self) -> int:
        """Number of logical elements the shard covers."""
        return math.prod(it.extent for it in self.shard)

    def axes(self) -> list[str]:
        seen: list[str] = []
        for it in (*self.shard, *self.replica):
            if it.axis not in seen:
                seen.append(it.axis)
        for ax, _ in self.offset:
            if ax not in seen:
                seen.append(ax)
        return seen

    def offset_of(self, axis: str) -> int:
        return dict(self.offset).get(axis, 0)

    def span(self, axis: str) -> int:
        """Extent of the coordinates used on ``axis`` (max coordinate + 1)."""
        hi = self.offset_of(axis)
        for it in (*self.shard, *self.replica):
            if it.axis == axis:
                hi += (it.extent - 1) * it.stride
        if self.swizzle is not None and axis == "m":
            hi = max(hi, int(self.swizzle.apply(hi)))
        return hi + 1

    def is_trivial_row_major(self, shape: Sequence[int]) -> bool:
        return (not self.replica and not self.offset and self.swizzle is None
                and self == TileLayout.row_major(shape))

    def uses_axes(self, names: Iterable[str]) -> bool:
        names = set(names)
        return any(ax in names for ax in self.axes())

    def pads_dim0(self, shape: Sequence[int]) -> bool:
        """The shard is the layout of ``shape`` with dim 0 rounded up to whole steps of the
        outermost iterator (``S[(3,4,8):(32,8,1)]`` for a ``10x8`` buffer: dim 0 tiled by 4
        rows, the last tile partial). Element ``i`` still lands where it would in the larger tensor;
        the padding rows are never addressed. Only the outermost iterator's last step may be
        partial (and not empty)."""
        if not shape or not self.shard:
            return False
        numel, size = math.prod(shape), self.size()
        inner = math.prod(shape[1:])
        step = size // self.shard[0].extent
        return inner > 0 and size % inner == 0 and size - step < numel < size

    def verify_covers(self, shape: Sequence[int]) -> None:
        """Raises LayoutError unless the shard covers exactly ``prod(shape)`` elements, or pads
        dim 0 (`pads_dim0`)."""
        numel = math.prod(shape)
        if self.size() != numel and not self.pads_dim0(shape):
            extents = "x".join(str(it.extent) for it in self.shard)
            raise LayoutError(
                f"layout {self} covers {self.size()} elements ({extents}) but the buffer "
                f"{'x'.join(map(str, shape))} has {numel}; make the shard extents multiply to "
                f"the buffer's element count")

    def verify_well_formed(self) -> None:
        for it in (*self.shard, *self.replica):
            if it.extent <= 0:
                raise LayoutError(f"layout iterator {it.extent}:{it} has a non-positive extent")
            if it.stride < 0:
                raise LayoutError(f"layout iterator {it.extent}:{it} has a negative stride")
        known = set(known_axes())
        for ax in self.axes():
            if ax not in known:
                raise LayoutError(_unknown_axis(ax))
        if self.swizzle is not None and self.swizzle.atom_len < self.swizzle.swizzle_len:
            raise LayoutError(
                f"swizzle({self.swizzle.per_element},{self.swizzle.swizzle_len},"
                f"{self.swizzle.atom_len}) needs atom_len >= swizzle_len")

    # ---- mapping ----
    def apply(self, index: Sequence[int], shape: Sequence[int]) -> dict[str, int]:
        """Coordinates of one logical element (the first replica)."""
        flat = 0
        for i, n in zip(index, shape):
            flat = flat * n + int(i)
        coords = {ax: 0 for ax in self.axes()}
        for it in reversed(self.shard):
            flat, digit = divmod(flat, it.extent)
            coords[it.axis] += digit * it.stride
        for ax, off in self.offset:
            coords[ax] += off
        if self.swizzle is not None and "m" in coords:
            coords["m"] = int(self.swizzle.apply(coords["m"]))
        return coords

    def apply_array(self, shape: Sequence[int]) -> dict[str, np.ndarray]:
        """Coordinates of every logical element (first replica), one int64 array per axis."""
        import numpy as np

        key = ("apply_array", tuple(shape))
        if key in self._cache:
            return self._cache[key]
        flat = np.arange(math.prod(shape), dtype=np.int64)
        coords = {ax: np.zeros_like(flat) for ax in self.axes()}
        for it in reversed(self.shard):
            flat, digit = np.divmod(flat, it.extent)
            coords[it.axis] += digit * it.stride
        for ax, off in self.offset:
            coords[ax] += off
        if self.swizzle is not None and "m" in coords:
            coords["m"] = self.swizzle.apply(coords["m"])
        out = {ax: c.reshape(tuple(shape)) for ax, c in coords.items()}
        self._cache[key] = out
        return out

    def replica_offsets(self) -> list[dict[str, int]]:
        """Every replica combination as a per-axis additive offset."""
        combos: list[dict[str, int]] = [{}]
        for it in self.replica:
            combos = [{**c, it.axis: c.get(it.axis, 0) + k * it.stride}
                      for c in combos for k in range(it.extent)]
        return combos

    def dim_groups(self, shape: Sequence[int]) -> list[list[Iter]] | None:
        """Split the shard into one group of consecutive iterators per buffer dim.

        Returns None when the shard extents do not factor along the buffer dims (TIRx's
        ``group(shape)``). A dim of extent 1 gets an empty group.
        """
        groups: list[list[Iter]] = []
        iters = list(self.shard)
        pos = 0
        for n in shape:
            group: list[Iter] = []
            prod = 1
            while prod < n and pos < len(iters):
                group.append(iters[pos])
                prod *= iters[pos].extent
                pos += 1
            while prod == n and pos < len(iters) and iters[pos].extent == 1 and n != 1:
                pos += 1
            if prod != n:
                return None
            groups.append(group)
        if any(it.extent != 1 for it in iters[pos:]):
            return None
        return groups

    # ---- text ----
    def __str__(self) -> str:
        parts: list[str] = []
        prefix = ""
        if self.swizzle is not None:
            sw = self.swizzle
            prefix = f"swizzle({sw.per_element},{sw.swizzle_len},{sw.atom_len}) "
        shape = [it.extent for it in self.shard]
        if self.shard and all(it.axis == "m" for it in self.shard) and \
                [it.stride for it in self.shard] == row_major_strides(shape):
            parts.append("S[" + ",".join(map(str, shape)) + "]")
        else:
            parts.append(_iters_text("S", self.shard))
        if self.replica:
            parts.append(_iters_text("R", self.replica))
        for ax, off in self.offset:
            parts.append(f"{off}" if ax == "m" else f"{off}@{ax}")
        return prefix + " + ".join(parts)


def _iters_text(kind: str, iters: Sequence[Iter]) -> str:
    if len(iters) == 1:
        return f"{kind}[{iters[0].extent}:{iters[0]}]"
    extents = ",".join(str(it.extent) for it in iters)
    strides = ",".join(str(it) for it in iters)
    return f"{kind}[({extents}):({strides})]"


def layout_from_text(text: str, shape: Sequence[int], scope: str,
                     element_type: object = None) -> "TileLayout":
    """A layout as written in a buffer type: the spec DSL (`TileLayout.parse`), or a quoted
    shorthand (``"PF"``) that the memory scope's backend expands for the buffer's shape
    (`registry.register_layout_shorthand`); the buffer type then holds, and prints, the full
    layout. Raises LayoutError."""
    stripped = text.strip()
    if not (len(stripped) >= 2 and stripped[0] == stripped[-1] == '"'):
        return TileLayout.parse(text)
    expand = registry.layout_shorthands.get(scope)
    if expand is None:
        scopes = ", ".join(sorted(registry.layout_shorthands.keys())) or "none"
        raise LayoutError(f"memory scope {scope} has no layout shorthands (scopes with "
                          f"shorthands: {scopes}); write the layout, e.g. S[(4,8):(8,1)]")
    return expand()(stripped[1:-1], tuple(shape), element_type)


def row_major_strides(shape: Sequence[int]) -> list[int]:
    """Element strides of a row-major array of ``shape`` (``[4, 8]`` -> ``[8, 1]``)."""
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= n
    return list(reversed(strides))


# --- parsing the spec DSL -----------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:(?P<int>-?\d+)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)|(?P<p>[\[\]():,@+]))")


class _LayoutTextParser:
    """Recursive-descent parser for the spec DSL (used by Python callers and the attribute)."""

    def __init__(self, text: str):
        self.text = text
        self.toks: list[tuple[str, str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                raise LayoutError(f"unexpected character {text[pos:].strip()[0]!r} in layout "
                                  f"'{text}' at offset {pos}")
            kind = m.lastgroup or "p"
            self.toks.append((kind, m.group(kind), m.start(kind)))
            pos = m.end()
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i][1] if self.i < len(self.toks) else None

    def take(self, expected: str | None = None, kind: str | None = None) -> str:
        if self.i >= len(self.toks):
            raise LayoutError(f"layout '{self.text}' ends early; expected "
                              f"{expected or kind or 'more input'}")
        k, v, off = self.toks[self.i]
        if (expected is not None and v != expected) or (kind is not None and k != kind):
            raise LayoutError(f"expected {expected or kind} in layout '{self.text}' at offset "
                              f"{off}, found '{v}'")
        self.i += 1
        return v

    def integer(self) -> int:
        return int(self.take(kind="int"))

    def parse(self) -> TileLayout:
        swizzle = None
        if self.peek() == "swizzle":
            self.take("swizzle")
            self.take("(")
            m = self.integer(); self.take(","); b = self.integer(); self.take(","); s = self.integer()
            self.take(")")
            swizzle = Swizzle(m, b, s)
        shard: tuple[Iter, ...] | None = None
        replica: list[Iter] = []
        offset: dict[str, int] = {}
        while True:
            tok = self.peek()
            if tok == "S":
                if shard is not None:
                    raise LayoutError(f"layout '{self.text}' has two shards (S[...])")
                shard = self.iters("S", allow_shape=True)
            elif tok == "R":
                replica.extend(self.iters("R", allow_shape=False))
            elif tok is not None and re.fullmatch(r"-?\d+", tok):
                value = self.integer()
                axis = self.axis_suffix()
                offset[axis] = offset.get(axis, 0) + value
            else:
                raise LayoutError(f"expected S[...], R[...] or an offset k@axis in layout "
                                  f"'{self.text}', found {tok!r}")
            if self.peek() != "+":
                break
            self.take("+")
        if self.i != len(self.toks):
            raise LayoutError(f"unexpected '{self.peek()}' at the end of layout '{self.text}'")
        if shard is None:
            raise LayoutError(f"layout '{self.text}' has no shard S[...]")
        layout = TileLayout(shard, tuple(replica), tuple(offset.items()), swizzle)
        layout.verify_well_formed()
        return layout

    def axis_suffix(self) -> str:
        if self.peek() == "@":
            self.take("@")
            return self.take(kind="id")
        return "m"

    def iters(self, kind: str, allow_shape: bool) -> tuple[Iter, ...]:
        self.take(kind)
        self.take("[")
        if self.peek() == "(":
            self.take("(")
            extents = [self.integer()]
            while self.peek() == ",":
                self.take(","); extents.append(self.integer())
            self.take(")"); self.take(":"); self.take("(")
            strides = [self.stride()]
            while self.peek() == ",":
                self.take(","); strides.append(self.stride())
            self.take(")")
            if len(extents) != len(strides):
                raise LayoutError(f"layout '{self.text}': {len(extents)} extents but "
                                  f"{len(strides)} strides in {kind}[...]")
            result = tuple(Iter(e, s, a) for e, (s, a) in zip(extents, strides))
        else:
            first = self.integer()
            if self.peek() == ":":
                self.take(":")
                s, a = self.stride()
                result = (Iter(first, s, a),)
            else:
                if not allow_shape:
                    raise LayoutError(f"layout '{self.text}': {kind}[...] needs extent:stride")
                shape = [first]
                while self.peek() == ",":
                    self.take(","); shape.append(self.integer())
                result = TileLayout.row_major(shape).shard
        self.take("]")
        return result

    def stride(self) -> tuple[int, str]:
        value = self.integer()
        return value, self.axis_suffix()
