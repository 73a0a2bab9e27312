"""The physical shape of the memory behind a scope, as the allocator and the memory model see it.

A `MemorySpace` describes one backend memory (a Trainium SBUF, CUDA shared or tensor memory):
``rows`` rows of ``bytes_per_row`` bytes each. Memories with several rows (partitions, lanes) are
read one row per lane: a buffer spans rows with its dim 0 and lays its other dims out row-major
inside each row; in a one-row memory the whole buffer lies in the row. Every allocation has one
address, its byte offset inside each row, recorded on its ``tirx.alloc`` as the integer attribute
``address_attr``.

Placement rules (`tirx_mlir.transforms.allocate`):

* addresses are multiples of ``alignment``, and sizes are rounded up to it;
* with a ``granule`` (a PSUM bank), a buffer occupies whole granules, starting at a granule
  boundary;
* the last ``reserve`` bytes of each row are never allocated (kept for the runtime).

A backend builds these from its target's limits; nothing here is specific to one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType


@dataclass(frozen=True)
class MemorySpace:
    scope: str
    rows: int
    bytes_per_row: int
    address_attr: str
    alignment: int = 1
    reserve: int = 0
    granule: int = 0
    row_name: str = "row"
    """What diagnostics call a row ("partition", "lane")."""
    footprint_attr: str | None = None
    """Kernel attribute the allocator records the bytes per row in use under (None: none)."""
    source: str = ""
    """Where the figures come from, for diagnostics (e.g. "target 'aws/trn1/trn1.2xlarge'")."""

    def __post_init__(self) -> None:
        if self.rows < 1 or self.alignment < 1 or self.granule < 0:
            raise ValueError(f"memory space {self.scope}: rows and alignment must be positive "
                             f"and granule non-negative")
        if not 0 <= self.reserve <= self.bytes_per_row:
            raise ValueError(f"memory space {self.scope}: the reserve ({self.reserve}) must lie "
                             f"within a row ({self.bytes_per_row} bytes)")

    @property
    def capacity(self) -> int:
        """Bytes per row the allocator may place buffers in."""
        return self.bytes_per_row - self.reserve

    @property
    def unit(self) -> int:
        """Every address and allocated size is a multiple of this."""
        return math.lcm(self.alignment, self.granule or 1)

    def rows_of(self, btype: BufferType) -> int:
        """Rows a buffer spans: its dim 0 in a memory of several rows, else 1."""
        shape = btype.get_shape()
        return shape[0] if self.rows > 1 and shape else 1

    def row_bytes(self, btype: BufferType) -> int:
        """Bytes a buffer takes in each row it spans."""
        shape = btype.get_shape()
        per_row = shape[1:] if self.rows > 1 else shape
        return math.prod(per_row) * dtypes.itemsize(btype.element_type)

    def allocated_bytes(self, btype: BufferType) -> int:
        """`row_bytes` rounded up to the allocation unit."""
        return round_up(self.row_bytes(btype), self.unit)

    def per_row(self) -> str:
        """" per partition" (or the memory's row name); "" for a one-row memory."""
        return f" per {self.row_name}" if self.rows > 1 else ""


def round_up(n: int, unit: int) -> int:
    return -(-n // unit) * unit
