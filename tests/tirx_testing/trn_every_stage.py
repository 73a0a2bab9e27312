"""The numeric check of one trn kernel at every point of its flow: numpy == the interpreter on the
tile-level IR == the interpreter after each pass of the trn pipeline == the allocated kernel on
one shared SBUF/PSUM == the printed NKI (both APIs) on the numpy stand-in."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from tirx_testing.nki_mock import run_kernel_logical
from tirx_testing.trn_lowering import assert_close, random_inputs, run
from tirx_testing.trn_stages import assert_printed_matches
from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.interpreter.launch import find_kernel
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline


def check_every_stage(text: str, reference: Callable[..., Sequence[np.ndarray]], *,
                      rtol: float = 1e-5, atol: float = 1e-5, name: str = "kernel",
                      seed: int = 0) -> dict[str, str]:
    """Run the check; returns the printed NKI of both APIs (``{"current": ..., "legacy": ...}``)
    for the caller's structural assertions."""
    module = parse_module(text, name)
    module.verify()
    inputs = random_inputs(module, seed)
    expected = [np.asarray(r) for r in reference(*inputs)]
    for out, ref in zip(run(module, inputs), expected, strict=True):
        assert_close(out, ref, rtol, atol, f"{name}: tile level vs numpy")
    shots = get_pipeline("trn").snapshots(module)
    for stage, snapshot in shots:
        for out, ref in zip(run(snapshot, inputs), expected, strict=True):
            assert_close(out, ref, rtol, atol, f"{name}: after {stage} vs numpy")
    final = shots[-1][1]
    lowered = run(final, inputs, physical=True)
    for out, ref in zip(lowered, expected, strict=True):
        assert_close(out, ref, rtol, atol, f"{name}: allocated, shared SBUF/PSUM vs numpy")
    kernel = find_kernel(final)
    printed = {}
    for api in ("current", "legacy"):
        printed[api] = emit_nki(final, api)
        got = run_kernel_logical(printed[api], api, kernel, inputs)
        assert_printed_matches(got, lowered, printed[api], api, f"{name}: printed NKI ({api})")
    return printed
