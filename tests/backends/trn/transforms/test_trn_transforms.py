"""The Trainium transforms on their own: default layouts and layout checks, layout lowering to
physical tiles, the liveness-based allocator, the max-inst-size default, and the memory model
that checks allocations."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr, i64

from tirx_testing.trn_lowering import (assert_close, dispatch_only, example_path, kernel_text, lower,
                                  nki_ops, parse_file, random_inputs, run)
from tirx_mlir.backends.trn.transforms.allocate import TrnAllocatePass
from tirx_mlir.backends.trn.transforms.default_layout import TrnDefaultLayoutPass
from tirx_mlir.backends.trn.layout.layouts import default_layout
from tirx_mlir.backends.trn.transforms.lower_layout import TrnLowerLayoutPass
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx import AllocOp, SliceOp


def allocs(module) -> dict[str, AllocOp]:
    return {op.result.name_hint: op for op in module.walk() if isinstance(op, AllocOp)}


# --- trn-default-layout ------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, text", [
    ([128, 512], "S[(128,512):(1@P,1@F)]"),
    ([64], "S[64:1@P]"),
    ([256, 2048], "S[(2,128,2048):(2048@F,1@P,1@F)]"),
    ([128, 4, 512], "S[(128,4,512):(1@P,512@F,1@F)]"),
    ([384, 2, 3], "S[(3,128,2,3):(6@F,1@P,3@F,1@F)]"),
    ([300, 7], "S[(3,128,7):(7@F,1@P,1@F)]"),
    ([257, 64], "S[(3,128,64):(64@F,1@P,1@F)]"),
])
def test_default_layout(shape, text):
    assert str(default_layout(shape)) == text


@pytest.mark.parametrize("buffer, message", [
    ("!tirx.buffer<256x64xf32, trn.sbuf, S[(256,64):(1@P,1@F)]>", "spans 256 partitions"),
    ("!tirx.buffer<128x64xf32, trn.sbuf, S[(128,64):(1@laneid,1@F)]>", "not Trainium axes"),
    ("!tirx.buffer<128x64xf32, trn.sbuf, S[(128,64):(1@P,1@F)] + R[2:64@F]>", "replicated"),
    ("!tirx.buffer<128x64xf32, trn.sbuf, S[(128,64):(1@P,0@F)]>", r"same \(P, F\) coordinate"),
    ("!tirx.buffer<128x64xf32, trn.sbuf, S[(128,64):(1@P,1@Bank)]>", "only in trn.psum"),
])
def test_default_layout_rejects(buffer, message):
    module = parse_module(kernel_text(f"  %x = tirx.alloc : {buffer}", {}), "bad.mlir")
    with pytest.raises(PassError, match=message) as info:
        TrnDefaultLayoutPass().apply(make_context(), module)
    assert info.value.op.name == "tirx.alloc"


def test_default_layout_sets_layouts_and_keeps_explicit_ones():
    module = parse_file(example_path("transpose_copy"))
    TrnDefaultLayoutPass().apply(make_context(), module)
    layouts = {n: str(a.result.type.get_layout()) for n, a in allocs(module).items()}
    assert layouts == {"x": "S[(128,96):(1@P,1@F)]", "xt": "S[(128,96):(1@F,1@P)]"}


# --- trn-lower-layout --------------------------------------------------------------------------------


def test_lower_layout_makes_physical_tiles():
    module = dispatch_only(parse_file(example_path("softmax_256x2048")))
    TrnLowerLayoutPass().apply(make_context(), module)
    module.verify()
    shapes = {n: a.result.type.get_shape() for n, a in allocs(module).items()}
    assert shapes["x"] == (128, 4096) and shapes["m"] == (128, 2)
    for op in module.walk():
        for res in op.results:
            assert getattr(res.type, "get_layout", lambda: None)() is None


def test_lower_layout_maps_split_rows_to_free_offsets():
    """Rows 128..255 of the split-partition layout live in partitions 0..127 at F + 2048."""
    body = ("  %x = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf>\n"
            "  %v = tirx.slice %x[128, 512] [128, 512] : !tirx.buffer<256x2048xf32, trn.sbuf> -> "
            "!tirx.buffer<128x512xf32, trn.sbuf>\n"
            "  %z = arith.constant 0.0 : f32\n"
            "  nki.memset %v, %z : !tirx.buffer<128x512xf32, trn.sbuf>, f32")
    module = parse_module(kernel_text(body, {}))
    TrnDefaultLayoutPass().apply(make_context(), module)
    TrnLowerLayoutPass().apply(make_context(), module)
    module.verify()
    (view,) = [op for op in module.walk() if isinstance(op, SliceOp)]
    assert view.static_offsets.get_values() == (0, 2048 + 512)
    assert view.source.type.get_shape() == (128, 4096)


def test_lower_layout_rejects_a_view_across_partition_tiles():
    body = ("  %x = tirx.alloc : !tirx.buffer<256x512xf32, trn.sbuf>\n"
            "  %v = tirx.slice %x[64, 0] [128, 512] : !tirx.buffer<256x512xf32, trn.sbuf> -> "
            "!tirx.buffer<128x512xf32, trn.sbuf>\n"
            "  %z = arith.constant 0.0 : f32\n"
            "  nki.memset %v, %z : !tirx.buffer<128x512xf32, trn.sbuf>, f32")
    module = parse_module(kernel_text(body, {}), "bad.mlir")
    TrnDefaultLayoutPass().apply(make_context(), module)
    with pytest.raises(PassError, match="crosses a layout tile boundary") as info:
        TrnLowerLayoutPass().apply(make_context(), module)
    assert info.value.op.name == "nki.memset"


def test_lower_layout_gapped_free_view_is_padded_and_exact():
    """A view that walks two free dims with a gap between runs ([128, 2, 256] out of
    [128, 4, 512]) lowers to a split of a padded run; the interpreter agrees before and after."""
    t_big = "!tirx.buffer<128x4x512xf32, trn.sbuf>"
    t_gap = "!tirx.buffer<128x2x256xf32, trn.sbuf>"
    body = (f"  %x = tirx.alloc : {t_big}\n  %y = tirx.alloc : {t_gap}\n"
            f"  tirx.copy %x, %X : {t_big}, !tirx.buffer<128x4x512xf32, global>\n"
            f"  %v = tirx.slice %x[0, 2, 256] [128, 2, 256] : {t_big} -> {t_gap}\n"
            f"  nki.tensor_copy %y, %v : {t_gap}, {t_gap}\n"
            f"  tirx.copy %Y, %y : !tirx.buffer<128x2x256xf32, global>, {t_gap}")
    text = kernel_text(body, {"X": "!tirx.buffer<128x4x512xf32, global>"},
                       {"Y": "!tirx.buffer<128x2x256xf32, global>"})
    module = parse_module(text)
    inputs = random_inputs(module)
    (before,) = run(module, inputs)
    lower(module)
    assert allocs(module)["x"].result.type.get_shape() == (128, 2304)  # 2048 + 256 of padding
    (after,) = run(module, inputs, physical=True)
    np.testing.assert_array_equal(after, inputs[0][:, 2:, 256:])
    np.testing.assert_array_equal(before, after)


# --- trn-allocate ------------------------------------------------------------------------------------


def test_allocator_reuses_dead_memory():
    """row_reduce: the 4 partial sums die before the max result is first written, so they
    share its address; the input tile stays live throughout."""
    module = lower(parse_file(example_path("row_reduce")))
    addr = {n: a.attributes["trn.addr"].value.data for n, a in allocs(module).items()}
    partial = [a for n, a in allocs(module).items() if a.result.type.get_shape() == (128, 4)]
    assert len(partial) == 1
    assert partial[0].attributes["trn.addr"].value.data == addr["m"]
    assert len(set(addr.values())) < len(addr)


def test_allocator_keeps_loop_buffers_live_for_the_whole_loop():
    """%a is defined before the loop and used in it: %t, first used in the loop's body after %a's
    last use in program order, must still not share %a's memory (the next iteration reads
    %a again)."""
    s = "!tirx.buffer<128x512xf32, trn.sbuf>"
    body = (f"  %a = tirx.alloc : {s}\n  %t = tirx.alloc : {s}\n"
            f"  tirx.copy %a, %X : {s}, !tirx.buffer<128x512xf32, global>\n"
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            "  %c3 = arith.constant 3 : index\n"
            "  scf.for %i = %c0 to %c3 step %c1 {\n"
            f"    tirx.add %t, %a, %a : {s}, {s}, {s}\n"
            f"    tirx.copy %Y, %t : !tirx.buffer<128x512xf32, global>, {s}\n"
            "  }")
    text = kernel_text(body, {"X": "!tirx.buffer<128x512xf32, global>"},
                       {"Y": "!tirx.buffer<128x512xf32, global>"})
    module = parse_module(text)
    inputs = random_inputs(module)
    lower(module)
    a = allocs(module)
    assert a["a"].attributes["trn.addr"] != a["t"].attributes["trn.addr"]
    (out,) = run(module, inputs, physical=True)
    np.testing.assert_array_equal(out, inputs[0] + inputs[0])


def test_allocator_gives_psum_whole_banks():
    module = lower(parse_file(example_path("matmul_512")))
    psum = [a for a in allocs(module).values() if a.result.type.scope_name == "trn.psum"]
    assert psum and all(a.attributes["trn.addr"].value.data % 2048 == 0 for a in psum)


def test_allocator_keeps_given_addresses():
    s = "!tirx.buffer<128x512xf32, trn.sbuf>"
    body = (f"  %a = tirx.alloc {{trn.addr = 8192 : i64}} : {s}\n  %b = tirx.alloc : {s}\n"
            f"  %z = arith.constant 0.0 : f32\n  nki.memset %a, %z : {s}, f32\n"
            f"  nki.tensor_copy %b, %a : {s}, {s}")
    module = parse_module(kernel_text(body, {}))
    TrnAllocatePass().apply(make_context(), module)
    a = allocs(module)
    assert a["a"].attributes["trn.addr"].value.data == 8192
    assert a["b"].attributes["trn.addr"].value.data == 0


def test_allocator_reports_what_does_not_fit():
    s1, s2 = "!tirx.buffer<128x20000xf32, trn.sbuf>", "!tirx.buffer<128x30000xf32, trn.sbuf>"
    body = (f"  %x = tirx.alloc : {s1}\n  %y = tirx.alloc : {s2}\n  %z = arith.constant 0.0 : f32\n"
            f"  nki.memset %x, %z : {s1}, f32\n  nki.memset %y, %z : {s2}, f32\n"
            f"  nki.tensor_copy %x, %x : {s1}, {s1}")
    module = parse_module(kernel_text(body, {}), "big.mlir")
    with pytest.raises(PassError) as info:
        TrnAllocatePass().apply(make_context(), module)
    text = str(info.value)
    assert "needs 200000 bytes per partition" in text and "180224 usable bytes" in text
    assert "%x" in text and "%y" in text


def test_memory_model_catches_overlapping_buffers():
    """The physical memory model is what makes the allocation check meaningful: forcing every
    buffer of a kernel to address 0 breaks it."""
    module = lower(parse_file(example_path("layernorm")))
    inputs = random_inputs(module)
    (good,) = run(module, inputs, physical=True)
    (ref,) = run(module, inputs)
    np.testing.assert_array_equal(good, ref)
    for op in allocs(module).values():
        if "trn.addr" in op.attributes:
            op.attributes["trn.addr"] = IntegerAttr(0, i64)
    (bad,) = run(module, inputs, physical=True)
    assert not np.allclose(np.nan_to_num(bad), ref)


# --- trn-max-inst-size -------------------------------------------------------------------------------


def test_max_inst_size_option_sets_the_instruction_size():
    module = parse_file(example_path("nki_add_1"))
    inputs = random_inputs(module)
    lower(module, max_inst_size=128)
    loops = [op for op in module.walk() if op.name == "scf.for"]
    assert len(loops) == 1 and nki_ops(module).count("nki.tensor_scalar") == 1
    (out,) = run(module, inputs, physical=True)
    assert_close(out, inputs[0] + np.float32(1), 0, 0)


def test_per_op_config_wins_over_the_pipeline_option():
    module = parse_file(example_path("row_reduce"))
    lower(module, max_inst_size=1024)
    sums = [op for op in module.walk() if op.name == "nki.tensor_reduce"]
    assert sums[0].src.type.get_shape() == (128, 512)  # the sum's own config says 512


@pytest.mark.parametrize("pass_name, options", [
    ("trn-default-layout", {}), ("trn-lower-layout", {}),
    ("trn-max-inst-size", {"max_inst_size": 256})])
def test_the_layout_passes_report_what_they_change(monkeypatch, pass_name, options):
    """The verification after each visits only what it reports (`tirx_mlir.verification`):
    the audit finds every change reported, and drops of the reports are caught."""
    from tirx_testing.reports import reported_points, silenced_is_caught

    example = "examples/trn/layernorm_affine_rows.mlir"
    assert reported_points(example, "trn", pass_name, **options) == 1
    assert silenced_is_caught(monkeypatch, example, "trn", pass_name, **options)
