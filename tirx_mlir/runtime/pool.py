"""The caching memory pool of a device: size classes, reuse, statistics.

Every `Device` allocates through its `MemoryPool` (on by default; ``Device(caching=False)``
returns memory to the device at each free). A request is rounded up to its *size class* — a
power of two split in eight steps above 512 bytes, so no block is more than 12.5% larger
than asked — and served from the blocks of that class that earlier buffers freed (a *hit*)
before the device allocates a new one (a *miss*). So the buffers of a pipeline of kernels, or of
a kernel launched in a loop, come back to the same memory, as PyTorch's and CuPy's caching
allocators do.

When the device reports out of memory, the pool returns its cached blocks (`empty_cache`) and
tries once more before raising `OutOfMemory` with the numbers. `stats()` gives ``allocated``
(bytes of live blocks), ``requested`` (bytes the live buffers asked for), ``reserved`` (bytes the
pool holds from the device, live and cached), ``peak`` (highest ``allocated``), ``hits``,
``misses``, the device calls made, and the counts of live buffers and cached blocks.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Callable

from tirx_mlir.runtime.errors import OutOfMemory

if TYPE_CHECKING:
    from tirx_mlir.runtime.device import Device

MIN_BLOCK = 512
"""The smallest size class (bytes): also the alignment every block has at least."""


def size_class(nbytes: int) -> int:
    """The block size a request of ``nbytes`` gets: 512, then eight steps per power of two
    (600 -> 640, 1025 -> 1152, 100000 -> 106496)."""
    if nbytes <= MIN_BLOCK:
        return MIN_BLOCK
    step = (1 << (nbytes - 1).bit_length()) // 16  # an eighth of the power of two below
    return -(-nbytes // step) * step


@dataclass
class Block:
    """Memory the pool got from the device: its address and size (a size class)."""

    address: int
    size: int


@dataclass
class PoolStats:
    allocated: int = 0
    requested: int = 0
    reserved: int = 0
    peak: int = 0
    hits: int = 0
    misses: int = 0
    device_allocs: int = 0
    device_frees: int = 0
    live_buffers: int = 0
    cached_blocks: int = 0

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def __str__(self) -> str:
        return ", ".join(f"{k} {v:,}" for k, v in self.as_dict().items())


class MemoryPool:
    """The caching allocator of one device (see the module docstring)."""

    def __init__(self, device: "Device", *, caching: bool = True):
        self.device = device
        self.caching = caching
        self._free: dict[int, list[Block]] = {}
        self._stats = PoolStats()
        self._lock = threading.Lock()

    def malloc(self, nbytes: int) -> Block:
        """A block of at least ``nbytes`` (from the cache when one of its class is free)."""
        cls = size_class(nbytes)
        with self._lock:
            cached = self._free.get(cls)
            if cached:
                block = cached.pop()
                self._stats.hits += 1
                self._stats.cached_blocks -= 1
            else:
                block = self._device_alloc(cls, nbytes)
                self._stats.misses += 1
            self._account(block, nbytes, +1)
            return block

    def release(self, block: Block, nbytes: int) -> None:
        """Return a block a buffer of ``nbytes`` used (cached, or to the device)."""
        with self._lock:
            self._account(block, nbytes, -1)
            if self.caching:
                self._free.setdefault(block.size, []).append(block)
                self._stats.cached_blocks += 1
            else:
                self._device_free(block)

    def empty_cache(self) -> int:
        """Return every cached block to the device; returns the bytes released."""
        with self._lock:
            return self._empty_cache_locked()

    def stats(self) -> PoolStats:
        with self._lock:
            return PoolStats(**self._stats.as_dict())

    def reset_peak(self) -> None:
        with self._lock:
            self._stats.peak = self._stats.allocated

    # ---- internals (called with the lock held) ----
    def _account(self, block: Block, nbytes: int, sign: int) -> None:
        s = self._stats
        s.allocated += sign * block.size
        s.requested += sign * nbytes
        s.live_buffers += sign
        s.peak = max(s.peak, s.allocated)

    def _device_alloc(self, size: int, nbytes: int) -> Block:
        attempt: Callable[[], int] = lambda: self.device.raw_alloc(size)
        try:
            address = attempt()
        except OutOfMemory:
            if not self._empty_cache_locked():
                raise self._oom(nbytes) from None
            try:
                address = attempt()
            except OutOfMemory:
                raise self._oom(nbytes) from None
        self._stats.reserved += size
        self._stats.device_allocs += 1
        return Block(address, size)

    def _oom(self, nbytes: int) -> OutOfMemory:
        free, total = self.device.memory_info()
        return OutOfMemory(self.device.name, nbytes, allocated=self._stats.allocated,
                           reserved=self._stats.reserved, free=free, total=total)

    def _device_free(self, block: Block) -> None:
        self.device.raw_free(block.address)
        self._stats.reserved -= block.size
        self._stats.device_frees += 1

    def _empty_cache_locked(self) -> int:
        released = 0
        for blocks in self._free.values():
            for block in blocks:
                self._device_free(block)
                released += block.size
        self._free.clear()
        self._stats.cached_blocks = 0
        return released
