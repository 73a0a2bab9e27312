"""Tile-level kernels (examples/trn) through the trn pipeline and both NKI printers: the printed
Python, run on the numpy NKI stand-in, gives bit for bit what the interpreter gives on the
lowered IR (to rounding where `assert_printed_matches` says so), and matches the interpreter on
the tile-level IR."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from tirx_testing.nki_mock import run_kernel_logical
from tirx_testing.trn import parse
from tirx_testing.trn_stages import assert_printed_matches

import tirx_mlir
from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.interpreter.launch import find_kernel, random_array

EXAMPLES = pathlib.Path(__file__).parents[4] / "examples" / "trn"
LARGE = {"matmul_bf16_1024x2048x4096.mlir", "nki_matmul_1.mlir"}  # covered by tests/filecheck/backends/trn/printers/nki.mlir
CASES = sorted(p.name for p in EXAMPLES.glob("*.mlir") if p.name not in LARGE)


@pytest.mark.parametrize("example", CASES)
def test_example_prints_and_runs(example):
    module = parse((EXAMPLES / example).read_text())
    runner = KernelRunner(module)
    name = runner.kernel.kernel_name
    rng = np.random.default_rng(0)
    inputs = [random_array(t, rng) for _, t in runner.params[:runner.n_inputs]]
    tile_level = runner(*inputs)
    tirx_mlir.get_pipeline("trn").apply(module)
    lowered = KernelRunner(module, name)(*inputs)
    kernel = find_kernel(module, name)
    for api in ("current", "legacy"):
        source = emit_nki(module, api)
        got = run_kernel_logical(source, api, kernel, inputs)
        assert_printed_matches(got, lowered, source, api, f"{example} ({api})")
        for g, tile in zip(got, tile_level, strict=True):
            np.testing.assert_allclose(g.astype(np.float64), tile.astype(np.float64),
                                       rtol=1e-2, atol=1e-2, err_msg=f"{example} ({api})")


def test_there_are_examples():
    assert len(CASES) >= 10
