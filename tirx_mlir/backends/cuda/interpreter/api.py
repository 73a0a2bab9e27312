"""The SIMT interpreter from Python, with its options and what a run leaves.

    from tirx_mlir.backends.cuda.interpreter import simulate
    run = simulate(ir_text, "vector_add", a, b, racecheck=True)
    run.outputs             # the kernel's outputs (PE 0's)
    run.stats               # SimtStats: thread-instructions, per-op barriers, bank conflicts...
    run.outputs_per_pe      # with pes=N, every PE's outputs

``tirx_mlir.interpret`` and ``KernelRunner`` run CUDA-level kernels too (the core hands them to
this interpreter); `simulate` adds the SIMT options and returns the statistics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tirx_mlir.backends.cuda.interpreter.stats import SimtStats


@dataclass
class Simulation:
    outputs: tuple[np.ndarray, ...]
    stats: SimtStats
    outputs_per_pe: list[tuple[np.ndarray, ...]]


def simulate(module_or_text, kernel_name: str | None = None, *arrays: Any,
             name: str = "<input>", max_steps: int | None = None,
             **options: Any) -> Simulation:
    """Run a CUDA-level kernel on numpy arrays with SIMT ``options`` (``pes``, ``racecheck``,
    ``dynamic_shared_bytes``, ``max_wave_lanes``...)."""
    from tirx_mlir.backends.cuda.interpreter import executor
    from tirx_mlir.interpreter import KernelRunner, verify_module

    if isinstance(module_or_text, str):
        from tirx_mlir.located_parser import parse_module

        module = parse_module(module_or_text, name)
    else:
        module = module_or_text
    verify_module(module)
    runner = KernelRunner(module, kernel_name, max_steps=max_steps)
    executor.configure(runner.interpreter, **options)
    outputs = runner(*arrays)
    run = executor.last_run(runner.interpreter)
    if run is None:
        from tirx_mlir.diagnostics import TirxError

        raise TirxError(f"@{runner.kernel.kernel_name} is not a CUDA-level kernel (it uses no "
                        f"cuda, ptx or nvshmem op); run it with tirx_mlir.interpret",
                        runner.kernel)
    return Simulation(tuple(outputs), run.stats, run.outputs_per_pe)
