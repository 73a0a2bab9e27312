"""Devices by name: ``get_device("interpreter")``, ``get_device("cuda:0")``.

Device kinds are registered in `tirx_mlir.registry.devices` (the core's interpreter device;
a backend's from its ``register_backend()``). `get_device` makes one device per ``kind:index``
and returns the same object afterwards, so its pool is shared by everything that runs there.
A kind that cannot run here raises `DeviceUnavailable` with its reason (e.g. no CUDA driver);
`available_devices()` lists each kind with that reason or None.
"""

from __future__ import annotations

import threading
from typing import Any

from tirx_mlir import registry
from tirx_mlir.runtime.device import Device
from tirx_mlir.runtime.errors import DeviceError, DeviceUnavailable

INTERPRETER = "interpreter"
_instances: dict[tuple[str, int], Device] = {}
_lock = threading.Lock()


def parse_device_name(name: str) -> tuple[str, int]:
    """``"kind"`` or ``"kind:N"`` -> (kind, N)."""
    kind, _, index = str(name).partition(":")
    if not index:
        return kind, 0
    if not index.isdigit():
        raise DeviceError(f"device '{name}': the index after ':' must be a number (e.g. "
                          f"'{kind}:0')")
    return kind, int(index)


def device_class(kind: str) -> type[Device]:
    try:
        factory = registry.devices.lookup(kind)
    except registry.RegistryError as err:
        raise DeviceError(str(err), hint="load the backend that provides the device") from None
    return factory()


def get_device(name: "str | Device" = INTERPRETER) -> Device:
    """The device called ``name`` (a `Device` is returned as is)."""
    if isinstance(name, Device):
        return name
    kind, index = parse_device_name(name)
    cls = device_class(kind)
    with _lock:
        device = _instances.get((kind, index))
        if device is not None:
            return device
        reason = cls.availability()
        if reason is not None:
            raise DeviceUnavailable(f"device '{kind}:{index}' is not available here: {reason}")
        device = cls(index)
        _instances[(kind, index)] = device
        return device


def available_devices() -> dict[str, str | None]:
    """``{kind: None (available) or why not}`` for every registered device kind."""
    return {kind: device_class(kind).availability() for kind in registry.list_devices()}


def default_device(target_kind: str | None = None) -> Device:
    """The device a compiled kernel of ``target_kind`` runs on when none is named: the first
    available device kind that runs that kind natively, else the interpreter device."""
    for kind in registry.list_devices():
        cls = device_class(kind)
        if target_kind in cls.target_kinds and cls.availability() is None:
            return get_device(kind)
    return get_device(INTERPRETER)


def forget_devices() -> None:
    """Drop the device objects made so far (tests; a new `get_device` makes fresh ones)."""
    with _lock:
        _instances.clear()


