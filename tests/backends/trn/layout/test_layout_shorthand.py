"""TIRx's Trainium layout shorthands (backends/trn/layout/shorthand.py): ``"PF"``, ``"FP"``,
``"FPF"`` and PSUM layouts in banks expand, for the buffer's shape, to the layouts TIRx's
``trainium_layout`` / ``to_psum_layout`` give; the IR prints the full layout; a kernel written
with them computes what numpy computes at every stage and in the printed NKI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tirx_mlir  # noqa: F401  (loads the trn backend)
from tirx_testing.trn_every_stage import check_every_stage
from tirx_mlir.backends.trn.layout.layouts import check_trn_layout, default_layout
from tirx_mlir.backends.trn.layout.shorthand import psum_shorthand, sbuf_shorthand
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.layout import LayoutError
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.located_parser import parse_module
from tirx_mlir.script.builder import buffer_type

EXPANSIONS = [
    ("PF", (256, 2048), "S[(2,128,2048):(2048@F,1@P,1@F)]"),
    ("PF", (128, 512), "S[(128,512):(1@P,1@F)]"),
    ("FP", (64, 128), "S[(64,128):(1@F,1@P)]"),
    ("FP", (512, 256), "S[(512,2,128):(2@F,1@F,1@P)]"),
    ("FPF", (4, 128, 64), "S[(4,128,64):(64@F,1@P,1@F)]"),
    ("PPF", (8, 16, 32), "S[(8,16,32):(16@P,1@P,1@F)]"),
    ("FFP", (2, 3, 100), "S[(2,3,100):(3@F,1@F,1@P)]"),
]


@pytest.mark.parametrize("annotation,shape,expected", EXPANSIONS)
def test_sbuf_expansion(annotation, shape, expected):
    layout = sbuf_shorthand(annotation, shape)
    assert str(layout) == expected
    check_trn_layout(BufferType(shape, dtypes.element_type("f32"), "trn.sbuf", layout))


def test_pf_is_the_default_layout():
    for shape in [(256, 2048), (128, 7), (384, 4, 8)]:
        assert sbuf_shorthand("P" + "F" * (len(shape) - 1), shape) == default_layout(shape)


@pytest.mark.parametrize("annotation,shape,dtype,expected", [
    ("PF", (128, 2048), "f32", "S[(128,4,512):(1@P,1@Bank,1@F)]"),
    ("PF", (128, 512), "f32", "S[(128,512):(1@P,1@F)]"),
    ("PF", (128, 2048), "bf16", "S[(128,2,1024):(1@P,1@Bank,1@F)]"),
    ("PFF", (128, 4, 512), "f32", "S[(128,4,512):(1@P,1@Bank,1@F)]"),
    ("FP", (4, 128), "f32", "S[(4,128):(1@F,1@P)]"),
])
def test_psum_expansion_in_banks(annotation, shape, dtype, expected):
    elem = dtypes.element_type(dtype)
    layout = psum_shorthand(annotation, shape, elem)
    assert str(layout) == expected
    folded = check_trn_layout(BufferType(shape, elem, "trn.psum", layout)).apply_array(shape)
    sbuf = sbuf_shorthand(annotation, shape).apply_array(shape)
    for axis in ("P", "F"):  # a bank is 2 KiB of F: the same (P, F) place for every element
        np.testing.assert_array_equal(folded[axis], sbuf[axis])


@pytest.mark.parametrize("annotation,shape,message", [
    ("PF", (300, 4), "neither at most 128 nor a multiple of it"),
    ("PPF", (64, 4, 8), "need 256 partitions, more than 128"),
    ("FF", (4, 8), "puts no dim on the partitions"),
    ("PFF", (4, 8), r"must give each of the 2 dims of \[4, 8\] one axis"),
    ("PX", (4, 8), "one axis, P or F"),
])
def test_bad_shorthands(annotation, shape, message):
    with pytest.raises(LayoutError, match=message):
        sbuf_shorthand(annotation, shape)


def test_buffer_types_print_the_full_layout():
    text = ('tirx.kernel @k() grid [1] threads [1] {\n'
            '  %a = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf, "PF">\n'
            '  %d = tirx.alloc : !tirx.buffer<128x2048xf32, trn.psum, "PF">\n'
            '  tirx.return\n}\n')
    printed = str(parse_module(text, "k.mlir"))
    assert "!tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>" in printed
    assert "!tirx.buffer<128x2048xf32, trn.psum, S[(128,4,512):(1@P,1@Bank,1@F)]>" in printed
    assert '"PF"' not in printed


def test_a_scope_without_shorthands_is_a_located_error():
    text = ('tirx.kernel @k() grid [1] threads [1] {\n'
            '  %a = tirx.alloc : !tirx.buffer<4x8xf32, shared, "PF">\n  tirx.return\n}\n')
    with pytest.raises(Exception, match=r"memory scope shared has no layout shorthands"):
        parse_module(text, "k.mlir")


def test_python_front_end_takes_shorthands():
    assert str(buffer_type((256, 64), "f32", "trn.sbuf", "PF").get_layout()) == \
        "S[(2,128,64):(64@F,1@P,1@F)]"
    assert str(buffer_type((128, 2048), "f32", "trn.psum", "PF").get_layout()) == \
        "S[(128,4,512):(1@P,1@Bank,1@F)]"


KERNEL = Path(__file__).with_name("shorthand_kernel.mlir")


def test_kernel_written_with_shorthands_runs():
    def reference(x, w):
        e = np.exp(x.astype(np.float64))
        return [e, e[:128], w.astype(np.float64) * 2]  # a layout places, it does not permute

    printed = check_every_stage(KERNEL.read_text(), reference, rtol=2e-6, atol=1e-6,
                                name="shorthands")
    assert "nisa.nc_matmul" in printed["current"]  # "FP" is the transposed tile
