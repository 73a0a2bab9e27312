"""Layouts drawn: which coordinates each element of a buffer lands on (``tirx-layout``).

    from tirx_mlir.tools.layout_view import LayoutView
    view = LayoutView.of("S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)]", (16, 8))
    print(view.text())                 # a grid: one cell per element, its coordinates
    open("l.svg", "w").write(view.svg())

Each cell of the grid is one logical element ``[row, col]`` (a 1-D buffer is one row; leading
dims of a 3-D or wider one are flattened into rows) and shows its coordinates on the layout's
axes, in the order the legend gives (the first replica; the legend says how many replicas
there are). Cells are coloured by one axis (``color=``): by default the first axis other than
the memory offset ``m``, i.e. the partition, lane or warp an element lives on; a layout on ``m``
alone is coloured by shared-memory bank, so a swizzle shows as the banks' pattern.

Bank conflicts (a layout on ``m`` alone): the bank of an element is ``(m * element_bytes //
bank_bytes) % banks`` (default 32 banks of 4 bytes, as GPU shared memory has). A column is read
32 rows at a time, one element per thread; two elements of one such read in the same bank but
in different words conflict. Conflicting cells are marked (``!`` in the text, a red frame in the
SVG) and `LayoutView.conflicts` gives the worst read's ways.

The grid is cut to ``max_rows`` x ``max_cols`` cells (``...`` says what is left out); the
coordinates come from `TileLayout.apply_array`, the one mapping every stage uses.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from html import escape

import numpy as np

from tirx_mlir.dialects.tirx.layout import LayoutError, TileLayout

BANK = "bank"
"""The pseudo-axis ``color=`` takes for the shared-memory bank of axis ``m``."""

PALETTE = ["#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
           "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3", "#b2df8a",
           "#fb9a99", "#fdbf6f"]
"""Cell colours (ColorBrewer Set3 and Paired, light enough for black text), by value mod 16."""

CONFLICT_COLOR = "#d62728"
READ_ROWS = 32
"""Rows of one column read at once (one element per thread of a 32-thread warp)."""


class LayoutViewError(ValueError):
    """A layout, shape or option that cannot be drawn; the message says which."""


def parse_shape(text: str) -> tuple[int, ...]:
    """``"128x512"`` (or ``128,512``) -> ``(128, 512)``."""
    parts = [p for p in re.split(r"[x,\s]+", text.strip()) if p]
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        shape = ()
    if not shape or any(n <= 0 for n in shape):
        raise LayoutViewError(f"malformed shape '{text}'; write it like 128x512")
    return shape


def element_bytes(dtype: str) -> int:
    """Bytes of an element type named as in the IR (``f16``, ``bf16``, ``f8E4M3FN``, ``i32``)."""
    m = re.fullmatch(r"(?:f|bf|i|ui|si)(\d+)(?:E\d+M\d+\w*)?", dtype)
    if m is None:
        raise LayoutViewError(f"unknown element type '{dtype}'; give one like f16, bf16, f32, "
                              f"f8E4M3FN or i32")
    return max(1, int(m.group(1)) // 8)


@dataclass
class LayoutView:
    """A layout's coordinates for every element of a shape, with the colours and conflicts."""

    layout: TileLayout
    shape: tuple[int, ...]
    coords: dict[str, np.ndarray]
    """Axis -> coordinates, each of shape (rows, cols)."""
    color: str
    element_bytes: int = 4
    banks: int = 32
    bank_bytes: int = 4

    @classmethod
    def of(cls, layout: str | TileLayout, shape, color: str | None = None,
           element_bytes: int = 4, banks: int = 32, bank_bytes: int = 4) -> "LayoutView":
        if isinstance(shape, str):
            shape = parse_shape(shape)
        shape = tuple(int(n) for n in shape)
        try:
            parsed = TileLayout.parse(layout) if isinstance(layout, str) else layout
            parsed.verify_well_formed()
            parsed.verify_covers(shape)
        except LayoutError as err:
            raise LayoutViewError(str(err)) from None
        cols = shape[-1]
        rows = math.prod(shape) // cols
        coords = {ax: c.reshape(rows, cols) for ax, c in parsed.apply_array(shape).items()}
        axes = list(coords)
        if color is None:
            color = next((ax for ax in axes if ax != "m"), BANK if "m" in axes else axes[0])
        if color != BANK and color not in coords:
            raise LayoutViewError(f"cannot colour by '{color}': the layout's axes are "
                                  f"{', '.join(axes)} (or '{BANK}' for a layout on m)")
        if color == BANK and "m" not in coords:
            raise LayoutViewError("colour by bank needs a layout on the memory axis m")
        if banks <= 0 or bank_bytes <= 0 or element_bytes <= 0:
            raise LayoutViewError("banks, bank bytes and element bytes must be positive")
        return cls(parsed, shape, coords, color, element_bytes, banks, bank_bytes)

    # ---- what is drawn ----
    @property
    def rows(self) -> int:
        return next(iter(self.coords.values())).shape[0]

    @property
    def cols(self) -> int:
        return next(iter(self.coords.values())).shape[1]

    @property
    def axes(self) -> list[str]:
        return list(self.coords)

    def bank(self) -> np.ndarray | None:
        """The bank of every element (a layout on ``m`` alone), else None."""
        if self.axes != ["m"]:
            return None
        return (self.coords["m"] * self.element_bytes // self.bank_bytes) % self.banks

    def color_values(self) -> np.ndarray:
        if self.color == BANK:
            return (self.coords["m"] * self.element_bytes // self.bank_bytes) % self.banks
        return self.coords[self.color]

    def _bank_reads(self) -> tuple[np.ndarray, int]:
        """(cells in a conflict, ways of the worst read) over every 32-row read of a column."""
        mask = np.zeros((self.rows, self.cols), dtype=bool)
        bank = self.bank()
        if bank is None:
            return mask, 0
        word = self.coords["m"] * self.element_bytes // self.bank_bytes
        worst = 1
        for c in range(self.cols):
            for r0 in range(0, self.rows, READ_ROWS):
                banks, words = bank[r0:r0 + READ_ROWS, c], word[r0:r0 + READ_ROWS, c]
                for b in np.unique(banks):
                    hit = banks == b
                    ways = len(np.unique(words[hit]))
                    worst = max(worst, ways)
                    if ways > 1:
                        mask[r0:r0 + READ_ROWS, c] |= hit
        return mask, worst

    def conflict_mask(self) -> np.ndarray:
        """True where an element shares a bank with another word of the same column read."""
        return self._bank_reads()[0]

    def conflicts(self) -> int:
        """The ways of the worst column read (1: conflict-free; 0: no bank model applies)."""
        return self._bank_reads()[1]

    def label(self, r: int, c: int) -> str:
        return ",".join(str(int(self.coords[ax][r, c])) for ax in self.axes)

    def legend(self) -> list[str]:
        lines = [f"layout {self.layout} on {'x'.join(map(str, self.shape))}",
                 f"cell [row, col] = {','.join(self.axes)}" +
                 ("  (leading dims flattened into rows)" if len(self.shape) > 2 else "")]
        replicas = len(self.layout.replica_offsets())
        if replicas > 1:
            lines.append(f"first of {replicas} replicas (each adds "
                         f"{' + '.join(f'{it.extent}:{it}' for it in self.layout.replica)})")
        colour = (f"bank = m * {self.element_bytes} B // {self.bank_bytes} B mod {self.banks}"
                  if self.color == BANK else self.color)
        lines.append(f"colour: {colour}")
        ways = self.conflicts()
        if ways:
            lines.append("bank conflicts (a column read 32 rows at a time): " +
                         ("none" if ways == 1 else f"{ways}-way, marked !"))
        return lines

    # ---- text ----
    def text(self, max_rows: int = 16, max_cols: int = 16, ansi: bool = False) -> str:
        rows, cols = _shown(self.rows, max_rows), _shown(self.cols, max_cols)
        mask = self.conflict_mask()
        values = self.color_values()
        cells = {(r, c): self.label(r, c) + ("!" if mask[r, c] else "")
                 for r in rows if r is not None for c in cols if c is not None}
        width = max(3, *(len(v) for v in cells.values()))
        head = max(len(str(self.rows - 1)), 3)
        out = [*self.legend(), ""]
        out.append(" " * (head + 1) + " ".join(
            f"{c:>{width}}" if c is not None else f"{'...':>{width}}" for c in cols))
        for r in rows:
            if r is None:
                out.append(f"{'...':>{head}}")
                continue
            parts = []
            for c in cols:
                if c is None:
                    parts.append(f"{'...':>{width}}")
                    continue
                cell = f"{cells[r, c]:>{width}}"
                if ansi:
                    cell = f"\x1b[48;5;{_ansi_color(int(values[r, c]))}m\x1b[30m{cell}\x1b[0m"
                parts.append(cell)
            out.append(f"{r:>{head}} " + " ".join(parts))
        return "\n".join(out) + "\n"

    # ---- svg ----
    def svg(self, max_rows: int = 32, max_cols: int = 32) -> str:
        rows, cols = _shown(self.rows, max_rows), _shown(self.cols, max_cols)
        mask = self.conflict_mask()
        values = self.color_values()
        labels = [self.label(r, c) for r in rows if r is not None for c in cols if c is not None]
        cw = max(28, 7 * max(len(s) for s in labels) + 8)
        ch, left = 20, 40
        legend = self.legend()
        top = 16 * len(legend) + 30
        width = left + cw * len(cols) + 10
        height = top + ch * len(rows) + 10
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
               f'font-family="monospace" font-size="11">',
               f'<rect width="{width}" height="{height}" fill="white"/>']
        for i, line in enumerate(legend):
            out.append(f'<text x="4" y="{16 * (i + 1)}" font-size="12">{escape(line)}</text>')
        for j, c in enumerate(cols):
            x = left + j * cw + cw / 2
            out.append(f'<text x="{x:g}" y="{top - 6}" text-anchor="middle">'
                       f'{"..." if c is None else c}</text>')
        for i, r in enumerate(rows):
            y = top + i * ch
            out.append(f'<text x="{left - 4}" y="{y + 14}" text-anchor="end">'
                       f'{"..." if r is None else r}</text>')
            if r is None:
                continue
            for j, c in enumerate(cols):
                x = left + j * cw
                if c is None:
                    out.append(f'<text x="{x + cw / 2:g}" y="{y + 14}" '
                               f'text-anchor="middle">...</text>')
                    continue
                fill = PALETTE[int(values[r, c]) % len(PALETTE)]
                stroke = (f'stroke="{CONFLICT_COLOR}" stroke-width="2.5"' if mask[r, c]
                          else 'stroke="#555" stroke-width="0.5"')
                out.append(f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{fill}" '
                           f'{stroke}><title>[{r}, {c}] {escape(self._title(r, c))}</title>'
                           f'</rect>')
                out.append(f'<text x="{x + cw / 2:g}" y="{y + 14}" text-anchor="middle">'
                           f'{escape(self.label(r, c))}</text>')
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def _title(self, r: int, c: int) -> str:
        parts = [f"{ax}={int(self.coords[ax][r, c])}" for ax in self.axes]
        bank = self.bank()
        if bank is not None:
            parts.append(f"bank={int(bank[r, c])}")
        return " ".join(parts)


def _shown(n: int, limit: int) -> list[int | None]:
    """The indices drawn of ``n``: all when ``n <= limit``, else the first ``limit - 1``, a gap
    (None) and the last."""
    if limit <= 0 or n <= limit:
        return list(range(n))
    return [*range(max(limit - 1, 1)), None, n - 1]


def _ansi_color(value: int) -> int:
    """A light xterm-256 colour per value (cycling through 16)."""
    light = [159, 229, 189, 217, 153, 223, 193, 225, 252, 183, 194, 228, 152, 157, 210, 222]
    return light[value % len(light)]
