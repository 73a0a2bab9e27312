"""The Device API on the interpreter device: allocation, copies, streams, handle checks, the
lost state."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tirx_mlir.runtime.errors import DeviceError, DeviceLost, InvalidHandle
from tirx_mlir.runtime.interpreter_device import InterpreterDevice


def test_alloc_by_bytes_or_by_shape_and_dtype(device):
    raw = device.alloc(1000)
    assert (raw.nbytes, raw.typed, raw.shape) == (1000, False, None)
    typed = device.alloc(shape=(4, 8), dtype="bf16")
    assert typed.dtype == np.dtype(ml_dtypes.bfloat16) and typed.nbytes == 64
    assert device.alloc(shape=7, dtype=np.int32).shape == (7,)
    assert raw.address != typed.address and raw.address % 256 == 0


@pytest.mark.parametrize("call, message", [
    (lambda d: d.alloc(), "either nbytes or shape"),
    (lambda d: d.alloc(8, shape=(2,)), "not both"),
    (lambda d: d.alloc(8, dtype="f32"), "dtype= needs shape="),
    (lambda d: d.alloc(shape=(2, -1)), "negative dim"),
    (lambda d: d.alloc(shape=(2,), dtype="notatype"), "'notatype' is not a dtype"),
])
def test_bad_allocations_say_what_is_wrong(device, call, message):
    with pytest.raises(DeviceError, match=message):
        call(device)


def test_copies_round_trip(device):
    x = np.random.default_rng(0).standard_normal((32, 16)).astype(np.float32)
    a = device.to_device(x)
    b = device.alloc(shape=x.shape, dtype=x.dtype)
    device.copy_d2d(b, a)
    np.testing.assert_array_equal(device.copy_d2h(b), x)
    out = np.empty_like(x)
    assert device.copy_d2h(a, out) is out
    np.testing.assert_array_equal(out, x)
    raw = device.alloc(x.nbytes)
    device.copy_h2d(raw, x)  # a raw buffer takes any bytes that fit
    np.testing.assert_array_equal(raw.numpy().view(np.float32).reshape(x.shape), x)


def test_fresh_device_memory_reads_as_nan(device):
    assert np.isnan(device.alloc(shape=(8,), dtype="f32").numpy()).all()
    assert (device.alloc(shape=(8,), dtype="i32").numpy() == -1).all()


def test_copies_are_checked(device):
    a = device.alloc(shape=(4,), dtype="f32")
    with pytest.raises(DeviceError, match=r"the host array is \[5\] float32, but buffer"):
        device.copy_h2d(a, np.zeros(5, np.float32))
    with pytest.raises(DeviceError, match="16 bytes do not fit"):
        device.copy_h2d(device.alloc(8), np.zeros(4, np.float32))
    with pytest.raises(DeviceError, match="does not fit"):
        device.copy_d2d(device.alloc(8), a)
    with pytest.raises(DeviceError, match="writable contiguous array of at most 16 bytes"):
        device.copy_d2h(a, np.empty(8, np.float32))
    with pytest.raises(DeviceError, match="expected a host array of numbers, got DeviceBuffer"):
        device.to_device(a)


def test_handles_of_another_device_or_not_buffers_are_invalid(device):
    other = InterpreterDevice()
    theirs = other.alloc(64)
    with pytest.raises(InvalidHandle, match="belongs to another device than interpreter:0"):
        device.copy_d2h(theirs)
    with pytest.raises(InvalidHandle, match="expected a DeviceBuffer of interpreter:0, got int"):
        device.free(1234)


def test_streams_order_work_and_synchronize(device):
    s = device.create_stream()
    x = np.arange(10, dtype=np.int64)
    buf = device.alloc(shape=(10,), dtype="i64")
    device.copy_h2d(buf, x, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(device.copy_d2h(buf, stream=s), x)
    device.synchronize()
    assert not device.has_streams  # calls run when made: its streams only order


def test_a_lost_device_refuses_every_call(device):
    buf = device.alloc(64)
    device.mark_lost("a kernel faulted")
    for call in (lambda: device.alloc(8), lambda: buf.numpy(), device.synchronize,
                 device.create_stream):
        with pytest.raises(DeviceLost, match="interpreter:0 is lost: a kernel faulted"):
            call()


def test_capacity_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("TIRX_MLIR_INTERPRETER_DEVICE_BYTES", "4096")
    assert InterpreterDevice().memory_info() == (4096, 4096)
    monkeypatch.setenv("TIRX_MLIR_INTERPRETER_DEVICE_BYTES", "lots")
    with pytest.raises(DeviceError, match="is not a positive number of bytes"):
        InterpreterDevice()
