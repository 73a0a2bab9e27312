"""The interpreter device: the core's device, always present, running lowered IR of any backend
through the reference interpreter (`tirx_mlir.interpreter.KernelRunner`).

Its memory is host memory (one numpy byte array per block, at made-up device addresses that are
never 0), so buffers, copies, the pool and launches behave as on a GPU and the same program runs
on both: fresh device memory holds 0xFF bytes (a NaN in every float type, -1 in signed ints), the
memory the pool reuses keeps its old contents, and a kernel may write any buffer it is given. As
on every device, a launch uses the grid, block and cluster the kernel's IR declares. Calls
run when they are made, so its streams only order and `synchronize` has nothing to wait for.

Capacity: ``TIRX_MLIR_INTERPRETER_DEVICE_BYTES`` bytes (default 16 GiB, not committed up front),
so an allocation past it is an `OutOfMemory` with the numbers, as on a real device.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np

from tirx_mlir.runtime.device import Device, Stream
from tirx_mlir.runtime.errors import DeviceError, LaunchError, OutOfMemory
from tirx_mlir.runtime.module import Function, Module
from tirx_mlir.runtime.signature import KernelSignature, blob_bytes

CAPACITY_ENV = "TIRX_MLIR_INTERPRETER_DEVICE_BYTES"
DEFAULT_CAPACITY = 16 << 30
BASE_ADDRESS = 0x7F00_0000_0000
ALIGN = 256


def capacity_from_env() -> int:
    text = os.environ.get(CAPACITY_ENV, "")
    if not text:
        return DEFAULT_CAPACITY
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = -1
    if value <= 0:
        raise DeviceError(f"{CAPACITY_ENV}={text!r} is not a positive number of bytes")
    return value


class InterpreterDevice(Device):
    """See the module docstring."""

    kind: ClassVar[str] = "interpreter"

    def __init__(self, index: int = 0, *, caching: bool = True, capacity: int | None = None):
        super().__init__(index, caching=caching)
        self.capacity = capacity_from_env() if capacity is None else int(capacity)
        self._blocks: dict[int, np.ndarray] = {}
        self._used = 0
        self._next = BASE_ADDRESS

    # ---- raw memory ----
    def raw_alloc(self, nbytes: int) -> int:
        if self._used + nbytes > self.capacity:
            raise OutOfMemory(self.name, nbytes, allocated=self._used, reserved=self._used,
                              free=self.capacity - self._used, total=self.capacity)
        address = self._next
        self._next += -(-max(nbytes, 1) // ALIGN) * ALIGN
        self._blocks[address] = np.full(nbytes, 0xFF, dtype=np.uint8)
        self._used += nbytes
        return address

    def raw_free(self, address: int) -> None:
        self._used -= self._blocks.pop(address).size

    def memory(self, address: int) -> np.ndarray:
        """The bytes of the block at ``address`` (a view, not a copy)."""
        return self._blocks[address]

    def raw_h2d(self, address: int, data: np.ndarray, stream: Stream | None) -> None:
        self._blocks[address][:data.size] = data

    def raw_d2h(self, out: np.ndarray, address: int, stream: Stream | None) -> None:
        out[...] = self._blocks[address][:out.size]

    def raw_d2d(self, dst: int, src: int, nbytes: int, stream: Stream | None) -> None:
        self._blocks[dst][:nbytes] = self._blocks[src][:nbytes]

    def memory_info(self) -> tuple[int, int]:
        return self.capacity - self._used, self.capacity

    # ---- modules ----
    def load_module(self, artifact: Any) -> "InterpreterModule":
        """A module from a compiled artifact (its ``.lowered`` IR), a ModuleOp or IR text."""
        self.check_usable()
        lowered = getattr(artifact, "lowered", artifact)
        if isinstance(lowered, str):
            from tirx_mlir.located_parser import parse_module

            lowered = parse_module(lowered, "<module>")
        return InterpreterModule(self, lowered, getattr(artifact, "toolchain", None))


class InterpreterModule(Module):
    """Every kernel of a lowered module, ready to run on the interpreter device; with the
    artifact's ``toolchain``, each takes the signature a device of its kind would (by-value and
    derived parameters included)."""

    def __init__(self, device: InterpreterDevice, ir: Any, toolchain: Any = None):
        from tirx_mlir.dialects.tirx.kernel import kernels

        super().__init__(device)
        self.ir = ir
        for kernel in kernels(ir):
            sig = toolchain.signature(kernel) if toolchain is not None else \
                KernelSignature.from_kernel(kernel)
            self.functions[kernel.kernel_name] = InterpreterFunction(self, kernel, sig)


class InterpreterFunction(Function):
    """One kernel, run by the reference interpreter on views of the device's memory (a
    by-value argument: an array of its bytes)."""

    def __init__(self, module: InterpreterModule, kernel: Any,
                 signature: KernelSignature | None = None):
        super().__init__(module, signature or KernelSignature.from_kernel(kernel))
        self.kernel = kernel
        self._runner = None

    @property
    def runner(self):
        if self._runner is None:
            from tirx_mlir.interpreter import KernelRunner

            self._runner = KernelRunner(self.module.ir, self.kernel.kernel_name)
        return self._runner

    def run(self, grid, block, shared_bytes, args, cluster, stream) -> None:
        sig = self.signature  # the launch is the declared one (`Function.launch` checks it)
        views = [self._view(p, a) for p, a in zip(sig.params, args)]
        self.runner.run(views)

    def _view(self, param, buf) -> np.ndarray:
        """The parameter's logical tensor inside the buffer's device memory (a by-value
        parameter: its bytes as the parameter's array)."""
        if param.by_value:
            data = blob_bytes(buf, param.name)
            return np.frombuffer(data, dtype=param.dtype).reshape(param.shape).copy()
        memory = self.device.memory(buf.address)[:param.nbytes].view(param.dtype)
        if param.placement is not None:
            return param.placement.logical_view(memory)
        return memory.reshape(param.shape)
