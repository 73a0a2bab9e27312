"""TMA tensor maps a kernel needs the host to build: kernel parameters derived from other
parameters, and the binding of a caller's arrays to them.

A TMA copy reads its global tensor through a ``CUtensorMap`` that only the host can encode
(``cuTensorMapEncodeTiled``) and that the kernel receives by value. A tile-level kernel never
names one: when tile dispatch lowers a ``copy_async`` to TMA (dispatch/copy_async_tma.py) it
asks `tensor_map_param` for the map of (global parameter, box, swizzle); that adds, once per
distinct map, a 128-byte parameter ``!tirx.buffer<128xi8, global>`` at the end of the kernel's
inputs, lists it in ``cuda.tensor_maps`` (the printers' and the SIMT interpreter's existing
convention: passed by value, ``const __grid_constant__``) and records how to build it in
``cuda.host_tensor_maps``, one dictionary per map::

    cuda.host_tensor_maps = [{param = 2, source = 0, box = array<i64: 64, 64>, swizzle = "128B"}]

(``param``: the map's parameter position; ``source``: the position of the row-major global
tensor it maps; ``box``: the box in the tensor's dim order, outermost first; ``swizzle``: the
tensor map's swizzle mode; ``oob = "nan"`` where a copy's ``config {oob = "nan"}`` asks boxes
to read elements outside the tensor as NaN, ``CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA``,
absent for the zero fill). The host side is `bind_arguments`: given the arrays of every other
parameter (what the tile-level kernel took, in order) it encodes each map from its source's
array and returns the full argument list, which is what a launch stub does before the launch.
`encode_for_interpreter` encodes for the SIMT interpreter (its ``encode_tensor_map``). The
runtime builds them itself: the cuda toolchain's launch signature marks each map parameter
derived from its source (`HostTensorMap.build`), so ``tirx_mlir.compile(...).run(arrays)``
encodes the maps over the device buffers (``runtime.tensor_map.encode_tiled`` on a GPU) and the
caller passes only the tile-level kernel's arrays.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from xdsl.dialects.builtin import (ArrayAttr, DenseArrayBase, DictionaryAttr, IntegerAttr,
                                   StringAttr, i8, i64)
from xdsl.ir import BlockArgument, SSAValue

from tirx_mlir.backends.cuda.layout.swizzle import Swizzle
from tirx_mlir.diagnostics import TirxError
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import KernelOp

ATTR = "cuda.host_tensor_maps"
TENSOR_MAPS_ATTR = "cuda.tensor_maps"
MAP_BYTES = 128
_SWIZZLES = {m.tensor_map_name: m for m in Swizzle}
OOB_FILLS = {"zero": "NONE", "nan": "NAN_REQUEST_ZERO_FMA"}
"""A copy's ``oob`` config -> the driver's ``CU_TENSOR_MAP_FLOAT_OOB_FILL_*``."""


@dataclass(frozen=True)
class HostTensorMap:
    """One map the host builds: parameter ``param`` maps parameter ``source`` with ``box``
    (outermost dim first) and ``swizzle``."""

    param: int
    source: int
    box: tuple[int, ...]
    swizzle: Swizzle
    oob: str = "zero"

    def attr(self) -> DictionaryAttr:
        entries = {"param": IntegerAttr(self.param, i64),
                   "source": IntegerAttr(self.source, i64),
                   "box": DenseArrayBase.from_list(i64, list(self.box)),
                   "swizzle": StringAttr(self.swizzle.tensor_map_name)}
        if self.oob != "zero":
            entries["oob"] = StringAttr(self.oob)
        return DictionaryAttr(entries)

    def build(self, device: Any, buffer: Any) -> Any:
        """The map over the device ``buffer`` of its source at a launch (`runtime.signature.
        Param.derived`): ``cuTensorMapEncodeTiled`` on a cuda device, the SIMT interpreter's
        encoding of the buffer's memory on the interpreter device."""
        if device.kind == "cuda":
            from tirx_mlir.backends.cuda.runtime.tensor_map import encode_tiled

            return encode_tiled(buffer, box=self.box, swizzle=self.swizzle.tensor_map_name,
                                oob_fill=OOB_FILLS[self.oob])
        memory = device.memory(buffer.address)[:buffer.nbytes].view(buffer.dtype)
        return encode_for_interpreter(memory.reshape(buffer.shape), self)

    @staticmethod
    def from_attr(attr: DictionaryAttr, kernel: KernelOp) -> "HostTensorMap":
        d = attr.data
        try:
            oob = d["oob"].data if "oob" in d else "zero"
            if oob not in OOB_FILLS:
                raise KeyError(oob)
            return HostTensorMap(d["param"].value.data, d["source"].value.data,
                                 tuple(d["box"].get_values()), _SWIZZLES[d["swizzle"].data],
                                 oob)
        except (KeyError, AttributeError):
            raise TirxError(f"{ATTR} entries are {{param = i64, source = i64, box = array<i64: "
                            f"...>, swizzle = \"none\"|\"32B\"|\"64B\"|\"128B\"[, oob = "
                            f"\"nan\"]}}, got {attr}", kernel) from None


def host_tensor_maps(kernel: KernelOp) -> list[HostTensorMap]:
    """The maps ``kernel`` needs the host to build (its ``cuda.host_tensor_maps``)."""
    attr = kernel.attributes.get(ATTR)
    if attr is None:
        return []
    if not isinstance(attr, ArrayAttr):
        raise TirxError(f"{ATTR} must be an array of dictionaries, got {attr}", kernel)
    return [HostTensorMap.from_attr(a, kernel) for a in attr.data]


def _set(kernel: KernelOp, maps: list[HostTensorMap], listed: list[int]) -> None:
    kernel.attributes[ATTR] = ArrayAttr([m.attr() for m in maps])
    kernel.attributes[TENSOR_MAPS_ATTR] = DenseArrayBase.from_list(i64, sorted(listed))


def tensor_map_param(kernel: KernelOp, source: SSAValue, box: Sequence[int],
                     swizzle: Swizzle, oob: str = "zero") -> BlockArgument:
    """The parameter holding the tensor map of the global parameter ``source`` with ``box``,
    ``swizzle`` and out-of-bounds fill ``oob``: an existing one, or a new input parameter
    (module docstring)."""
    args = kernel.body.block.args
    if not isinstance(source, BlockArgument) or source.block is not kernel.body.block:
        raise TirxError("a TMA tensor map maps a kernel parameter; this tensor is not one",
                        kernel)
    box = tuple(int(b) for b in box)
    maps = host_tensor_maps(kernel)
    for m in maps:
        if (m.source, m.box, m.swizzle, m.oob) == (source.index, box, swizzle, oob):
            return args[m.param]
    pos = kernel.n_inputs
    listed = [p if p < pos else p + 1 for p in _listed(kernel)]

    def shifted(p: int) -> int:
        return p if p < pos else p + 1

    maps = [HostTensorMap(shifted(m.param), shifted(m.source), m.box, m.swizzle, m.oob)
            for m in maps]
    arg = kernel.body.block.insert_arg(BufferType((MAP_BYTES,), i8, "global"), pos)
    kernel.num_inputs = IntegerAttr(kernel.n_inputs + 1, i64)
    name = source.name_hint or f"arg{source.index}"
    arg.name_hint = f"{name}_tmap{sum(m.source == source.index for m in maps)}"
    maps.append(HostTensorMap(pos, source.index, box, swizzle, oob))
    _set(kernel, maps, [*listed, pos])
    return arg


def _listed(kernel: KernelOp) -> list[int]:
    attr = kernel.attributes.get(TENSOR_MAPS_ATTR)
    return [] if attr is None else [int(v) for v in attr.get_values()]


def user_parameters(kernel: KernelOp) -> list[int]:
    """Positions of the parameters a caller passes (all but the host-built maps)."""
    built = {m.param for m in host_tensor_maps(kernel)}
    return [i for i in range(len(kernel.body.block.args)) if i not in built]


def bind_arguments(kernel: KernelOp, arrays: Sequence[Any],
                   encode: Callable[[Any, HostTensorMap], Any] | None = None,
                   alloc_output: Callable[[int], Any] | None = None) -> tuple:
    """The argument list of ``kernel`` from the arrays of its `user_parameters` (all of them,
    or only the inputs, as a kernel runner that allocates the outputs takes them), each
    host-built map encoded by ``encode(source array, map)`` (default:
    `encode_for_interpreter`). When only the inputs are given and a map reads an output (a TMA
    store's tensor), every output is allocated by ``alloc_output(parameter position)``
    (default: fresh interpreter memory, NaN / poison) and returned in the list, so the kernel
    writes the very array the map points at. A kernel without host-built maps gets ``arrays``
    back."""
    maps = host_tensor_maps(kernel)
    if not maps:
        return tuple(arrays)
    users = user_parameters(kernel)
    inputs = [p for p in users if p < kernel.n_inputs]
    if len(arrays) not in (len(users), len(inputs)):
        raise TirxError(f"@{kernel.kernel_name} takes {len(inputs)} input arrays (and "
                        f"{len(users) - len(inputs)} outputs; it builds {len(maps)} tensor "
                        f"maps from them), got {len(arrays)}", kernel)
    given = users if len(arrays) == len(users) else inputs
    full: dict[int, Any] = dict(zip(given, arrays))
    if any(m.source not in full for m in maps):
        alloc_output = alloc_output or (lambda p: _fresh_output(kernel, p))
        for p in users:
            if p not in full:
                full[p] = alloc_output(p)
    encode = encode or encode_for_interpreter
    for m in maps:
        full[m.param] = encode(full[m.source], m)
    return tuple(full[p] for p in sorted(full))


def _fresh_output(kernel: KernelOp, position: int) -> Any:
    from tirx_mlir.dialects.tirx import dtypes
    from tirx_mlir.interpreter.runtime import alloc

    arg = kernel.body.block.args[position]
    btype = arg.type
    return alloc(btype.get_shape(), dtypes.numpy_dtype(btype.element_type),
                 f"output %{arg.name_hint} of @{kernel.kernel_name}")


def encode_for_interpreter(array: Any, m: HostTensorMap) -> Any:
    """The SIMT interpreter's encoding of ``m`` over the numpy ``array``."""
    from tirx_mlir.backends.cuda.interpreter.tensor_map import encode_tensor_map

    return encode_tensor_map(array, box=tuple(reversed(m.box)), swizzle=m.swizzle.tensor_map_name,
                             oob_fill=m.oob)
