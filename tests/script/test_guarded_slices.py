"""Guarded slices in the Python front end: ``X[i * 128 : min((i + 1) * 128, n)]`` (the end of a
ragged last tile) and ``Tx.ds(start, size, max=...)`` build a tirx.slice whose size is an index
value, bounded by the static maximum its type has; misuse is a located ScriptError."""

from __future__ import annotations

import runpy
import numpy as np
import pytest

from tirx_mlir import script as Tx
from tirx_mlir.dialects.tirx import SliceOp
from tirx_mlir.script.builder import ScriptError

TRN = "aws/trn1/trn1.2xlarge"


@Tx.kernel(target=TRN)
def plus_one(X: Tx.Buffer[(1000, 64), "f32"], Y: Tx.Out[(1000, 64), "f32"]):
    t = Tx.alloc((128, 64), scope="trn.sbuf")
    for i in Tx.serial(0, 8):
        rows = min(128, 1000 - i * 128)
        tile = t[0:rows]
        Tx.copy(tile, X[i * 128 : min((i + 1) * 128, 1000)])
        Tx.add(tile, tile, 1.0)
        Tx.copy(Y[Tx.ds(i * 128, rows), :], tile)


def test_a_min_at_the_end_of_a_slice_is_a_guard_of_its_constant_span():
    slices = [op for op in plus_one.ir.walk() if isinstance(op, SliceOp)]
    assert len(slices) == 3
    for op in slices:
        assert op.sizes() == (128, 64)  # the maximum: the view's type
        assert list(op.guards()) == [0]


def test_a_guarded_kernel_runs_through_the_trn_pipeline():
    x = np.random.default_rng(0).random((1000, 64), dtype=np.float32)
    np.testing.assert_array_equal(plus_one(x), x + np.float32(1))


def test_a_guard_without_a_known_maximum_is_an_error_at_the_line():
    with pytest.raises(ScriptError, match=r"needs its static maximum: Tx.ds\(start, size, "
                                          r"max=128\)"):
        @Tx.kernel(target=TRN)
        def bad(X: Tx.Buffer[(1000, 64), "f32"], Y: Tx.Out[(1000, 64), "f32"]):
            for i in Tx.serial(0, 8):
                Tx.copy(Y[Tx.ds(0, 1000 - i * 128), :], X[0:128, :])

        bad.ir  # noqa: B018 - building the IR reports the error


def test_min_and_max_of_plain_ints_stay_python():
    @Tx.kernel(target=TRN)
    def sized(X: Tx.Buffer[(256, 64), "f32"], Y: Tx.Out[(256, 64), "f32"]):
        t = Tx.alloc((min(128, 512), max(32, 64)), scope="trn.sbuf")
        Tx.copy(t, X[0:128, :])
        Tx.copy(Y[0:128, :], t)

    alloc = next(op for op in sized.ir.walk() if op.name == "tirx.alloc")
    assert alloc.result.type.get_shape() == (128, 64)


@pytest.mark.parametrize("size,maximum,message", [
    ("2.5", "None", r"Tx.ds: size must be an int or an index value, got 2.5"),
    ("rows", "1.5", r"Tx.ds: max must be an int or an index value, got 1.5"),
    ("rows", "-4", r"Tx.ds: max must be positive"),
    ("5", "2", r"Tx.ds: the size 5 exceeds max=2"),
])
def test_a_size_or_maximum_that_is_no_whole_positive_number_is_an_error_at_the_line(
        size, maximum, message, tmp_path):
    """A float is never truncated into a size (``Tx.ds(0, 2.5)`` is no 2-row view)."""
    source = ("from tirx_mlir import script as Tx\n"
              "TRN = 'aws/trn1/trn1.2xlarge'\n"
              "@Tx.kernel(target=TRN)\n"
              "def bad(X: Tx.Buffer[(1000, 64), 'f32'], Y: Tx.Out[(1000, 64), 'f32']):\n"
              "    for i in Tx.serial(0, 8):\n"
              "        rows = min(128, 1000 - i * 128)\n"
              f"        Tx.copy(Y[Tx.ds(0, {size}, max={maximum}), :], X[0:2, :])\n")
    path = tmp_path / "bad.py"
    path.write_text(source)
    scope = runpy.run_path(str(path))
    with pytest.raises(ScriptError, match=message) as info:
        scope["bad"].ir  # noqa: B018 - building the IR reports the error
    assert info.value.where.line == 7
