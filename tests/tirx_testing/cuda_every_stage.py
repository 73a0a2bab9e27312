"""The check of one CUDA tile kernel at every point of its flow: numpy == the tile interpreter
== the interpreter after each pass of the ``cuda`` pipeline (the SIMT interpreter once the kernel
is dispatched) ; the printed CUDA C++ compiles with nvcc and the printed PTX assembles with
ptxas for the arch, with no spills, no local memory and no C75xx performance advisories."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import pytest

from tirx_testing import cuda_compile
from tirx_testing.trn_lowering import assert_close, random_inputs
from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.host_tensor_maps import bind_arguments
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx


def run(module, inputs: Sequence[np.ndarray]) -> tuple:
    """The kernel's outputs on ``inputs``, with the tensor maps a launch builds on the host
    (TMA variants add them as parameters: host_tensor_maps.bind_arguments)."""
    runner = KernelRunner(module)
    return runner(*bind_arguments(runner.kernel, inputs))


def lower(text: str, name: str = "kernel", **options):
    module = parse_module(text, name)
    get_pipeline("cuda", **options).apply(module)
    return module


def check_every_stage(text: str, reference: Callable[..., Sequence[np.ndarray]], *,
                      arch: str | None = None, rtol: float = 1e-5, atol: float = 1e-5,
                      name: str = "kernel", seed: int = 0, compile: bool = True,
                      inputs: Sequence[np.ndarray] | None = None, **options):
    """Run the check; returns the final module (for structural assertions)."""
    module = parse_module(text, name)
    module.verify()
    inputs = list(inputs) if inputs is not None else random_inputs(module, seed)
    expected = [np.asarray(r) for r in reference(*inputs)]
    for out, ref in zip(run(module, inputs), expected, strict=True):
        assert_close(out, ref, rtol, atol, f"{name}: tile level vs numpy")
    if arch is not None:
        options["arch"] = arch
    shots = get_pipeline("cuda", **options).snapshots(module)
    for stage, snapshot in shots:
        for out, ref in zip(run(snapshot, inputs), expected, strict=True):
            assert_close(out, ref, rtol, atol, f"{name}: after {stage} vs numpy")
    final = shots[-1][1]
    if compile:
        check_compiles(final, arch or "sm_80", name)
    return final


def check_compiles(module, arch: str, name: str = "kernel") -> None:
    """-t cuda compiles with nvcc (strict flags) and -t ptx assembles with ptxas, without
    spills, local memory or performance advisories. Without the toolchain (the ``cuda`` extra)
    the test is skipped here, after the interpreter checks, saying why."""
    for tool in ("nvcc", "ptxas"):
        if toolchain.find_tool(tool) is None:
            pytest.skip(toolchain.missing_reason(tool))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        built = cuda_compile.nvcc_cubins({name: emit_cuda(module)}, arch, out)
        assert built.returncode == 0, built.log
        assert not built.advisories, built.advisories
        ptx = out / f"{name}.ptx"
        ptx.write_text(emit_ptx(module))
        ptxas = toolchain.find_tool("ptxas")
        proc = subprocess.run([str(ptxas), f"-arch={arch}", "--warn-on-spills",
                               "--warn-on-local-memory-usage", "-Werror", "-v", str(ptx),
                               "-o", str(out / f"{name}.ptx.cubin")],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert not cuda_compile.ADVISORY.search(proc.stderr), proc.stderr
