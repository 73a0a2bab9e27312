"""A kernel's launch signature, and the check of a launch's arguments against it.

Each `Param` is a buffer (a `DeviceBuffer` of its shape and dtype, or a raw one of at least its
bytes) or a by-value blob of a fixed size (a descriptor the host builds, e.g. a TMA tensor map:
any object with the buffer protocol or a ``data`` bytes attribute). A by-value parameter with a
``derived`` builder is made at each launch from another parameter's buffer
(`KernelSignature.build_arguments`), so callers pass only the `user_params`. `KernelSignature.check`
names the first argument that does not fit, with what the parameter wants:

    @vector_add takes 3 arguments (A: 65536xf32, B: 65536xf32, C: 65536xf32), got 2
    argument 2 (C) of @vector_add is [1024] float16; the parameter is 65536xf32
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from tirx_mlir.runtime.buffer import DeviceBuffer
from tirx_mlir.runtime.errors import LaunchError

if TYPE_CHECKING:
    from tirx_mlir.dialects.tirx.global_layout import GlobalPlacement
    from tirx_mlir.dialects.tirx.kernel import KernelOp
    from tirx_mlir.runtime.device import Device


@dataclass(frozen=True)
class Param:
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    type_text: str
    by_value: bool = False
    placement: "GlobalPlacement | None" = None
    """How the logical tensor lies in the buffer's memory (None: row-major, no padding)."""
    derived: Any = None
    """A by-value parameter the host builds at each launch from another parameter's buffer (a
    TMA tensor map): an object with ``source`` (that parameter's position) and
    ``build(device, buffer)`` returning the value (anything `blob_bytes` takes). None: the
    caller passes it."""

    @property
    def elements(self) -> int:
        """Elements of the buffer's memory (the layout's span when it has one)."""
        return self.placement.span if self.placement is not None else math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.elements * self.dtype.itemsize

    def describe(self) -> str:
        dims = "x".join(map(str, self.shape))
        return f"{self.name}: {dims}x{self.type_text}" + (" by value" if self.by_value else "")


@dataclass(frozen=True)
class KernelSignature:
    name: str
    params: tuple[Param, ...]
    n_inputs: int
    grid: tuple[int, int, int] = (1, 1, 1)
    block: tuple[int, int, int] = (1, 1, 1)
    cluster: tuple[int, int, int] | None = None
    min_shared_bytes: int = 0
    notes: tuple[str, ...] = field(default=())

    @staticmethod
    def from_kernel(kernel: "KernelOp", *, by_value: Sequence[int] = (),
                    min_shared_bytes: int = 0) -> "KernelSignature":
        """The signature of a ``tirx.kernel``: its buffer parameters (inputs first), its grid,
        threads and cluster; ``by_value`` lists parameters passed as blobs of their bytes."""
        from tirx_mlir.dialects.tirx import dtypes
        from tirx_mlir.dialects.tirx.global_layout import global_placement
        from tirx_mlir.interpreter.launch import buffer_params

        params = []
        for i, (name, btype) in enumerate(buffer_params(kernel)):
            placement = None
            if btype.get_layout() is not None and i not in by_value:
                found = global_placement(btype)
                placement = None if found.is_row_major() else found
            params.append(Param(name, tuple(btype.get_shape()),
                                dtypes.numpy_dtype(btype.element_type),
                                dtypes.type_name(btype.element_type), i in by_value, placement))
        return KernelSignature(kernel.kernel_name, tuple(params), kernel.n_inputs,
                               pad3(kernel.grid_dims()), pad3(kernel.thread_dims()),
                               None if kernel.cluster_dims() is None
                               else pad3(kernel.cluster_dims()), min_shared_bytes)

    @property
    def outputs(self) -> tuple[Param, ...]:
        return self.params[self.n_inputs:]

    @property
    def user_params(self) -> tuple[int, ...]:
        """Positions of the parameters a caller passes (all but the derived ones)."""
        return tuple(i for i, p in enumerate(self.params) if p.derived is None)

    @property
    def user_inputs(self) -> int:
        """How many of `user_params` are inputs."""
        return sum(1 for i in self.user_params if i < self.n_inputs)

    def with_derived(self, derived: Sequence[Any]) -> "KernelSignature":
        """This signature with each ``derived`` value (``.param``: its position) set on its
        parameter (`Param.derived`)."""
        params = list(self.params)
        for d in derived:
            params[d.param] = replace(params[d.param], derived=d)
        return replace(self, params=tuple(params))

    def build_arguments(self, buffers: dict[int, Any], device: "Device") -> list[Any]:
        """The full argument list from the buffers of the `user_params` (by position), each
        derived parameter built from its source's buffer."""
        args = []
        for i, p in enumerate(self.params):
            if p.derived is None:
                args.append(buffers[i])
                continue
            source = buffers.get(p.derived.source)
            if source is None:
                raise LaunchError(f"parameter {i} ({p.name}) of @{self.name} is built from "
                                  f"parameter {p.derived.source}, which is derived too")
            args.append(p.derived.build(device, source))
        return args

    def describe(self) -> str:
        return ", ".join(p.describe() for p in self.params)

    def check(self, args: Sequence[Any], device: "Device") -> None:
        """Raise `LaunchError` naming the first argument that does not fit its parameter."""
        if len(args) != len(self.params):
            raise LaunchError(f"@{self.name} takes {len(self.params)} arguments "
                              f"({self.describe()}), got {len(args)}")
        for i, (param, arg) in enumerate(zip(self.params, args)):
            where = f"argument {i} ({param.name}) of @{self.name}"
            if param.by_value:
                size = len(blob_bytes(arg, where))
                if size != param.nbytes:
                    raise LaunchError(f"{where} is passed by value as {param.nbytes} bytes, "
                                      f"got {size}")
                continue
            buf = device.check_buffer(arg, where)
            self._check_buffer(where, param, buf)

    @staticmethod
    def _check_buffer(where: str, param: Param, buf: DeviceBuffer) -> None:
        want = "x".join(map(str, param.shape)) + "x" + param.type_text
        if buf.typed and param.placement is None and (buf.shape != param.shape
                                                      or buf.dtype != param.dtype):
            raise LaunchError(f"{where} is {list(buf.shape)} {buf.dtype}; the parameter is "
                              f"{want}", hint="allocate it with the parameter's shape and dtype")
        if buf.typed and buf.dtype != param.dtype:
            raise LaunchError(f"{where} has dtype {buf.dtype}; the parameter is {want}")
        if buf.nbytes < param.nbytes:
            span = f", its layout spans {param.elements} elements" if param.placement else ""
            raise LaunchError(f"{where} holds {buf.nbytes:,} bytes; the parameter ({want}{span}) "
                              f"needs {param.nbytes:,}")


def blob_bytes(arg: Any, where: str) -> bytes:
    """The bytes of a by-value argument (buffer protocol, or a ``data`` attribute)."""
    data = getattr(arg, "data", arg)
    try:
        return bytes(memoryview(data))
    except TypeError:
        raise LaunchError(f"{where} is passed by value: give its bytes (bytes, a numpy array, "
                          f"or an object with .data), got {type(arg).__name__}") from None


def pad3(dims: Sequence[int]) -> tuple[int, int, int]:
    """Launch dims as (x, y, z), missing ones 1."""
    dims = tuple(int(d) for d in dims)
    if not 1 <= len(dims) <= 3 or any(d < 1 for d in dims):
        raise LaunchError(f"launch dims {list(dims)} must be one to three positive integers")
    return (*dims, *(1,) * (3 - len(dims)))  # type: ignore[return-value]
