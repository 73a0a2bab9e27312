"""The two NKI printers accept the same kernels: every Trainium example and every lowered kernel
of the dispatch-variant tests prints with ``-t nki`` and with ``-t nki-legacy``; and reductions
over several axes (legacy ``tensor_reduce`` with a destination of lower rank) print, run on the
stand-in and give what numpy gives."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from tirx_testing.trn_every_stage import check_every_stage
from tirx_testing.trn_lowering import example_names, example_path, kernel_text, lower, parse_file
from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.located_parser import parse_module

sys.path.insert(0, str(Path(__file__).parents[1] / "dispatch"))
from test_trn_dispatch_variants import CASES, build  # noqa: E402

F32 = np.float32


def _reduce_kernel(src: str, dst: str, axes: str, op: str = "sum") -> str:
    body = (f"  %x = tirx.alloc : !tirx.buffer<{src}xf32, trn.sbuf>\n"
            f"  %r = tirx.alloc : !tirx.buffer<{dst}xf32, trn.sbuf>\n"
            f"  tirx.copy %x, %X : !tirx.buffer<{src}xf32, trn.sbuf>, "
            f"!tirx.buffer<{src}xf32, global>\n"
            f"  tirx.{op} %r, %x axes [{axes}] : !tirx.buffer<{dst}xf32, trn.sbuf>, "
            f"!tirx.buffer<{src}xf32, trn.sbuf>\n"
            f"  tirx.copy %R, %r : !tirx.buffer<{dst}xf32, global>, "
            f"!tirx.buffer<{dst}xf32, trn.sbuf>")
    return kernel_text(body, {"X": f"!tirx.buffer<{src}xf32, global>"},
                       {"R": f"!tirx.buffer<{dst}xf32, global>"})


MULTI_AXIS = {
    "sum_two_axes_to_column": ("128x4x64", "128x1", "1, 2", "sum",
                               lambda x: [x.sum(axis=(1, 2), dtype=np.float64)[:, None]]),
    "max_two_axes_keepdims": ("128x4x64", "128x1x1", "1, 2", "max",
                              lambda x: [x.max(axis=(1, 2), keepdims=True)]),
    "sum_two_axes_keep_one": ("128x3x4x16", "128x3", "2, 3", "sum",
                              lambda x: [x.sum(axis=(2, 3), dtype=np.float64)]),
    "min_three_axes": ("64x2x3x8", "64x1", "-3, -2, -1", "min",
                       lambda x: [x.min(axis=(1, 2, 3))[:, None]]),
}


def _kernels():
    kernels = {f"example {n}": (lambda n=n: parse_file(example_path(n))) for n in example_names()}
    kernels.update({f"variant {n}": (lambda c=c, n=n: parse_module(build(c), n))
                    for n, c in CASES.items()})
    kernels.update({f"reduce {n}": (lambda c=c, n=n: parse_module(_reduce_kernel(*c[:4]), n))
                    for n, c in MULTI_AXIS.items()})
    return kernels


KERNELS = _kernels()


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_both_printers_accept(name):
    module = lower(KERNELS[name]())
    for api in ("current", "legacy"):
        assert emit_nki(module, api).startswith(("import", "#")), f"{name} ({api})"


@pytest.mark.parametrize("name", sorted(MULTI_AXIS))
def test_reduction_over_several_axes_runs(name):
    src, dst, axes, op, reference = MULTI_AXIS[name]
    printed = check_every_stage(_reduce_kernel(src, dst, axes, op), reference, rtol=1e-5,
                                atol=1e-4, name=name)
    assert "nisa.tensor_reduce(" in printed["legacy"]


NKI_REDUCE = """
tirx.kernel @k(%X: !tirx.buffer<128x512xf32, global>) -> (%R: !tirx.buffer<128x4xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %r = tirx.alloc : !tirx.buffer<128x4xf32, trn.sbuf>
  nki.load %x, %X : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  %xv = tirx.reshape %x : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x4x2x64xf32, trn.sbuf>
  %rv = DST
  nki.tensor_reduce %rv, %xv op add axes [2, 3] : !tirx.buffer<128x2x2xf32, trn.sbuf>, !tirx.buffer<128x4x2x64xf32, trn.sbuf>
  nki.store %R, %r : !tirx.buffer<128x4xf32, global>, !tirx.buffer<128x4xf32, trn.sbuf>
  tirx.return
}
"""
RESHAPED = ("tirx.reshape %r : !tirx.buffer<128x4xf32, trn.sbuf> -> "
            "!tirx.buffer<128x2x2xf32, trn.sbuf>")
TRANSPOSED = ("tirx.transpose %rr [0, 2, 1] : !tirx.buffer<128x2x2xf32, trn.sbuf> -> "
              "!tirx.buffer<128x2x2xf32, trn.sbuf>")


def test_legacy_reduction_into_a_reshaped_destination_runs():
    """nki-level IR may reduce [128, 4, 2, 64] over two axes into a [128, 2, 2] view of a
    [128, 4] tile (the verifier counts elements): the contiguous view dims share one arange."""
    from tirx_testing.nki_mock import run_kernel_logical
    from tirx_mlir.interpreter import KernelRunner
    from tirx_mlir.interpreter.launch import find_kernel

    module = parse_module(NKI_REDUCE.replace("DST", RESHAPED), "reshaped")
    x = np.random.default_rng(1).standard_normal((128, 512)).astype(F32)
    (expected,) = KernelRunner(module)(x)
    np.testing.assert_allclose(expected, x.reshape(128, 4, 128).sum(axis=2), rtol=1e-5,
                               atol=1e-4)
    for api in ("current", "legacy"):
        (got,) = run_kernel_logical(emit_nki(module, api), api, find_kernel(module), [x])
        np.testing.assert_array_equal(got, expected, err_msg=api)


def test_legacy_refuses_a_destination_it_cannot_index():
    """A transposed [128, 2, 2] destination does not walk its tile contiguously: legacy
    indexing cannot express it, a located error rather than wrong code."""
    text = NKI_REDUCE.replace("%rv = DST", f"%rr = {RESHAPED}\n  %rv = {TRANSPOSED}")
    module = parse_module(text, "transposed")
    emit_nki(module, "current")
    with pytest.raises(Exception, match=r"keeps the source's dims \[4\], which dst .* does "
                                        r"not lay out contiguously"):
        emit_nki(module, "legacy")
