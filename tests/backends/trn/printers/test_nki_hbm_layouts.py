"""HBM tensors with layouts (transposed, strided, padded) as kernel inputs and outputs: the
arguments are logical tensors and the layout is how they lie in HBM, so

    numpy == tile-level interpreter == interpreter after every pass of the trn pipeline
          == printed NKI (both APIs) run on the stand-in, given the flat HBM arrays

and the printed kernel indexes each flat array by the layout's strides. A layout NKI cannot
address (not one stride per dim) is a located error at the kernel, naming the parameter."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.nki_mock import run_kernel_logical
from tirx_testing.trn import parse, print_ir

import tirx_mlir
from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.backends.trn.printers.check import check_source
from tirx_mlir.diagnostics import TirxError, format_location
from tirx_mlir.interpreter import KernelRunner

TARGET = "aws/trn1/trn1.2xlarge"
COL_MAJOR = "S[(128,512):(1,128)]"
ROW_PITCH = "S[(128,512):(640,1)]"          # rows 640 elements apart: a strided slice of HBM
PADDED = "S[(128,512):(520,1)] + 8"         # 8 elements of head padding, rows padded to 520
LAYOUTS = {"row-major": None, "col-major": COL_MAJOR, "row-pitch": ROW_PITCH, "padded": PADDED}


def hbm(shape: str, layout: str | None) -> str:
    return f"!tirx.buffer<{shape}xf32, global{', ' + layout if layout else ''}>"


def add_kernel(a: str | None, b: str | None, c: str | None) -> str:
    """C = A + B through SBUF, each HBM tensor with its own layout."""
    A, B, C = hbm("128x512", a), hbm("128x512", b), hbm("128x512", c)
    S = "!tirx.buffer<128x512xf32, trn.sbuf>"
    return f'''tirx.kernel @add(%A: {A}, %B: {B}) -> (%C: {C}) grid [1] threads [1] target "{TARGET}" {{
  %x = tirx.alloc : {S}
  %y = tirx.alloc : {S}
  tirx.copy %x, %A : {S}, {A}
  tirx.copy %y, %B : {S}, {B}
  tirx.add %x, %x, %y : {S}, {S}, {S}
  tirx.copy %C, %x : {C}, {S}
  tirx.return
}}
'''


def tiled_kernel(a: str, c: str) -> str:
    """C = 2 * A over two 128-row tiles of a 256x512 tensor: slices with a loop offset."""
    A, C = hbm("256x512", a), hbm("256x512", c)
    T = "!tirx.buffer<128x512xf32, global>"
    S = "!tirx.buffer<128x512xf32, trn.sbuf>"
    return f'''tirx.kernel @tiled(%A: {A}) -> (%C: {C}) grid [1] threads [1] target "{TARGET}" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %two = arith.constant 2.0 : f32
  %x = tirx.alloc : {S}
  scf.for %i = %c0 to %c2 step %c1 {{
    %row = arith.muli %i, %c128 : index
    %a = tirx.slice %A[%row, %c0] [128, 512] : {A} -> {T}
    %o = tirx.slice %C[%row, %c0] [128, 512] : {C} -> {T}
    tirx.copy %x, %a : {S}, {T}
    tirx.mul %x, %x, %two : {S}, {S}, f32
    tirx.copy %o, %x : {T}, {S}
  }}
  tirx.return
}}
'''


def check_everywhere(text: str, inputs: list[np.ndarray], expected: list[np.ndarray]) -> dict:
    """numpy == tile level == after each pass == both printed APIs; returns the sources."""
    module = parse(text)
    name = module.body.block.first_op.kernel_name  # type: ignore[union-attr]
    for got, want in zip(KernelRunner(module)(*inputs), expected, strict=True):
        np.testing.assert_array_equal(got, want, err_msg="tile level")

    def after(pass_, mod):
        for got, want in zip(KernelRunner(mod, name)(*inputs), expected, strict=True):
            np.testing.assert_array_equal(got, want, err_msg=f"after {pass_.name}")

    tirx_mlir.get_pipeline("trn").apply(module, callback=after)
    kernel = module.body.block.first_op
    sources = {}
    for api in ("current", "legacy"):
        source = emit_nki(module, api)
        assert check_source(source, api) == []
        got = run_kernel_logical(source, api, kernel, inputs)
        for g, want in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, want, err_msg=api)
        sources[api] = source
    return sources


@pytest.mark.parametrize("a,b,c", [("col-major", "row-major", "row-major"),
                                   ("row-major", "row-pitch", "col-major"),
                                   ("padded", "col-major", "row-pitch"),
                                   ("row-pitch", "padded", "padded")])
def test_add_with_hbm_layouts(a, b, c):
    rng = np.random.default_rng(1)
    x, y = (rng.standard_normal((128, 512), dtype=np.float32) for _ in range(2))
    check_everywhere(add_kernel(LAYOUTS[a], LAYOUTS[b], LAYOUTS[c]), [x, y], [x + y])


@pytest.mark.parametrize("a,c", [("S[(256,512):(1,256)]", "S[(256,512):(520,1)] + 8"),
                                 ("S[(256,512):(600,1)]", "S[(256,512):(1,256)]")])
def test_loop_over_tiles_of_laid_out_tensors(a, c):
    x = np.random.default_rng(2).standard_normal((256, 512), dtype=np.float32)
    sources = check_everywhere(tiled_kernel(a, c), [x], [x * np.float32(2)])
    if a.endswith("(1,256)]"):   # column-major input: tile i starts at element 128 * i
        assert "A.ap(pattern=[[1, 128], [256, 512]], offset=128 * i)" in sources["current"]
        assert "A[128 * i + i0 + 256 * i1]" in sources["legacy"]


def test_transposed_view_of_a_column_major_tensor_reads_contiguous_rows():
    A = hbm("512x128", "S[(512,128):(1,512)]")
    T = "!tirx.buffer<128x512xf32, global>"
    S = "!tirx.buffer<128x512xf32, trn.sbuf>"
    C = hbm("128x512", COL_MAJOR + " + 5")
    text = f'''tirx.kernel @tv(%A: {A}) -> (%C: {C}) grid [1] threads [1] target "{TARGET}" {{
  %x = tirx.alloc : {S}
  %t = tirx.transpose %A [1, 0] : {A} -> {T}
  tirx.copy %x, %t : {S}, {T}
  tirx.copy %C, %x : {C}, {S}
  tirx.return
}}
'''
    x = np.random.default_rng(4).standard_normal((512, 128), dtype=np.float32)
    sources = check_everywhere(text, [x], [x.T])
    assert "src=A.ap(pattern=[[512, 128], [1, 512]], offset=0)" in sources["current"]
    assert "nl.load(A[512 * i0 + i1])" in sources["legacy"]
    assert "nl.store(C[5 + i0 + 128 * i1], value=x[i0, i1])" in sources["legacy"]


def test_global_workspace_with_a_layout():
    """A global allocation with a layout is allocated as its span and indexed by it."""
    W = hbm("128x512", COL_MAJOR)
    G = hbm("128x512", None)
    S = "!tirx.buffer<128x512xf32, trn.sbuf>"
    text = f'''tirx.kernel @ws(%A: {G}) -> (%B: {G}) grid [1] threads [1] target "{TARGET}" {{
  %w = tirx.alloc : {W}
  %x = tirx.alloc : {S}
  %y = tirx.alloc : {S}
  tirx.copy %x, %A : {S}, {G}
  tirx.copy %w, %x : {W}, {S}
  tirx.copy %y, %w : {S}, {W}
  tirx.copy %B, %y : {G}, {S}
  tirx.return
}}
'''
    x = np.random.default_rng(3).standard_normal((128, 512), dtype=np.float32)
    sources = check_everywhere(text, [x], [x])
    assert "w = nl.ndarray((65536,), dtype=nl.float32, buffer=nl.hbm)" in sources["current"]
    assert "nl.store(w[i0 + 128 * i1], value=x[i0, i1])" in sources["legacy"]


def test_printed_kernel_says_how_to_pass_the_tensor():
    module = parse(add_kernel(COL_MAJOR, None, PADDED))
    tirx_mlir.get_pipeline("trn").apply(module)
    for api in ("current", "legacy"):
        source = emit_nki(module, api)
        assert (f"# A: [128, 512] laid out in HBM as {COL_MAJOR}: pass a flat array of 65536 "
                f"elements; [i0, i1] is at i0 + i1 * 128") in source
        assert "# B:" not in source  # row-major: the plain array
        assert "[i0, i1] is at 8 + i0 * 520 + i1" in source
    assert "C = nl.ndarray((66560,), dtype=nl.float32, buffer=nl.shared_hbm)" in \
        emit_nki(module, "current")


@pytest.mark.parametrize("layout,rule", [
    ("S[(128,4,128):(1,128,1024)]", "do not compose into one stride"),
    ("S[(128,512):(1,1)]", "puts two elements"),
    ("S[(128,512):(1@P,1@F)]", "uses axis P")])
def test_unaddressable_hbm_layout_is_an_error_at_the_parameter(layout, rule):
    """The kernel verifier states the rule (`global_layout.global_placement`) for every backend;
    the trn pipeline and the interpreter's launch refuse IR that skipped verification."""
    from xdsl.utils.exceptions import VerifyException

    text = add_kernel(layout, None, None)
    with pytest.raises(VerifyException, match=rf"parameter %A of @add: .*{rule}"):
        parse(text)
    with pytest.raises(TirxError) as info:
        tirx_mlir.get_pipeline("trn").apply(parse(text, verify=False), verify=False)
    assert format_location(info.value.op) == "test.mlir:1:1"  # the kernel header, which declares %A
    assert "parameter %A of @add" in str(info.value) and rule in str(info.value)
    with pytest.raises(TirxError) as info:
        KernelRunner(parse(text, verify=False))(np.zeros((128, 512), np.float32),
                                                np.zeros((128, 512), np.float32))
    assert "parameter %A" in str(info.value) and rule in str(info.value)


def test_printer_refuses_an_unaddressable_layout_it_is_given():
    """IR that skipped the pipeline's check and verification still gets a located printer error,
    not offsets."""
    module = parse(add_kernel(COL_MAJOR, None, None))
    tirx_mlir.get_pipeline("trn").apply(module)
    lowered = print_ir(module).replace(COL_MAJOR, "S[(128,4,128):(1,128,1024)]")
    for api in ("current", "legacy"):
        with pytest.raises(TirxError) as info:
            emit_nki(parse(lowered, verify=False), api)
        assert format_location(info.value.op) == "test.mlir:2:3"
        assert "parameter A: NKI cannot address" in str(info.value)
        assert "compose" in str(info.value)


def test_a_span_past_int64_is_a_located_error_not_a_number():
    text = add_kernel(COL_MAJOR + " + 9223372036854775000", None, None)
    module = parse(text)
    tirx_mlir.get_pipeline("trn").apply(module)
    for api in ("current", "legacy"):
        with pytest.raises(TirxError) as info:
            emit_nki(module, api)
        assert format_location(info.value.op) == "test.mlir:1:1"
        assert "parameter A: its layout spans 9223372036854840536 elements" in str(info.value)
    with pytest.raises(TirxError, match=r"the HBM memory of parameter %A of @add \(its layout spans"):
        KernelRunner(parse(text))(*[np.zeros((128, 512), np.float32)] * 2)
