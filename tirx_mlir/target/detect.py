"""Device target detectors: from a device (``"cuda"``, ``"cuda:1"``, ``torch.device``...) to a
`Target` describing it.

A backend registers ``register_device_target_detector("cuda", fn)``; ``fn(device) -> Target``
probes the device and raises `DeviceNotFoundError` (a `TargetError`) when there is none, so
asking for a missing device is a clear error rather than a crash. The core registers ``cpu``
(the host, an ``llvm`` target; see llvm.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from tirx_mlir import registry
from tirx_mlir.target.kind import TargetError

if TYPE_CHECKING:
    from tirx_mlir.target.target import Target


class DeviceNotFoundError(TargetError):
    """The device asked for does not exist on this machine (or its runtime is missing)."""


device_detectors: registry.Registry[Callable[[Any], "Target"]] = registry.Registry(
    "device target detector")


def register_device_target_detector(device_type: str, detector: Callable[[Any], "Target"], *,
                                    override: bool = False) -> None:
    """``detector(device) -> Target`` for devices of ``device_type`` (e.g. "cuda")."""
    device_detectors.register(device_type, detector, override=override)


def list_device_detectors() -> list[str]:
    return sorted(device_detectors.keys())


def parse_device(device: Any) -> tuple[str, int]:
    """``"cuda:1"`` -> ("cuda", 1); ``"cpu"`` -> ("cpu", 0); objects with ``device_type`` /
    ``type`` and ``index`` (torch.device, DLPack-style devices) are accepted too."""
    if isinstance(device, str):
        kind, _, index = device.partition(":")
        if index and not index.isdigit():
            raise TargetError(f"bad device '{device}': expected '<type>' or '<type>:<index>'")
        return kind.strip(), int(index or 0)
    kind = getattr(device, "device_type", None) or getattr(device, "type", None)
    if not isinstance(kind, str):
        raise TargetError(f"cannot tell the device type of {device!r}; give a string such as "
                          f"'cuda:0' or 'cpu'")
    index = getattr(device, "index", None) or getattr(device, "device_id", None) or 0
    return kind.split(":")[0], int(index)


def detect_target_from_device(device: Any) -> "Target":
    """The target of a device: ``"cpu"``, ``"cuda"``, ``"cuda:0"``, or a device object."""
    kind, _ = parse_device(device)
    detector = device_detectors.get(kind)
    if detector is None:
        known = ", ".join(list_device_detectors()) or "(none)"
        raise TargetError(f"auto detection for device '{device}' is not supported; device types "
                          f"with a detector: {known} (a backend registers more with "
                          f"register_device_target_detector)")
    return detector(device)
