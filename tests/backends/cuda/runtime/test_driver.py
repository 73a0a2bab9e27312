"""The driver layer: the availability probe and CUresult -> typed runtime errors."""

from __future__ import annotations

import pytest

from tirx_mlir.backends.cuda.runtime import driver
from tirx_mlir.runtime.errors import DeviceError, DeviceLost, InvalidHandle, OutOfMemory
from tirx_mlir.runtime.interpreter_device import InterpreterDevice

REASON = driver.unavailable_reason()


@pytest.mark.skipif(REASON is None, reason="a CUDA driver and GPU exist here")
def test_without_a_driver_the_reason_is_cuda_error_35_or_no_device():
    assert ("CUDA error 35" in REASON or "CUDA error 100" in REASON
            or "cuda-bindings is not installed" in REASON)


def test_check_returns_the_values_of_a_success():
    assert driver.check((0, 42), "cuX") == 42
    assert driver.check((0, 1, 2), "cuY") == (1, 2)
    assert driver.check((0,), "cuZ") is None


@pytest.mark.skipif("cuda-bindings" in (REASON or ""), reason="cuda-bindings is not installed")
@pytest.mark.parametrize("code, error", [(2, OutOfMemory), (400, InvalidHandle),
                                         (700, DeviceLost), (719, DeviceLost), (1, DeviceError)])
def test_failures_become_typed_errors(code, error):
    dev = InterpreterDevice()
    with pytest.raises(error):
        driver.check((code,), "cuSomething", dev)
    assert (dev.lost is not None) == (error is DeviceLost)
    if error is DeviceLost:
        assert "cuSomething failed" in dev.lost
