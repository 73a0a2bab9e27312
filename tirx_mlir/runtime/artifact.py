"""`Artifact`: what ``tirx_mlir.compile`` returns, and running it on arrays.

    art = tirx_mlir.compile(ir_text, target="aws/trn1/trn1.2xlarge")
    art.ir, art.lowered        # tile-level input, IR after the pipeline (xDSL modules)
    art.source, art.sources    # the primary printer's text; {printer: text} of every one
    art.binary, art.stats      # e.g. a cubin; registers/spills/shared memory, op counts
    y = art.run(x)             # on the default device for the target (else the interpreter)

`Artifact.run` takes the kernel's inputs (numpy or DLPack arrays, optionally followed by output
arrays to write), allocates every parameter on the device through its pool, copies in, builds
the parameters derived from the buffers (the host-built descriptors of the signature, e.g. TMA
tensor maps: the caller passes none of them), launches
with the kernel's declared grid, block, cluster and shared memory, copies the outputs back and
frees the buffers (so repeated runs reuse the same device memory). Outputs the caller does not
pass start as fresh memory (NaN / poison), as in `tirx_mlir.interpret`, so an element the
kernel never writes shows. A parameter with a global layout is placed in memory of the layout's
span on the host side. Results come back as the kind of the first argument.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.runtime.arrays import NUMPY, from_host, to_host
from tirx_mlir.runtime.errors import LaunchError

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from tirx_mlir.runtime.device import Device
    from tirx_mlir.runtime.module import Function, Module
    from tirx_mlir.runtime.signature import KernelSignature, Param
    from tirx_mlir.runtime.toolchain import Build, Toolchain
    from tirx_mlir.target import Target


class Artifact:
    """A compiled module (see the module docstring)."""

    def __init__(self, *, ir: "ModuleOp", lowered_text: str, target: "Target",
                 pipeline: str, build: "Build", toolchain: "Toolchain", key: str | None,
                 cache_hit: bool, lowered: "ModuleOp | None" = None):
        self.ir = ir
        self.lowered_text = lowered_text
        self.target = target
        self.pipeline = pipeline
        self.sources = build.sources
        self.binary = build.binary
        self.stats = build.stats
        self.notes = build.notes
        self.primary = build.primary
        self.failed = build.failed
        self.toolchain = toolchain
        self.key = key
        self.cache_hit = cache_hit
        self._lowered = lowered
        self._modules: "weakref.WeakKeyDictionary[Device, Module]" = weakref.WeakKeyDictionary()

    @property
    def source(self) -> str | None:
        """The primary printer's output (NKI Python, CUDA C++...); raises the printer's error
        when it refused the lowered IR (None when the kind has no printer)."""
        if self.primary in self.failed:
            raise TirxError(f"no source: -t {self.primary} refused the lowered IR: "
                            f"{self.failed[self.primary]}",
                            hint="compile with the target's pipeline (pipeline=None) so the IR "
                                 "reaches the printer's level")
        return self.sources.get(self.primary) if self.primary else None

    @property
    def lowered(self) -> "ModuleOp":
        """The IR after the pipeline (parsed from the cache on first use after a hit)."""
        if self._lowered is None:
            from tirx_mlir.located_parser import parse_module

            self._lowered = parse_module(self.lowered_text, "<lowered>")
        return self._lowered

    @property
    def kernel_names(self) -> list[str]:
        from tirx_mlir.dialects.tirx.kernel import kernels

        return [k.kernel_name for k in kernels(self.lowered)]

    def signature(self, kernel: str | None = None) -> "KernelSignature":
        from tirx_mlir.interpreter.launch import find_kernel

        return self.toolchain.signature(find_kernel(self.lowered, kernel))

    def load(self, device: "Device | str | None" = None) -> "Module":
        """This artifact as a `Module` of ``device`` (loaded once per device)."""
        dev = resolve_device(device, self.target.kind_name)
        module = self._modules.get(dev)
        if module is None:
            module = self._modules[dev] = dev.load_module(self)
        return module

    def run(self, *arrays: Any, device: "Device | str | None" = None,
            kernel: str | None = None) -> Any:
        """Run a kernel on ``arrays``; returns its output (a tuple when it has several)."""
        module = self.load(device)
        fn = module.get_function(kernel) if kernel is not None else module.only_function()
        return run_function(fn, arrays)

    def __repr__(self) -> str:
        hit = ", cache hit" if self.cache_hit else ""
        return (f"<Artifact {', '.join('@' + n for n in self.kernel_names)} for "
                f"{self.target} ({', '.join(self.sources) or 'no source'}{hit})>")


def resolve_device(device: "Device | str | None", target_kind: str) -> "Device":
    from tirx_mlir.runtime.devices import default_device, get_device

    return default_device(target_kind) if device is None else get_device(device)


def run_function(fn: "Function", arrays: Sequence[Any]) -> Any:
    """Allocate, copy in, build the derived parameters (tensor maps over the buffers), launch
    with the declared configuration, copy out, free."""
    sig, dev = fn.signature, fn.device
    users = sig.user_params
    n_in = sig.user_inputs
    if not n_in <= len(arrays) <= len(users):
        described = ", ".join(sig.params[i].describe() for i in users)
        raise LaunchError(f"@{sig.name} takes {n_in} inputs and {len(users) - n_in} optional "
                          f"outputs ({described}), got {len(arrays)} arrays")
    for i, p in enumerate(sig.params):
        if p.by_value and p.derived is None:
            raise LaunchError(f"parameter {i} ({p.name}) of @{sig.name} is passed by value (a "
                              f"descriptor the host builds), which run() cannot make from an "
                              f"array", hint="build it and launch the function with "
                                             "Function.launch")
    hosts, kinds = [], []
    for k, value in enumerate(arrays):
        i = users[k]
        arr, kind = to_host(value, f"argument {k} ({sig.params[i].name}) of @{sig.name}")
        hosts.append(_checked(sig, i, arr, output=k >= n_in))
        kinds.append(kind)
    buffers: dict[int, Any] = {}
    try:
        for k, i in enumerate(users):
            p = sig.params[i]
            memory = _host_memory(p, hosts[k] if k < len(hosts) else None)
            buffers[i] = dev.alloc(shape=memory.shape, dtype=memory.dtype)
            dev.copy_h2d(buffers[i], memory)
        fn.launch_default(sig.build_arguments(buffers, dev))
        outs = [_logical(sig.params[i], dev.copy_d2h(buffers[i])) for i in users[n_in:]]
    finally:
        for buf in buffers.values():
            dev.free(buf)
    kind = kinds[0] if kinds else NUMPY
    results = []
    for k, out in enumerate(outs):
        given = n_in + k
        if given < len(arrays) and isinstance(arrays[given], np.ndarray):
            arrays[given][...] = out
            results.append(arrays[given])
        else:
            results.append(from_host(out, kinds[given] if given < len(kinds) else kind))
    return results[0] if len(results) == 1 else tuple(results)


def _checked(sig: "KernelSignature", i: int, arr: np.ndarray, output: bool) -> np.ndarray:
    from tirx_mlir.interpreter.runtime import dtype_name

    p = sig.params[i]
    what = "output" if output else "input"
    if arr.shape != p.shape or arr.dtype != p.dtype:
        raise LaunchError(f"{what} {p.name} of @{sig.name} is {list(arr.shape)} "
                          f"{dtype_name(arr.dtype)}; the parameter is {p.describe()}",
                          hint="convert it first (bf16/fp8 through ml_dtypes)")
    return arr


def _host_memory(p: "Param", logical: np.ndarray | None) -> np.ndarray:
    """The bytes to upload for a parameter: its logical array placed in memory of the layout's
    span, fresh memory (NaN / poison) where nothing is given."""
    from tirx_mlir.interpreter.runtime import alloc

    if p.placement is None:
        if logical is not None:
            return np.ascontiguousarray(logical)
        return alloc(p.shape, p.dtype, f"parameter {p.name}")
    memory = alloc((p.elements,), p.dtype, f"the memory of parameter {p.name}")
    if logical is not None:
        p.placement.place(logical, memory)
    return memory


def _logical(p: "Param", memory: np.ndarray) -> np.ndarray:
    if p.placement is None:
        return memory
    return np.ascontiguousarray(p.placement.logical_view(memory))
