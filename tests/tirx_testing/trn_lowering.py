"""Shared helpers of the trn lowering tests: parsing, running at every pipeline stage, small
kernels around one tile op, and listing the nki instructions a kernel lowers to."""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

import tirx_mlir  # noqa: F401  (autoloads the trn backend)
from tirx_mlir.backends import load
from tirx_mlir.located_parser import parse_module
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.interpreter.launch import buffer_params, find_kernel, random_array
from tirx_mlir.pipelines import get_pipeline
from tirx_testing import ir_text

load("trn")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "trn")
TARGET = "aws/trn1/trn1.2xlarge"


def example_path(name: str) -> str:
    return os.path.join(EXAMPLES, f"{name}.mlir")


def example_names() -> list[str]:
    return sorted(f[:-5] for f in os.listdir(EXAMPLES) if f.endswith(".mlir"))


def parse_file(path: str):
    with open(path) as f:
        return parse_module(f.read(), path)


def random_inputs(module, seed: int = 0) -> list[np.ndarray]:
    kernel = find_kernel(module)
    rng = np.random.default_rng(seed)
    return [random_array(t, rng) for _, t in buffer_params(kernel)[:kernel.n_inputs]]


def run(module, inputs: Sequence[np.ndarray], *, physical: bool = False) -> tuple:
    """Outputs of the module's kernel on ``inputs`` (the reference interpreter, or with every
    addressed on-chip buffer in one shared SBUF/PSUM)."""
    interp = None
    if physical:
        from tirx_mlir.backends.trn.memory import physical_interpreter

        interp = physical_interpreter(module)
    return KernelRunner(module, interpreter=interp)(*inputs)


def lower(module, **options):
    """Run the trn pipeline in place and return the module."""
    get_pipeline("trn", **options).apply(module)
    return module


def kernel_text(body: str, params: dict[str, str], outs: dict[str, str] | None = None,
                target: str = TARGET) -> str:
    """A one-CTA kernel around ``body`` (parameter name -> buffer type) for a trn target."""
    return ir_text.kernel_text(body, params, outs, target=target)


def nki_ops(module) -> list[str]:
    """Names of the nki instructions in the module, in program order (static count)."""
    return [op.name for op in module.walk() if op.name.startswith("nki.")]


def dispatch_only(module, target: str = TARGET):
    """Default layouts and tile dispatch only (the logical-view stage)."""
    from tirx_mlir.backends.trn.transforms.default_layout import TrnDefaultLayoutPass
    from tirx_mlir.located_parser import make_context
    from tirx_mlir.transforms.tile_dispatch import TileDispatchPass

    ctx = make_context()
    TrnDefaultLayoutPass().apply(ctx, module)
    TileDispatchPass(target=target).apply(ctx, module)
    module.verify()
    return module


def assert_close(actual, expected, rtol: float, atol: float, what: str = "") -> None:
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    assert actual.shape == expected.shape, what
    assert not np.isnan(actual).any(), f"{what}: NaN in the output (unwritten memory?)"
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=what)
