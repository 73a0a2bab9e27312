"""`DeviceBuffer`: a handle to device memory, typed (shape + dtype) or raw (bytes only).

A buffer knows its device, its address on that device, its size and, when allocated with a
shape and dtype, its type. Every use checks that it is still alive: a buffer used after `free`
raises `UseAfterFree` naming where it was freed, and a second free raises `DoubleFree` — even
when the pool has since handed its memory to another buffer, because the handle, not the
memory, carries the state.

    buf = device.alloc(shape=(128, 512), dtype="float32")
    buf.copy_from(x)            # host -> device
    y = buf.numpy()             # device -> host
    buf.free()                  # back to the device's pool
"""

from __future__ import annotations

import math
import traceback
from typing import TYPE_CHECKING, Any

import numpy as np

from tirx_mlir.runtime.errors import DoubleFree, UseAfterFree

if TYPE_CHECKING:
    from tirx_mlir.runtime.device import Device
    from tirx_mlir.runtime.pool import Block


def _caller_outside_runtime() -> str:
    """``file:line`` of the nearest caller outside tirx_mlir/runtime (where a free happened)."""
    for frame in reversed(traceback.extract_stack()[:-1]):
        if "/tirx_mlir/runtime/" not in frame.filename.replace("\\", "/"):
            return f"{frame.filename}:{frame.lineno}"
    return "<unknown>"


class DeviceBuffer:
    """Memory on a device; made by `Device.alloc`, never directly."""

    def __init__(self, device: "Device", block: "Block", nbytes: int,
                 shape: tuple[int, ...] | None = None, dtype: np.dtype | None = None):
        self.device = device
        self.block = block
        self.nbytes = nbytes
        self.shape = shape
        self.dtype = dtype
        self.freed_at: str | None = None

    # ---- state ----
    @property
    def alive(self) -> bool:
        return self.freed_at is None

    @property
    def address(self) -> int:
        """The device address (checked: a freed buffer has none)."""
        self.check_alive("use")
        return self.block.address

    @property
    def typed(self) -> bool:
        return self.shape is not None

    @property
    def size(self) -> int:
        """Elements (typed buffers), else bytes."""
        return math.prod(self.shape) if self.shape is not None else self.nbytes

    def check_alive(self, what: str = "use") -> None:
        if self.freed_at is not None:
            raise UseAfterFree(f"{what} of {self.describe()} after it was freed (at "
                               f"{self.freed_at})")

    def mark_freed(self) -> None:
        if self.freed_at is not None:
            raise DoubleFree(f"double free of {self.describe()}: it was freed at "
                             f"{self.freed_at}")
        self.freed_at = _caller_outside_runtime()

    def describe(self) -> str:
        what = f"{list(self.shape)} {self.dtype}" if self.shape is not None else \
            f"{self.nbytes:,} bytes"
        return f"buffer {hex(self.block.address)} ({what}) on {self.device.name}"

    # ---- conveniences over the device's copies ----
    def copy_from(self, host: Any, stream: Any = None) -> "DeviceBuffer":
        """Host -> device (`Device.copy_h2d`); returns the buffer."""
        self.device.copy_h2d(self, host, stream=stream)
        return self

    def numpy(self, stream: Any = None) -> np.ndarray:
        """Device -> host: a new numpy array of the buffer's type (bytes when raw)."""
        return self.device.copy_d2h(self, stream=stream)

    def free(self) -> None:
        self.device.free(self)

    def __repr__(self) -> str:
        state = "" if self.alive else f", freed at {self.freed_at}"
        return f"<DeviceBuffer {self.describe()}{state}>"
