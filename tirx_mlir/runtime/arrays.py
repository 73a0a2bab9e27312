"""Arrays in and out of ``Artifact.run``: numpy, and any array with the DLPack protocol.

`to_host` turns an argument into a numpy array and remembers its *kind*: a numpy array is
itself; a DLPack array in host memory comes through ``numpy.from_dlpack`` (no copy); one in
device memory is first moved to the host with its library's own call (``.cpu()`` for torch,
``.get()`` for cupy, else ``numpy.asarray``). `from_host` gives a result back in the kind of the
first argument: through the library's ``from_dlpack`` (torch, jax, any library that has one),
``cupy.asarray`` for cupy, then moved to the first argument's device where the library can
(torch's ``.to(device)``). A library without ``from_dlpack`` gets numpy arrays.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from tirx_mlir.runtime.errors import DeviceError

DLPACK_CPU = 1
DLPACK_CUDA_HOST = 3
HOST_DEVICE_TYPES = (DLPACK_CPU, DLPACK_CUDA_HOST)


@dataclass(frozen=True)
class ArrayKind:
    """Where an argument came from: its library (``numpy``, ``torch``...) and an example of it
    (to restore its device)."""

    library: str
    example: Any = None


NUMPY = ArrayKind("numpy")


def library_of(value: Any) -> str:
    return type(value).__module__.split(".")[0]


def to_host(value: Any, where: str) -> tuple[np.ndarray, ArrayKind]:
    """``value`` as a numpy array, and its kind."""
    if isinstance(value, np.ndarray):
        return value, NUMPY
    if not hasattr(value, "__dlpack__"):
        if isinstance(value, (list, tuple, int, float)):
            return np.asarray(value), NUMPY
        raise DeviceError(f"{where}: expected a numpy array or a DLPack array (torch, cupy, "
                          f"jax...), got {type(value).__name__}")
    kind = ArrayKind(library_of(value), value)
    device_type = value.__dlpack_device__()[0] if hasattr(value, "__dlpack_device__") else 1
    if device_type in HOST_DEVICE_TYPES:
        return np.from_dlpack(value), kind
    if hasattr(value, "cpu"):  # torch
        return np.from_dlpack(value.detach().cpu() if hasattr(value, "detach") else
                              value.cpu()), kind
    if hasattr(value, "get"):  # cupy
        return np.asarray(value.get()), kind
    return np.asarray(value), kind


def from_host(arr: np.ndarray, kind: ArrayKind) -> Any:
    """``arr`` as an array of ``kind`` (numpy when its library cannot take it)."""
    if kind.library == "numpy":
        return arr
    lib = sys.modules.get(kind.library)
    if lib is None:
        return arr
    if kind.library == "cupy":
        return lib.asarray(arr)
    convert = getattr(lib, "from_dlpack", None)
    if convert is None:
        return arr
    out = convert(np.ascontiguousarray(arr))
    device = getattr(kind.example, "device", None)
    if device is not None and hasattr(out, "to") and getattr(out, "device", device) != device:
        out = out.to(device)
    return out
