"""Devices by name through the registry; the interpreter device is always there."""

from __future__ import annotations

import pytest

from tirx_mlir import registry
from tirx_mlir.runtime.devices import (available_devices, default_device, get_device,
                                       parse_device_name)
from tirx_mlir.runtime.errors import DeviceError, DeviceUnavailable
from tirx_mlir.runtime.interpreter_device import InterpreterDevice


def test_the_interpreter_device_is_registered_by_the_core():
    assert registry.devices.owner_of("interpreter") == "core"
    assert registry.list_devices()[0] == "interpreter"
    assert available_devices()["interpreter"] is None
    assert isinstance(get_device(), InterpreterDevice)
    assert get_device("interpreter:1").name == "interpreter:1"


def test_names_are_checked():
    assert parse_device_name("cuda:3") == ("cuda", 3)
    with pytest.raises(DeviceError, match="must be a number"):
        get_device("interpreter:x")
    with pytest.raises(DeviceError, match="unknown device 'tpu'; candidates are: .*interpreter"):
        get_device("tpu")
    with pytest.raises(Exception, match="invalid device kind"):
        registry.register_device("not valid", lambda: InterpreterDevice)


def test_a_registered_kind_that_cannot_run_here_says_why():
    class Absent(InterpreterDevice):
        kind = "absent"
        target_kinds = ("trn",)

        @classmethod
        def availability(cls):
            return "no such hardware on this machine"

    registry.register_device("absent", lambda: Absent, override=True)
    try:
        with pytest.raises(DeviceUnavailable, match="device 'absent:0' is not available here: "
                                                    "no such hardware") as info:
            get_device("absent")
        assert "interpreter device" in info.value.hint
        assert isinstance(default_device("trn"), InterpreterDevice)  # falls back
    finally:
        registry.devices.unregister("absent")
