"""Capacity errors of Trainium's on-chip memories (backends/trn/capacity.py): located at the
allocation that does not fit, with the allocator's numbers; SBUF in usable bytes per partition
(the target's bytes less its reserve), PSUM in whole 2 KiB banks naming the tiles that hold
them; and pass-order errors (backends/trn/pass_order.py) naming the pass to run first."""

from __future__ import annotations

import pytest

from tirx_testing.trn_lowering import kernel_text, lower
from tirx_mlir.backends.trn.transforms.allocate import TrnAllocatePass
from tirx_mlir.backends.trn.transforms.default_layout import TrnDefaultLayoutPass
from tirx_mlir.diagnostics import PassError, op_location
from tirx_mlir.located_parser import make_context, parse_module

P = "!tirx.buffer<128x{n}xf32, trn.psum>"
S = "!tirx.buffer<128x{n}xf32, trn.sbuf>"


def _physical_psum_kernel(widths: list[int]) -> str:
    """nki-level IR: one PSUM tile per width, all live together (memset, then read by one
    tensor_copy each at the end)."""
    lines = ["  %z = arith.constant 0.0 : f32"]
    lines += [f"  %p{i} = tirx.alloc : {P.format(n=n)}" for i, n in enumerate(widths)]
    lines += [f"  nki.memset %p{i}, %z : {P.format(n=n)}, f32" for i, n in enumerate(widths)]
    lines += [f"  nki.tensor_copy %p{i}, %p{i} : {P.format(n=n)}, {P.format(n=n)}"
              for i, n in enumerate(widths)]
    return kernel_text("\n".join(lines), {})


def test_allocator_reports_psum_in_banks_at_the_tile_it_cannot_place():
    # 512 + 1024 + 600 + 512 + 2048 f32 per partition: 1 + 2 + 2 (600 f32 round up) + 1 + 4 banks
    module = parse_module(_physical_psum_kernel([512, 1024, 600, 512, 2048]), "psum.mlir")
    with pytest.raises(PassError) as info:
        TrnAllocatePass().apply(make_context(), module)
    err = info.value
    text = str(err)
    assert "needs 10 banks at its peak but trn.psum has 8 banks of 2048 bytes" in text
    assert "each PSUM tile takes whole banks" in text
    assert "%p2 !tirx.buffer<128x600xf32, trn.psum> (2 banks)" in text
    assert "%p4 !tirx.buffer<128x2048xf32, trn.psum> (4 banks)" in text
    culprit = text.split(" does not fit")[0]
    assert op_location(err.op)[1] == 3 + int(culprit.split("%p")[1].split()[0])


def test_psum_that_fits_in_eight_banks_allocates():
    module = parse_module(_physical_psum_kernel([512, 1024, 600, 1024]), "psum.mlir")
    TrnAllocatePass().apply(make_context(), module)
    addrs = sorted(op.attributes["trn.addr"].value.data for op in module.walk()
                   if "trn.addr" in op.attributes)
    assert addrs == [0, 4096, 8192, 12288]  # whole banks: 600 f32 take two


def _sbuf_kernel(widths: list[int], live_together: bool) -> str:
    """Tile-level IR: SBUF buffers loaded and stored; alive together or one after another."""
    lines = [f"  %b{i} = tirx.alloc : {S.format(n=n)}" for i, n in enumerate(widths)]
    params = {f"X{i}": f"!tirx.buffer<128x{n}xf32, global>" for i, n in enumerate(widths)}
    outs = {f"Y{i}": f"!tirx.buffer<128x{n}xf32, global>" for i, n in enumerate(widths)}
    loads = [f"  tirx.copy %b{i}, %X{i} : {S.format(n=n)}, !tirx.buffer<128x{n}xf32, global>"
             for i, n in enumerate(widths)]
    stores = [f"  tirx.copy %Y{i}, %b{i} : !tirx.buffer<128x{n}xf32, global>, {S.format(n=n)}"
              for i, n in enumerate(widths)]
    body = loads + stores if live_together else [x for pair in zip(loads, stores) for x in pair]
    return kernel_text("\n".join(lines + body), params, outs)


def test_default_layout_reports_sbuf_at_the_allocation_that_overflows():
    """Two 100000-byte buffers live together exceed the usable 180224 bytes (192 KiB less the
    16 KiB reserve, not the 196608 the hardware has): the error is at the second allocation."""
    module = parse_module(_sbuf_kernel([25000, 25000], live_together=True), "sbuf.mlir")
    with pytest.raises(PassError) as info:
        TrnDefaultLayoutPass().apply(make_context(), module)
    text = str(info.value)
    assert text.startswith("[TRN-ALLOC] %b1 ")
    assert "needs 200064 bytes per partition at its peak" in text  # 64-byte aligned
    assert "180224 usable bytes per partition (196608 less 16384 reserved" in text
    assert "live at the peak: %b0" in text and ", %b1" in text
    assert op_location(info.value.op)[1] == 3  # the kernel header is line 1, %b0 line 2


def test_buffers_that_do_not_overlap_in_time_share_sbuf():
    module = parse_module(_sbuf_kernel([25000, 25000], live_together=False), "sbuf.mlir")
    lower(module)
    addrs = [op.attributes["trn.addr"].value.data for op in module.walk()
             if "trn.addr" in op.attributes]
    assert addrs == [0, 0]


def test_a_buffer_between_usable_and_hardware_bytes_is_refused_before_dispatch():
    """185000 bytes: under the 196608 an nki verifier checks, over the usable 180224."""
    module = parse_module(_sbuf_kernel([46250], live_together=True), "sbuf.mlir")
    with pytest.raises(PassError, match="needs 185024 bytes per partition"):
        TrnDefaultLayoutPass().apply(make_context(), module)
