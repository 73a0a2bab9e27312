"""Tensor maps for the SIMT interpreter: the host-side encoder (`encode_tensor_map`, mirroring
the CUDA driver's ``cuTensorMapEncodeTiled``) and the launch hook that maps their tensors.

A kernel parameter listed in the kernel's ``cuda.tensor_maps`` attribute is a 128-byte buffer
holding a ``CUtensorMap`` (docs/cuda.md). The driver's encoding is opaque; the interpreter
uses its own, little-endian, in those 128 bytes:

=======  =====  ===========================================================================
offset   bytes  field
=======  =====  ===========================================================================
0        8      global address of the tensor (written when the launch maps the tensor)
8        4      magic ``TMAP``
12       4      handle of the registered tensor (`encode_tensor_map` registers it)
16       1      data type (``CUtensorMapDataType``: 0 u8, 1 u16, 2 u32, 3 s32, 4 u64, 5 s64,
                6 f16, 7 f32, 8 f64, 9 bf16, 10 f32 ftz, 11 tf32, 12 tf32 ftz)
17       1      rank (1-5)
18       1      interleave (``CUtensorMapInterleave``: 0 none)
19       1      swizzle (``CUtensorMapSwizzle``: 0 none, 1 32B, 2 64B, 3 128B)
20       1      L2 promotion (``CUtensorMapL2promotion``: 0 none .. 3 256B)
21       1      OOB fill (``CUtensorMapFloatOOBfill``: 0 zeros, 1 NaN)
24       40     global dims (5 x u64, innermost first)
64       32     global strides in bytes of dims 1..4 (4 x u64; dim 0's is the element size)
96       10     box dims (5 x u16)
106      5      element strides (5 x u8)
=======  =====  ===========================================================================

Each `encode_tensor_map` registers its array under a fresh handle; at launch
(`map_tensor_maps`, called by the executor) each tensor-map parameter's tensor is mapped into
every PE's global memory (a tensor that is one of the launch's arguments, e.g. the output a
TMA store writes, is that argument's memory) and its address written into that PE's copy of
the map; after the
run (`TensorMapLaunch.read_back`) PE 0's copy of each tensor is copied back into the array, so
TMA stores land in it, as they would in the device memory a real map points at.

Argument rules checked by the encoder follow the ``cuTensorMapEncodeTiled`` documentation (CUDA
Driver API, "Tensor Map Object Management"): rank 1-5, dims in [1, 2^32], strides multiples of
16 below 2^40, box dims in [1, 256] with the inner box a multiple of 16 bytes, element strides
in [1, 8], a swizzled inner box no wider than the swizzle span, NaN fill for float types only.
Interleaved layouts (16B/32B) are refused by this interpreter.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import ml_dtypes

from tirx_mlir.interpreter.runtime import InterpretError

MAGIC = int.from_bytes(b"TMAP", "little")
MAP_BYTES = 128

DATA_TYPES = {0: np.uint8, 1: np.uint16, 2: np.uint32, 3: np.int32, 4: np.uint64,
              5: np.int64, 6: np.float16, 7: np.float32, 8: np.float64, 9: ml_dtypes.bfloat16,
              10: np.float32, 11: np.float32, 12: np.float32}
"""``CUtensorMapDataType`` -> the numpy dtype of one element (tf32 is stored as f32)."""
FLOAT_TYPES = {6, 7, 8, 9, 10, 11, 12}
TYPE_NAMES = {"u8": 0, "u16": 1, "u32": 2, "s32": 3, "u64": 4, "s64": 5, "f16": 6, "f32": 7,
              "f64": 8, "bf16": 9, "f32_ftz": 10, "tf32": 11, "tf32_ftz": 12}
SWIZZLES = {"none": 0, "32B": 1, "64B": 2, "128B": 3}
SWIZZLE_BYTES = {0: 0, 1: 32, 2: 64, 3: 128}
INTERLEAVES = {"none": 0, "16B": 1, "32B": 2}
L2_PROMOTIONS = {"none": 0, "64B": 1, "128B": 2, "256B": 3}
OOB_FILLS = {"zero": 0, "none": 0, "nan": 1}

_LAYOUT = np.dtype({
    "names": ["address", "magic", "handle", "dtype", "rank", "interleave", "swizzle", "l2",
              "oob", "dims", "strides", "box", "estrides"],
    "formats": ["<u8", "<u4", "<u4", "u1", "u1", "u1", "u1", "u1", "u1", ("<u8", 5),
                ("<u8", 4), ("<u2", 5), ("u1", 5)],
    "offsets": [0, 8, 12, 16, 17, 18, 19, 20, 21, 24, 64, 96, 106],
    "itemsize": MAP_BYTES})

_REGISTRY: dict[int, np.ndarray] = {}
_handles = itertools.count(1)


class TensorMapError(ValueError):
    """Arguments ``cuTensorMapEncodeTiled`` would refuse (CUDA_ERROR_INVALID_VALUE)."""


@dataclass(frozen=True)
class TensorMap:
    """A decoded tensor map (dims, strides, box and element strides innermost first)."""

    address: int
    handle: int
    dtype_code: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    """Byte strides of every dim, dim 0's being the element size."""
    box: tuple[int, ...]
    element_strides: tuple[int, ...]
    swizzle: int
    """The swizzle span in bytes (0: none)."""
    nan_fill: bool

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(DATA_TYPES[self.dtype_code])

    @property
    def rank(self) -> int:
        return len(self.dims)

    @property
    def box_elements(self) -> tuple[int, ...]:
        """Elements the box holds along each dim: ceil(box / element stride)."""
        return tuple(-(-b // e) for b, e in zip(self.box, self.element_strides))

    @property
    def box_bytes(self) -> int:
        return math.prod(self.box_elements) * self.dtype.itemsize


def _dtype_code(dtype) -> int:
    if isinstance(dtype, str):
        if dtype not in TYPE_NAMES:
            raise TensorMapError(f"unknown tensor map data type {dtype!r}; one of "
                                 f"{', '.join(TYPE_NAMES)}")
        return TYPE_NAMES[dtype]
    dt = np.dtype(dtype)
    for code in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9):
        if np.dtype(DATA_TYPES[code]) == dt:
            return code
    raise TensorMapError(f"a tensor map cannot hold {dt} elements")


def _choice(name: str, value: str, table: dict) -> int:
    if value not in table:
        raise TensorMapError(f"{name} must be one of {', '.join(table)}, got {value!r}")
    return table[value]


def encode_tensor_map(array: np.ndarray, box, *, dtype=None, dims=None, strides=None,
                      element_strides=None, interleave: str = "none", swizzle: str = "none",
                      l2_promotion: str = "none", oob_fill: str = "zero") -> np.ndarray:
    """The 128-byte kernel parameter (``int8``) of a tiled tensor map over ``array``.

    Arguments mirror ``cuTensorMapEncodeTiled`` and, like it, list dimensions innermost first:
    ``box`` (the box dims), ``dims`` (the global dims; default: ``array``'s shape reversed),
    ``strides`` (the byte strides of dims 1..rank-1; default: ``array``'s, as laid out in C
    order), ``element_strides`` (default all 1), ``dtype`` (the element type, a numpy dtype or
    ``"tf32"``...; default: ``array``'s), ``swizzle`` (``"none"``, ``"32B"``, ``"64B"``,
    ``"128B"``), ``interleave``, ``l2_promotion``, ``oob_fill`` (``"zero"`` or ``"nan"``).
    ``array`` is registered: a launch maps it into global memory and copies it back after.
    """
    array = np.asarray(array)
    code = _dtype_code(array.dtype if dtype is None else dtype)
    itemsize = np.dtype(DATA_TYPES[code]).itemsize
    dims = tuple(int(d) for d in (reversed(array.shape) if dims is None else dims))
    rank = len(dims)
    if not 1 <= rank <= 5:
        raise TensorMapError(f"a tensor map has rank 1 to 5, got {rank}")
    if strides is None:
        strides = tuple(itemsize * math.prod(dims[:i]) for i in range(1, rank))
    strides = tuple(int(s) for s in strides)
    box = tuple(int(b) for b in box)
    estrides = tuple(int(e) for e in (element_strides or (1,) * rank))
    for what, values, n in (("strides", strides, rank - 1), ("box", box, rank),
                            ("element_strides", estrides, rank)):
        if len(values) != n:
            raise TensorMapError(f"{what} needs {n} entries for rank {rank}, got {len(values)}")
    if any(not 1 <= d <= 1 << 32 for d in dims):
        raise TensorMapError(f"global dims must be in [1, 2^32], got {list(dims)}")
    if any(s % 16 or not 0 < s < 1 << 40 for s in strides):
        raise TensorMapError(f"global strides must be positive multiples of 16 bytes below "
                             f"2^40, got {list(strides)}")
    if any(not 1 <= b <= 256 for b in box):
        raise TensorMapError(f"box dims must be in [1, 256], got {list(box)}")
    if any(not 1 <= e <= 8 for e in estrides):
        raise TensorMapError(f"element strides must be in [1, 8], got {list(estrides)}")
    inter = _choice("interleave", interleave, INTERLEAVES)
    if inter:
        raise TensorMapError("interleaved tensor maps (16B/32B) are not supported by the SIMT "
                             "interpreter")
    swz = _choice("swizzle", swizzle, SWIZZLES)
    inner = box[0] * itemsize
    if inner % 16:
        raise TensorMapError(f"the inner box dim spans {inner} bytes; it must be a multiple "
                             f"of 16 bytes")
    if swz and inner > SWIZZLE_BYTES[swz]:
        raise TensorMapError(f"the inner box dim spans {inner} bytes, more than the "
                             f"{swizzle} swizzle span")
    fill = _choice("oob_fill", oob_fill, OOB_FILLS)
    if fill and code not in FLOAT_TYPES:
        raise TensorMapError("NaN out-of-bounds fill needs a floating-point data type")
    span = itemsize * dims[0] + sum((d - 1) * s for d, s in zip(dims[1:], strides))
    if span > array.nbytes:
        raise TensorMapError(f"the tensor map spans {span} bytes, but the array holds "
                             f"{array.nbytes}")
    handle = next(_handles)
    _REGISTRY[handle] = array
    record = np.zeros(1, dtype=_LAYOUT)
    record["magic"] = MAGIC
    record["handle"] = handle
    record["dtype"] = code
    record["rank"] = rank
    record["interleave"] = inter
    record["swizzle"] = swz
    record["l2"] = _choice("l2_promotion", l2_promotion, L2_PROMOTIONS)
    record["oob"] = fill
    record["dims"][0, :rank] = dims
    record["strides"][0, :rank - 1] = strides
    record["box"][0, :rank] = box
    record["estrides"][0, :rank] = estrides
    return record.view(np.int8).copy()


def decode(raw: np.ndarray) -> TensorMap | None:
    """The tensor map in 128 bytes, or None if they do not hold one."""
    record = np.ascontiguousarray(raw).view(np.uint8)[:MAP_BYTES].view(_LAYOUT)[0]
    if int(record["magic"]) != MAGIC or not 1 <= int(record["rank"]) <= 5:
        return None
    rank = int(record["rank"])
    code = int(record["dtype"])
    if code not in DATA_TYPES:
        return None
    itemsize = np.dtype(DATA_TYPES[code]).itemsize
    return TensorMap(int(record["address"]), int(record["handle"]), code,
                     tuple(int(d) for d in record["dims"][:rank]),
                     (itemsize, *(int(s) for s in record["strides"][:rank - 1])),
                     tuple(int(b) for b in record["box"][:rank]),
                     tuple(int(e) for e in record["estrides"][:rank]),
                     SWIZZLE_BYTES.get(int(record["swizzle"]), 0), bool(record["oob"]))


# --- the launch hook ----------------------------------------------------------------------------


class TensorMapLaunch:
    """The tensors one launch mapped for its tensor-map parameters."""

    def __init__(self) -> None:
        self.mapped: list[tuple[np.ndarray, object]] = []

    def read_back(self) -> None:
        """Copy PE 0's copy of every mapped tensor back into its array."""
        for array, alloc in self.mapped:
            if array.flags.writeable:
                array[...] = alloc.data[:alloc.nbytes].view(array.dtype).reshape(array.shape)


def _same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    return a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and \
        a.nbytes == b.nbytes


def map_tensor_maps(kernel, mem, allocations, param_name, args=()) -> TensorMapLaunch:
    """Map the tensor of every tensor-map parameter of ``kernel`` into each PE's global memory
    and write its address into that PE's copy of the map (``allocations[i][pe]``). A tensor
    that is the memory of one of the launch's own arguments (``args``: e.g. the output a TMA
    store writes) is that argument's allocation, so the kernel's other accesses see its TMA
    stores and its outputs are read back once."""
    launch = TensorMapLaunch()
    attr = kernel.attributes.get("cuda.tensor_maps")
    if attr is None:
        return launch
    positions = [int(v) for v in getattr(attr, "get_values", lambda: ())()]
    bad = [i for i in positions if not 0 <= i < len(allocations)]
    if bad or not positions:
        raise InterpretError(f"cuda.tensor_maps must list parameter positions (an array<i64: "
                             f"...>) of the kernel's {len(allocations)} parameters", kernel)
    by_array: dict[tuple[int, int], object] = {}
    for i in positions:
        for pe, alloc in enumerate(allocations[i]):
            tmap = decode(alloc.data[:alloc.nbytes]) if alloc.nbytes >= MAP_BYTES else None
            array = None if tmap is None else _REGISTRY.get(tmap.handle)
            if array is None:
                raise InterpretError(
                    f"parameter {param_name(i)} is a tensor map (cuda.tensor_maps), but its "
                    f"bytes do not hold one made by encode_tensor_map in this process",
                    kernel, hint="pass tirx_mlir.backends.cuda.interpreter.tensor_map."
                                 "encode_tensor_map(array, box=...) for it")
            key = (id(array), pe)
            tensor = by_array.get(key)
            if tensor is None:
                own = [j for j, a in enumerate(args) if j not in positions and
                       isinstance(a, np.ndarray) and _same_memory(a, array)]
                if own:
                    tensor = by_array[key] = allocations[own[0]][pe]
            if tensor is None:
                tensor = by_array[key] = mem.map_global(
                    f"the tensor of {param_name(i)}" + (f" of PE {pe}" if pe else ""), array, pe)
                if pe == 0:
                    launch.mapped.append((array, tensor))
            alloc.data[:8] = np.array([tensor.base], dtype="<u8").view(np.uint8)
    return launch
