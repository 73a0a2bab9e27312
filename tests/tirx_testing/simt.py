"""Running small CUDA-level kernels on the SIMT interpreter in tests."""

from __future__ import annotations

import numpy as np

import tirx_mlir  # noqa: F401  (autoloads the cuda backend)


def cuda_kernel(signature: str, body: str, launch: str = "grid [1] threads [32]",
                target: str = "cuda -arch=sm_90a", attrs: str = "") -> str:
    """The text of ``tirx.kernel @k<signature> <launch> target ... { body; tirx.return }``."""
    return (f'tirx.kernel @k{signature} {launch} target "{target}"{attrs} {{\n{body}\n'
            f'  tirx.return\n}}\n')


def run_simt(text: str, *arrays: np.ndarray, entry: str | None = None, **options):
    """(outputs, the run's `Simulation`) of the kernel in ``text`` on ``arrays``; ``options``
    are SIMT options (``pes``, ``racecheck``...)."""
    from tirx_mlir.backends.cuda.interpreter import simulate

    run = simulate(text, entry, *arrays, name="<test>", **options)
    return run.outputs, run
