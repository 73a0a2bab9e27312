"""One check of a Trainium kernel at every stage it passes through:

    numpy reference == interpreter on the tile-level IR == interpreter after each pass of the
    trn pipeline == after allocation on one shared SBUF/PSUM == printed NKI (both APIs) run on
    the numpy stand-in (tests/tirx_testing/nki_mock.py), the last bit for bit against the
    interpreter on the lowered IR (`assert_printed_matches` says where rounding may differ).
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Sequence

import numpy as np
from tirx_testing.nki_mock import run_kernel_logical
from tirx_testing.trn_lowering import assert_close, random_inputs, run

from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.interpreter.launch import find_kernel
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

APIS = ("current", "legacy")


def check_every_stage(text: str, reference: Callable[..., Sequence[np.ndarray]], *,
                      rtol: float = 1e-6, atol: float = 1e-6, seed: int = 0,
                      where: str = "<kernel>", **pipeline_options):
    """Run the check of the module docstring on random inputs; returns the lowered module."""
    module = parse_module(text, where)
    module.verify()
    inputs = random_inputs(module, seed)
    expected = reference(*inputs)
    tile_level = run(module, inputs)
    for out, ref in zip(tile_level, expected, strict=True):
        assert_close(out, ref, rtol, atol, f"{where}: tile level vs numpy")
    shots = get_pipeline("trn", **pipeline_options).snapshots(module)
    for stage, snapshot in shots:
        for out, ref in zip(run(snapshot, inputs), expected, strict=True):
            assert_close(out, ref, rtol, atol, f"{where}: after {stage} vs numpy")
    final = shots[-1][1]
    lowered = run(final, inputs)
    for out, ref in zip(run(final, inputs, physical=True), expected, strict=True):
        assert_close(out, ref, rtol, atol, f"{where}: shared SBUF/PSUM vs numpy")
    kernel = find_kernel(final)
    for api in APIS:
        source = emit_nki(final, api)
        got = run_kernel_logical(source, api, kernel, inputs)
        assert_printed_matches(got, lowered, source, api, f"{where}: printed ({api}) vs lowered")
    return final


def assert_printed_matches(got, lowered, source: str, api: str, where: str) -> None:
    """The printed kernel's outputs are the lowered IR's, bit for bit; except that legacy NKI
    with guards (``mask=``) multiplies a guarded tile at its full size where the lowered IR
    multiplies the guarded rows or columns only (what lies past the guard is unspecified,
    docs/trn.md), and BLAS picks its kernel, so the order of an fp32 sum, by the matrices'
    shapes and the CPU: there the two agree to the rounding of a sum."""
    shape_dependent_sums = api == "legacy" and "mask=" in source and "nc_matmul(" in source
    for g, low in zip(got, lowered, strict=True):
        if shape_dependent_sums:
            np.testing.assert_allclose(g, low, rtol=1e-5, atol=1e-4, err_msg=where)
        else:
            np.testing.assert_array_equal(g, low, err_msg=where)


def executed_nki_ops(module) -> Counter:
    """How many times each nki instruction runs: every static instance times the trip counts
    of the ``scf.for`` loops around it (constant bounds)."""
    from xdsl.dialects import scf

    from tirx_mlir.dialects.tirx.access import constant_value

    counts: Counter = Counter()
    for op in module.walk():
        if not op.name.startswith("nki."):
            continue
        trips, parent = 1, op.parent_op()
        while parent is not None:
            if isinstance(parent, scf.ForOp):
                lb, ub, step = (constant_value(v) for v in (parent.lb, parent.ub, parent.step))
                assert None not in (lb, ub, step), "a loop without constant bounds"
                trips *= max(0, -(-(ub - lb) // step))
            parent = parent.parent_op()
        counts[op.name] += trips
    return counts
