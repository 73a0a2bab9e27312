"""`Device`: allocate, free, copy and synchronize on one device, through its memory pool.

    dev = get_device("interpreter")              # or "cuda:0" where a GPU is
    a = dev.alloc(shape=(1024,), dtype="float32")  # typed; dev.alloc(4096) is raw bytes
    dev.copy_h2d(a, x); dev.copy_d2d(b, a); y = dev.copy_d2h(b)
    dev.synchronize(); dev.pool.stats()

A device kind subclasses `Device` and implements the raw layer (``raw_alloc`` / ``raw_free`` /
``raw_h2d`` / ``raw_d2h`` / ``raw_d2d``, ``memory_info``, ``synchronize``, streams where it has
them, ``load_module``); this class adds what every kind shares: the pool, typed buffers, the
checks of every handle (alive, of this device, large enough), and the lost state (after
`mark_lost`, every call raises `DeviceLost`).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from tirx_mlir.runtime.buffer import DeviceBuffer
from tirx_mlir.runtime.errors import DeviceError, DeviceLost, InvalidHandle
from tirx_mlir.runtime.pool import MemoryPool


def as_dtype(dtype: Any) -> np.dtype:
    """A numpy dtype from a numpy spelling or an MLIR one (``f32``, ``bf16``, ``i8``)."""
    if isinstance(dtype, str):
        from tirx_mlir.dialects.tirx import dtypes

        if dtype in dtypes.SUPPORTED_ELEMENT_TYPES:
            return dtypes.numpy_dtype(dtypes.element_type(dtype))
    try:
        return np.dtype(dtype)
    except TypeError:
        raise DeviceError(f"'{dtype}' is not a dtype (use a numpy dtype or an MLIR element "
                          f"type such as f32, bf16, i8)") from None


def host_array(value: Any, what: str) -> np.ndarray:
    """``value`` as a contiguous numpy array of numbers (a clear error for anything else)."""
    arr = np.ascontiguousarray(value)
    if arr.dtype.hasobject:
        raise DeviceError(f"{what}: expected a host array of numbers, got {type(value).__name__}")
    return arr


class Stream:
    """An ordered queue of work on a device. Devices without streams give one that runs each
    call when it is made (`synchronize` has nothing to wait for)."""

    def __init__(self, device: "Device", handle: Any = None):
        self.device = device
        self.handle = handle

    def synchronize(self) -> None:
        self.device.synchronize(self)

    def __repr__(self) -> str:
        return f"<Stream {self.handle!r} of {self.device.name}>"


class Device:
    """One device (see the module docstring). Use `tirx_mlir.runtime.get_device` to get one."""

    kind: ClassVar[str] = "device"
    has_streams: ClassVar[bool] = False
    target_kinds: ClassVar[tuple[str, ...]] = ()
    """Target kinds whose compiled kernels this device runs natively (the interpreter device
    runs the lowered IR of any)."""

    def __init__(self, index: int = 0, *, caching: bool = True):
        self.index = index
        self.pool = MemoryPool(self, caching=caching)
        self.lost: str | None = None
        self.default_stream = Stream(self)

    @classmethod
    def availability(cls) -> str | None:
        """None when the kind can run here, else why not (no driver, no device...)."""
        return None

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.index}"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    # ---- the lost state ----
    def mark_lost(self, reason: str) -> None:
        """Poison the device: every later call raises `DeviceLost` with ``reason``."""
        self.lost = reason

    def check_usable(self) -> None:
        if self.lost is not None:
            raise DeviceLost(f"{self.name} is lost: {self.lost}")

    # ---- memory ----
    def alloc(self, nbytes: int | None = None, *, shape: Any = None,
              dtype: Any = None) -> DeviceBuffer:
        """``alloc(nbytes)`` (raw bytes) or ``alloc(shape=..., dtype=...)`` (typed)."""
        self.check_usable()
        if (nbytes is None) == (shape is None):
            raise DeviceError("alloc takes either nbytes or shape= (with dtype=), not "
                              f"{'both' if nbytes is not None else 'neither'}")
        dt = None
        if shape is not None:
            shape = (int(shape),) if isinstance(shape, (int, np.integer)) else \
                tuple(int(n) for n in shape)
            if any(n < 0 for n in shape):
                raise DeviceError(f"alloc: shape {list(shape)} has a negative dim")
            dt = as_dtype("float32" if dtype is None else dtype)
            nbytes = math.prod(shape) * dt.itemsize
        elif dtype is not None:
            raise DeviceError("alloc: dtype= needs shape= (a raw allocation is bytes)")
        nbytes = int(nbytes)
        if nbytes < 0:
            raise DeviceError(f"alloc: {nbytes} bytes is negative")
        return DeviceBuffer(self, self.pool.malloc(nbytes), nbytes, shape, dt)

    def free(self, buf: DeviceBuffer) -> None:
        """Give ``buf`` back to the pool; freeing it again raises `DoubleFree`."""
        self.check_buffer(buf, "free", alive=False)
        buf.mark_freed()
        self.pool.release(buf.block, buf.nbytes)

    def to_device(self, host: Any, stream: Stream | None = None) -> DeviceBuffer:
        """A new typed buffer holding a copy of the host array ``host``."""
        arr = host_array(host, "copy to the device")
        return self.alloc(shape=arr.shape, dtype=arr.dtype).copy_from(arr, stream)

    def check_buffer(self, buf: Any, what: str, *, alive: bool = True) -> DeviceBuffer:
        """``buf`` is a buffer of this device (and alive unless ``alive=False``)."""
        if not isinstance(buf, DeviceBuffer):
            raise InvalidHandle(f"{what}: expected a DeviceBuffer of {self.name}, got "
                                f"{type(buf).__name__}")
        if buf.device is not self:
            raise InvalidHandle(f"{what}: {buf.describe()} belongs to another device than "
                                f"{self.name}", hint="copy it through the host, or allocate it "
                                                     "on this device")
        if alive:
            buf.check_alive(what)
        self.check_usable()
        return buf

    # ---- copies ----
    def copy_h2d(self, dst: DeviceBuffer, src: Any, *, stream: Stream | None = None) -> None:
        """Copy the host array ``src`` into ``dst`` (its bytes; a typed ``dst`` needs the same
        shape and dtype)."""
        self.check_buffer(dst, "copy to the device")
        arr = host_array(src, "copy to the device")
        if dst.typed and (arr.shape != dst.shape or arr.dtype != dst.dtype):
            raise DeviceError(f"copy to the device: the host array is {list(arr.shape)} "
                              f"{arr.dtype}, but {dst.describe()}",
                              hint="convert it first (numpy .astype / .reshape)")
        if arr.nbytes > dst.nbytes:
            raise DeviceError(f"copy to the device: {arr.nbytes:,} bytes do not fit in "
                              f"{dst.describe()}")
        self.raw_h2d(dst.block.address, arr.reshape(-1).view(np.uint8), stream)

    def copy_d2h(self, src: DeviceBuffer, out: np.ndarray | None = None, *,
                 stream: Stream | None = None) -> np.ndarray:
        """Copy ``src`` to the host: into ``out`` (contiguous, at most its size), else into a
        new array of its type (uint8 bytes for a raw buffer). Waits for the copy."""
        self.check_buffer(src, "copy to the host")
        if out is None:
            out = np.empty(src.shape, src.dtype) if src.typed else np.empty(src.nbytes, np.uint8)
        elif not out.flags.c_contiguous or not out.flags.writeable or out.nbytes > src.nbytes:
            raise DeviceError(f"copy to the host: out must be a writable contiguous array of at "
                              f"most {src.nbytes:,} bytes (got {out.nbytes:,})")
        self.raw_d2h(out.reshape(-1).view(np.uint8), src.block.address, stream)
        self.synchronize(stream)
        return out

    def copy_d2d(self, dst: DeviceBuffer, src: DeviceBuffer, *, nbytes: int | None = None,
                 stream: Stream | None = None) -> None:
        """Copy ``nbytes`` (default: all of ``src``) from ``src`` to ``dst``."""
        self.check_buffer(dst, "device copy (destination)")
        self.check_buffer(src, "device copy (source)")
        n = src.nbytes if nbytes is None else int(nbytes)
        if n > dst.nbytes or n > src.nbytes or n < 0:
            raise DeviceError(f"device copy of {n:,} bytes from {src.describe()} to "
                              f"{dst.describe()} does not fit")
        self.raw_d2d(dst.block.address, src.block.address, n, stream)

    # ---- streams ----
    def create_stream(self) -> Stream:
        """A new stream (one that runs each call at once on a device without streams)."""
        self.check_usable()
        return Stream(self)

    def synchronize(self, stream: Stream | None = None) -> None:
        """Wait for the work queued on ``stream`` (default: all of the device's)."""
        self.check_usable()

    # ---- what a device kind implements ----
    def raw_alloc(self, nbytes: int) -> int:
        """Allocate ``nbytes`` and return the address; raise `OutOfMemory` when it cannot."""
        raise NotImplementedError

    def raw_free(self, address: int) -> None:
        raise NotImplementedError

    def raw_h2d(self, address: int, data: np.ndarray, stream: Stream | None) -> None:
        """Write the uint8 array ``data`` at ``address``."""
        raise NotImplementedError

    def raw_d2h(self, out: np.ndarray, address: int, stream: Stream | None) -> None:
        """Read ``out.size`` bytes at ``address`` into the uint8 array ``out``."""
        raise NotImplementedError

    def raw_d2d(self, dst: int, src: int, nbytes: int, stream: Stream | None) -> None:
        raise NotImplementedError

    def memory_info(self) -> tuple[int | None, int | None]:
        """(free, total) bytes of the device, None where it cannot say."""
        return None, None

    def load_module(self, artifact: Any) -> Any:
        """A `Module` of this device from a compiled artifact (or what the kind accepts)."""
        raise NotImplementedError
