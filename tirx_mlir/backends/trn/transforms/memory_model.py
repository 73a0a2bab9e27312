"""Running allocated kernels on one shared SBUF and PSUM, to check the allocator.

The reference interpreter gives every ``tirx.alloc`` its own array, so it cannot see two buffers
that `trn-allocate` placed at overlapping addresses while both are live. `physical_interpreter`
runs a module instead with every on-chip allocation that carries ``trn.addr`` as a view into one
per-partition byte array per memory (SBUF, PSUM), at its address, as the hardware has it:

    runner = KernelRunner(module, interpreter=physical_interpreter(module))

An allocation overlapping a buffer that is still needed then corrupts the result, which the
three-way check compares with numpy. A fresh allocation is filled with ``0xFF`` bytes (NaN for
floats), so reading memory no one wrote still shows, as with the reference interpreter.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls

from tirx_mlir.backends.trn.dialects.nki.checks import ADDR_ATTR
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.interpreter import runtime
from tirx_mlir.interpreter.runtime import InterpretError


@register_impls
class PhysicalMemoryFunctions(InterpreterFunctions):
    """``tirx.alloc`` of addressed on-chip tiles as views of shared SBUF/PSUM byte arrays."""

    def __init__(self, limits: TrnLimits | None = None):
        lim = limits or TrnLimits()
        self.memories = {
            "trn.sbuf": np.full((lim.partitions, lim.sbuf_bytes_per_partition), 0xFF, np.uint8),
            "trn.psum": np.full((lim.partitions, lim.psum_bytes_per_partition), 0xFF, np.uint8),
        }

    @impl(AllocOp)
    def run_alloc(self, interp: Interpreter, op: AllocOp, args: PythonValues):
        btype = op.result.type
        assert isinstance(btype, BufferType)
        dt = dtypes.numpy_dtype(btype.element_type)
        addr = op.attributes.get(ADDR_ATTR)
        memory = self.memories.get(btype.scope_name)
        if addr is None or memory is None:
            return (runtime.alloc(btype.get_shape(), dt),)
        shape = btype.get_shape()
        start = int(addr.value.data)  # type: ignore[attr-defined]
        nbytes = int(np.prod(shape[1:])) * dt.itemsize
        if len(shape) != 2 or shape[0] > memory.shape[0] or start + nbytes > memory.shape[1]:
            raise InterpretError(f"{btype} at byte {start} does not fit in {btype.scope_name} "
                                 f"({memory.shape[0]} partitions x {memory.shape[1]} bytes)", op)
        region = memory[: shape[0], start:start + nbytes]
        region[...] = 0xFF
        return (region.view(dt).reshape(shape),)


def physical_interpreter(module: ModuleOp, limits: TrnLimits | None = None) -> Interpreter:
    """The reference interpreter with `PhysicalMemoryFunctions` for on-chip allocations."""
    from tirx_mlir.interpreter import make_interpreter

    interp = make_interpreter(module)
    interp.register_implementations(PhysicalMemoryFunctions(limits), override=True)
    return interp
