"""TMA tensor maps encoded on the host (``cuTensorMapEncodeTiled``), passed to kernels by value.

    tm = encode_tiled(buf, box=(64, 16), swizzle="32B")   # buf: a typed DeviceBuffer [M, K]
    fn.launch(grid, block, 0, [tm, tm_b, out])            # a parameter of cuda.tensor_maps

Shapes, boxes and strides are given in numpy order (outermost dim first) and reversed for the
driver, whose dim 0 is the innermost; strides are in bytes, row-major by default. The result is a
`TensorMap` whose ``data`` holds the 128 bytes of the ``CUtensorMap``.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from tirx_mlir.backends.cuda.runtime.driver import check
from tirx_mlir.runtime.errors import DeviceError

TENSOR_MAP_BYTES = 128

DATA_TYPES = {"uint8": "UINT8", "uint16": "UINT16", "uint32": "UINT32", "int32": "INT32",
              "uint64": "UINT64", "int64": "INT64", "float16": "FLOAT16", "float32": "FLOAT32",
              "float64": "FLOAT64", "bfloat16": "BFLOAT16", "int8": "UINT8",
              "float8_e4m3fn": "UINT8", "float8_e5m2": "UINT8"}
"""numpy dtype name -> CU_TENSOR_MAP_DATA_TYPE_* (8-bit types move as bytes)."""

SWIZZLES = {"none": "NONE", "32B": "32B", "64B": "64B", "128B": "128B"}


@dataclass(frozen=True)
class TensorMap:
    data: bytes
    shape: tuple[int, ...]
    box: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.data) != TENSOR_MAP_BYTES:
            raise DeviceError(f"a tensor map is {TENSOR_MAP_BYTES} bytes, got {len(self.data)}")


def encode_tiled(buf: Any, box: Sequence[int], *, shape: Sequence[int] | None = None,
                 dtype: Any = None, strides: Sequence[int] | None = None,
                 swizzle: str = "none", l2_promotion: str = "NONE",
                 oob_fill: str = "NONE") -> TensorMap:
    """The tiled tensor map of the tensor in ``buf`` (its shape and dtype unless given)."""
    device = buf.device
    drv = device.drv
    shape = tuple(shape or buf.shape or ())
    dt = np.dtype(dtype or buf.dtype)
    if not shape or len(box) != len(shape):
        raise DeviceError(f"encode_tiled: box {list(box)} must have one size per dim of the "
                          f"tensor {list(shape)}")
    if swizzle not in SWIZZLES or dt.name not in DATA_TYPES:
        raise DeviceError(f"encode_tiled: swizzle must be one of {', '.join(SWIZZLES)} and the "
                          f"dtype one of {', '.join(DATA_TYPES)} (got {swizzle}, {dt.name})")
    if strides is None:
        strides = [int(np.prod(shape[d + 1:])) * dt.itemsize for d in range(len(shape))]
    rank = len(shape)
    enum = drv.CUtensorMapDataType
    tm = check(drv.cuTensorMapEncodeTiled(
        getattr(enum, f"CU_TENSOR_MAP_DATA_TYPE_{DATA_TYPES[dt.name]}"), rank,
        buf.address, [drv.cuuint64_t(n) for n in reversed(shape)],
        [drv.cuuint64_t(s) for s in list(reversed(strides))[1:]],
        [drv.cuuint32_t(b) for b in reversed(box)], [drv.cuuint32_t(1)] * rank,
        drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(drv.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{SWIZZLES[swizzle]}"),
        getattr(drv.CUtensorMapL2promotion, f"CU_TENSOR_MAP_L2_PROMOTION_{l2_promotion}"),
        getattr(drv.CUtensorMapFloatOOBfill, f"CU_TENSOR_MAP_FLOAT_OOB_FILL_{oob_fill}")),
        "cuTensorMapEncodeTiled", device)
    return TensorMap(ctypes.string_at(tm.getPtr(), TENSOR_MAP_BYTES), shape, tuple(box))
