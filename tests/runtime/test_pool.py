"""The caching memory pool: size classes, reuse across launches, statistics, errors."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.runtime.errors import DoubleFree, OutOfMemory, UseAfterFree
from tirx_mlir.runtime.interpreter_device import InterpreterDevice
from tirx_mlir.runtime.pool import MIN_BLOCK, size_class


@pytest.mark.parametrize("n, cls", [(0, 512), (1, 512), (512, 512), (513, 576), (600, 640),
                                    (1024, 1024), (1025, 1152), (100_000, 106_496),
                                    (1 << 30, 1 << 30), ((1 << 30) + 1, (1 << 30) + (1 << 27))])
def test_size_classes(n, cls):
    assert size_class(n) == cls


def test_size_classes_waste_at_most_an_eighth():
    for n in range(MIN_BLOCK + 1, 70_000, 37):
        assert n <= size_class(n) <= n * 9 / 8 + 1


def test_a_pipeline_of_three_kernels_reuses_one_allocation(device, pipeline_module):
    x = np.arange(1024, dtype=np.float32)
    current = device.to_device(x)
    for name in ("add_one", "double", "sub_three"):
        out = device.alloc(shape=(1024,), dtype=np.float32)
        pipeline_module.get_function(name).launch_default([current, out])
        device.free(current)
        current = out
    np.testing.assert_array_equal(current.numpy(), (x + 1) * 2 - 3)
    stats = device.pool.stats()
    # the input and the first output are new; every later buffer reuses a freed one
    assert (stats.misses, stats.hits, stats.device_allocs) == (2, 2, 2)
    assert stats.live_buffers == 1 and stats.allocated == 4096 and stats.peak == 8192
    assert stats.reserved == 8192


def test_stats_count_requested_and_class_bytes(device):
    a = device.alloc(600)
    stats = device.pool.stats()
    assert (stats.requested, stats.allocated, stats.reserved) == (600, 640, 640)
    a.free()
    b = device.alloc(630)  # the same class: a hit on a's block
    assert b.block is a.block and device.pool.stats().hits == 1
    assert device.pool.stats().cached_blocks == 0


def test_empty_cache_returns_blocks_to_the_device(device):
    bufs = [device.alloc(4096) for _ in range(3)]
    for b in bufs:
        b.free()
    assert device.pool.stats().reserved == 3 * 4096
    assert device.pool.empty_cache() == 3 * 4096
    stats = device.pool.stats()
    assert (stats.reserved, stats.cached_blocks, stats.device_frees) == (0, 0, 3)
    assert device.memory_info()[0] == device.capacity


def test_without_caching_every_free_goes_to_the_device():
    dev = InterpreterDevice(caching=False)
    dev.alloc(4096).free()
    dev.alloc(4096).free()
    stats = dev.pool.stats()
    assert (stats.hits, stats.misses, stats.device_frees, stats.reserved) == (0, 2, 2, 0)


def test_double_free_is_an_error_naming_where_it_was_freed(device):
    buf = device.alloc(shape=(16,), dtype="f32")
    buf.free()
    with pytest.raises(DoubleFree, match=r"double free of buffer 0x[0-9a-f]+ \(\[16\] float32\)"
                                         r".*freed at .*test_pool.py:\d+"):
        device.free(buf)
    assert device.pool.stats().cached_blocks == 1  # the second free changed nothing


def test_use_after_free_is_an_error_even_when_the_memory_was_reused(device):
    old = device.alloc(shape=(16,), dtype="f32")
    old.free()
    new = device.alloc(shape=(16,), dtype="f32")
    assert new.block is old.block
    with pytest.raises(UseAfterFree, match="copy to the host of buffer .* after it was freed"):
        device.copy_d2h(old)
    with pytest.raises(UseAfterFree):
        device.copy_h2d(old, np.zeros(16, np.float32))
    with pytest.raises(UseAfterFree):
        old.address  # noqa: B018
    new.free()  # the live handle is unaffected


def test_out_of_memory_says_the_numbers():
    dev = InterpreterDevice(capacity=1 << 20)
    keep = dev.alloc(600 << 10)
    with pytest.raises(OutOfMemory) as info:
        dev.alloc(512 << 10)
    err = info.value
    assert (err.requested, err.allocated, err.total) == (512 << 10, 640 << 10, 1 << 20)
    text = str(err)
    assert "out of memory allocating 512 KiB (524,288 bytes)" in text
    assert "640 KiB (655,360 bytes) allocated" in text and "free of 1 MiB" in text
    assert err.code == "out-of-memory" and "empty_cache" in err.hint
    keep.free()


def test_out_of_memory_first_returns_the_cache_and_retries():
    dev = InterpreterDevice(capacity=1 << 20)
    dev.alloc(600 << 10).free()  # cached, reserved
    buf = dev.alloc(700 << 10)  # another class: fits only once the cache is emptied
    stats = dev.pool.stats()
    assert stats.device_frees == 1 and stats.live_buffers == 1
    buf.free()
