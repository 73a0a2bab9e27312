"""How a ``global`` buffer with a layout lies in device memory (HBM): one stride per dim.

A ``global`` buffer (a kernel parameter, or a global workspace) is a *logical* tensor: a kernel's
caller passes a logical array, every tile op reads and writes logical elements, and the
interpreter's results are logical arrays. Its layout says where each logical element lies in the
buffer's memory, an array of ``span`` elements::

    !tirx.buffer<128x512xf32, global, S[(128,512):(1,128)]>       column-major, span 65536
    !tirx.buffer<128x512xf32, global, S[(128,512):(640,1)]>       rows 640 apart, span 81792
    !tirx.buffer<128x512xf32, global, S[128,512] + 64>            64 elements of head padding

element ``[i0, i1, ...]`` at ``offset + i0 * s0 + i1 * s1 + ...``. A global layout must give each
logical dim one stride (several shard iterators of one dim must compose into one, as in
``S[(128,4,128):(512,128,1)]``), use only the memory axis ``m``, have no replica or swizzle,
and place no two elements at one address; `global_placement` says which rule a layout breaks.
Without a layout (or with the row-major one) the memory is the row-major array itself.

`place` writes a logical array into a memory array (the padding is left alone); `logical_view`
reads a memory array back as the logical tensor (a strided numpy view, so writes go through).
The interpreter, the backends' lowering and source printers, and the tests' stand-ins for
vendor runtimes all use these, so the meaning lives here once.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.layout import LayoutError, TileLayout, row_major_strides

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class GlobalPlacement:
    """Where a global buffer's logical elements lie in its memory of ``span`` elements."""

    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int
    span: int

    def is_row_major(self) -> bool:
        """The memory is the row-major logical array itself (no strides to apply)."""
        return self.offset == 0 and self.span == math.prod(self.shape) and all(
            n == 1 or s == r for n, s, r in zip(self.shape, self.strides,
                                                row_major_strides(self.shape)))

    def address(self, index) -> int:
        """The memory element of one logical element."""
        return self.offset + sum(int(i) * s for i, s in zip(index, self.strides))

    def formula(self, names) -> str:
        """``64 + i0 * 640 + i1`` for the dims named ``names``."""
        parts = [f"{self.offset}"] if self.offset else []
        for name, n, s in zip(names, self.shape, self.strides):
            if n != 1 and s:
                parts.append(name if s == 1 else f"{name} * {s}")
        return " + ".join(parts) or "0"

    def logical_view(self, memory: np.ndarray) -> np.ndarray:
        """The logical tensor inside ``memory`` (a 1-D array of ``span`` elements), as a view."""
        import numpy as np

        flat = memory.reshape(-1)
        if flat.size < self.span:
            raise ValueError(f"a memory of {flat.size} elements is smaller than the layout's "
                             f"span of {self.span}")
        return np.lib.stride_tricks.as_strided(
            flat[self.offset:], self.shape, [s * flat.itemsize for s in self.strides],
            writeable=flat.flags.writeable)

    def place(self, logical: np.ndarray, memory: np.ndarray) -> np.ndarray:
        """``memory`` (1-D, at least ``span`` elements) with ``logical`` written where the layout
        puts it; the other elements are left as they are (padding)."""
        self.logical_view(memory)[...] = logical
        return memory


def global_placement(btype: BufferType) -> GlobalPlacement:
    """The placement of a global buffer; LayoutError names the rule its layout breaks."""
    shape = tuple(btype.get_shape())
    layout = btype.get_layout()
    if layout is None:
        return GlobalPlacement(shape, tuple(row_major_strides(shape)), 0, math.prod(shape))
    return placement_of(layout, shape)


@functools.lru_cache(maxsize=256)
def placement_of(layout: TileLayout, shape: tuple[int, ...]) -> GlobalPlacement:
    """The placement ``layout`` gives a global buffer of ``shape`` (see the module docstring)."""
    if layout.swizzle is not None or layout.replica:
        raise LayoutError(f"global layout {layout} has a {'swizzle' if layout.swizzle else 'replica'}"
                          f"; a global buffer is one strided array (one stride per dim)")
    other = [ax for ax in layout.axes() if ax != "m"]
    if other:
        raise LayoutError(f"global layout {layout} uses axis {other[0]}; device memory has only "
                          f"the memory axis m (write bare strides, e.g. S[(128,512):(1,128)])")
    groups = layout.dim_groups(shape)
    if groups is None:
        raise LayoutError(f"global layout {layout} does not split along the dims of "
                          f"{'x'.join(map(str, shape))}")
    strides = []
    for d, group in enumerate(groups):
        iters = [it for it in group if it.extent != 1]
        for outer, inner in zip(iters, iters[1:]):
            if outer.stride != inner.stride * inner.extent:
                raise LayoutError(
                    f"global layout {layout} gives dim {d} the iterators "
                    f"{', '.join(f'{it.extent}:{it.stride}' for it in iters)}, which do not "
                    f"compose into one stride; a global buffer needs one stride per dim "
                    f"(reshape the buffer so each iterator is a dim)")
        strides.append(iters[-1].stride if iters else 0)
    offset = layout.offset_of("m")
    placement = GlobalPlacement(shape, tuple(strides), offset, layout.span("m"))
    _check_injective(placement, layout)
    return placement


EXACT_CHECK_LIMIT = 1 << 22
"""Up to this many elements, a layout whose strides do not nest is checked address by address."""


def _check_injective(placement: GlobalPlacement, layout: TileLayout) -> None:
    """No two elements at one address: the strides nest (each dim steps past everything the
    smaller-stride dims reach), or, for a small tensor, every address is distinct."""
    reach = 0
    for s, n in sorted((s, n) for n, s in zip(placement.shape, placement.strides) if n > 1):
        if s <= reach:
            break
        reach += (n - 1) * s
    else:
        return
    shape = "x".join(map(str, placement.shape))
    if math.prod(placement.shape) > EXACT_CHECK_LIMIT:
        raise LayoutError(f"global layout {layout} interleaves the dims of {shape} (each "
                          f"stride must step past the elements of the smaller-stride dims)")
    import numpy as np


    addresses = np.zeros((), np.int64)
    for n, s in zip(placement.shape, placement.strides):
        addresses = np.add.outer(addresses, np.arange(n, dtype=np.int64) * s)
    flat = np.sort(addresses.reshape(-1))
    clash = np.nonzero(flat[1:] == flat[:-1])[0]
    if clash.size:
        raise LayoutError(f"global layout {layout} puts two elements of {shape} at address "
                          f"{int(flat[clash[0]]) + placement.offset}")
