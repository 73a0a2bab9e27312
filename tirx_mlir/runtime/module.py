"""`Module` and `Function`: kernels a device loaded, launched with checked arguments.

    module = device.load_module(artifact)          # tirx_mlir.compile(...) made it
    f = module.get_function("vector_add")
    f.launch(grid=(64,), block=(256,), shared_bytes=0, args=[a, b, c])

A device kind subclasses `Function` for its launch (``run``); this module states the checks every
launch gets: dims are one to three positive integers and the grid, block and cluster the
kernel's IR declares, ``shared_bytes`` is at least what the
kernel's dynamic shared memory needs, and the arguments match the signature (count, and for
each buffer its shape, dtype and size; see `signature.KernelSignature.check`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from tirx_mlir.runtime.errors import KernelNotFound, LaunchError
from tirx_mlir.runtime.signature import KernelSignature, pad3

if TYPE_CHECKING:
    from tirx_mlir.runtime.device import Device, Stream


class Function:
    """One kernel of a loaded module."""

    def __init__(self, module: "Module", signature: KernelSignature):
        self.module = module
        self.signature = signature

    @property
    def name(self) -> str:
        return self.signature.name

    @property
    def device(self) -> "Device":
        return self.module.device

    def launch(self, grid: Sequence[int] | int, block: Sequence[int] | int,
               shared_bytes: int = 0, args: Sequence[Any] = (), *,
               cluster: Sequence[int] | int | None = None, stream: "Stream | None" = None) -> None:
        """Launch on ``grid`` blocks of ``block`` threads (and ``cluster`` CTAs per cluster)."""
        self.device.check_usable()
        grid3, block3 = pad3(_dims(grid)), pad3(_dims(block))
        cluster3 = None if cluster is None else pad3(_dims(cluster))
        self._check_geometry(grid3, block3, cluster3)
        shared = int(shared_bytes)
        need = self.signature.min_shared_bytes
        if shared < need:
            raise LaunchError(f"@{self.name} uses {need:,} bytes of dynamic shared memory; the "
                              f"launch gives shared_bytes={shared:,}",
                              hint=f"launch with shared_bytes={need}")
        args = list(args)
        self.signature.check(args, self.device)
        self.run(grid3, block3, shared, args, cluster3, stream)

    def _check_geometry(self, grid, block, cluster) -> None:
        """The launch is the one the kernel's IR declares: the IR fixes it, and the lowering
        relies on it (scope ids, value ranges of thread and block ids, ``__launch_bounds__``)."""
        sig = self.signature
        asked = {"grid": grid, "block": block, "cluster": cluster or sig.cluster}
        declared = {"grid": sig.grid, "block": sig.block, "cluster": sig.cluster}
        for what, dims in asked.items():
            if dims != declared[what]:
                raise LaunchError(
                    f"@{self.name} is launched with {what} {list(dims) if dims else None}, but "
                    f"its IR declares {what} {list(declared[what]) if declared[what] else None}",
                    hint="a kernel runs the launch its IR declares; use "
                         "Function.launch_default(args)")

    def launch_default(self, args: Sequence[Any], stream: "Stream | None" = None) -> None:
        """Launch with the grid, block, cluster and shared memory the kernel declares."""
        sig = self.signature
        self.launch(sig.grid, sig.block, sig.min_shared_bytes, args, cluster=sig.cluster,
                    stream=stream)

    def run(self, grid: tuple[int, int, int], block: tuple[int, int, int], shared_bytes: int,
            args: list[Any], cluster: tuple[int, int, int] | None,
            stream: "Stream | None") -> None:
        """The device kind's launch, after every check passed."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Function @{self.name}({self.signature.describe()}) on {self.device.name}>"


class Module:
    """Kernels loaded on one device, by name."""

    def __init__(self, device: "Device", functions: dict[str, Function] | None = None):
        self.device = device
        self.functions: dict[str, Function] = functions or {}

    def get_function(self, name: str) -> Function:
        found = self.functions.get(name.lstrip("@"))
        if found is None:
            names = ", ".join(f"@{n}" for n in self.functions) or "none"
            raise KernelNotFound(f"no kernel @{name.lstrip('@')} in the module on "
                                 f"{self.device.name}; it has: {names}")
        return found

    def only_function(self) -> Function:
        """The module's kernel when it has exactly one."""
        if len(self.functions) != 1:
            names = ", ".join(f"@{n}" for n in self.functions) or "none"
            raise KernelNotFound(f"the module has {len(self.functions)} kernels ({names}); "
                                 f"name the one to run", hint="pass kernel='NAME'")
        return next(iter(self.functions.values()))


def _dims(value: Sequence[int] | int) -> Sequence[int]:
    return (value,) if isinstance(value, int) else value
