"""Running allocated kernels on the physical memories, to check an allocator.

The reference interpreter gives every ``tirx.alloc`` its own array, so it cannot see two buffers
that an allocator placed at overlapping addresses while both are live. `physical_interpreter`
runs a module instead with every allocation in one of the given memories (each a `MemorySpace`,
from the backend's target limits) that carries an address as a view into one byte array of
``rows x bytes_per_row`` per memory, at its address, as the hardware has it::

    runner = KernelRunner(module, interpreter=physical_interpreter(module, spaces))

An allocation overlapping a buffer that is still needed then corrupts the result, which a
comparison with numpy catches. A fresh allocation is filled with ``0xFF`` bytes (NaN for floats),
so reading memory no one wrote still shows, as with the reference interpreter. Allocations
without an address, or in other scopes, get their own array as usual.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.memory_space import MemorySpace
from tirx_mlir.interpreter import runtime
from tirx_mlir.interpreter.runtime import InterpretError

FRESH_BYTE = 0xFF


@register_impls
class PhysicalMemoryFunctions(InterpreterFunctions):
    """``tirx.alloc`` of addressed buffers as views of one shared byte array per memory."""

    def __init__(self, spaces: Iterable[MemorySpace]):
        self.spaces = {space.scope: space for space in spaces}
        self.memories = {scope: np.full((space.rows, space.bytes_per_row), FRESH_BYTE, np.uint8)
                         for scope, space in self.spaces.items()}

    @impl(AllocOp)
    def run_alloc(self, interp: Interpreter, op: AllocOp, args: PythonValues):
        btype = op.result.type
        assert isinstance(btype, BufferType)
        dt = dtypes.numpy_dtype(btype.element_type)
        space = self.spaces.get(btype.scope_name)
        addr = None if space is None else op.attributes.get(space.address_attr)
        if addr is None:
            return (runtime.alloc(btype.get_shape(), dt),)
        assert space is not None
        memory = self.memories[space.scope]
        start = int(addr.value.data)  # type: ignore[attr-defined]
        rows, nbytes = space.rows_of(btype), space.row_bytes(btype)
        if rows > space.rows or start < 0 or start + nbytes > space.bytes_per_row:
            raise InterpretError(f"{btype} at byte {start} does not fit in {space.scope} "
                                 f"({space.rows} {space.row_name}s x {space.bytes_per_row} "
                                 f"bytes)", op)
        region = memory[:rows, start:start + nbytes]
        region[...] = FRESH_BYTE
        return (region.view(dt).reshape(btype.get_shape()),)


def physical_interpreter(module: ModuleOp, spaces: Iterable[MemorySpace]) -> Interpreter:
    """The reference interpreter with `PhysicalMemoryFunctions` for the allocations in
    ``spaces``."""
    from tirx_mlir.interpreter import make_interpreter

    interp = make_interpreter(module)
    interp.register_implementations(PhysicalMemoryFunctions(spaces), override=True)
    return interp
