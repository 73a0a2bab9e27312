"""wgmma register fragments, element by element: the accumulator of m64nNk* and the register A
of the ``rs`` form, against the PTX ISA section "Register Fragments and Shared Memory Matrix
Layouts" of wgmma (tirx_testing.ptx_isa_fragments) and CUTLASS's GMMA thread-value layouts."""

from __future__ import annotations

import pytest

from tirx_mlir.backends.cuda.interpreter.tensor_core import wgmma_fragments as wf
from tirx_testing.cute_layouts import GMMA_A_64x8, GMMA_A_64x16, GMMA_A_64x32, gmma_c_64xn, tv
from tirx_testing.ptx_isa_fragments import BITS, isa_a, isa_wgmma_d


@pytest.mark.parametrize("n", [8, 16, 24, 128, 256])
def test_accumulator_follows_the_isa_and_cutlass(n: int) -> None:
    rows, cols = wf.accumulator_map(n)
    assert rows.shape == (128, n // 2)
    for tid in range(128):
        for i in range(n // 2):
            got = (rows[tid, i], cols[tid, i])
            assert got == isa_wgmma_d(tid // 32, tid % 32, i), (tid, i)
            idx = tv(gmma_c_64xn(n), tid, i)
            assert got == (idx % 64, idx // 64), (tid, i)


@pytest.mark.parametrize("text, layout", [
    ("m64n64k16.f32.f16.f16", GMMA_A_64x16), ("m64n8k16.f32.bf16.bf16", None),
    ("m64n32k8.f32.tf32.tf32", GMMA_A_64x8), ("m64n16k32.f32.e4m3.e5m2", GMMA_A_64x32),
])
def test_register_a_follows_the_isa_and_cutlass(text: str, layout) -> None:
    # the ISA's register-A figures for m64nNk16/k8/k32 give warp w rows 16w..16w+15 laid out as
    # the A of mma.m16n8k16 / m16n8k8 (tf32) / m16n8k32 (8-bit)
    form = wf.WgmmaForm.parse(text)
    shape = {16: "m16n8k16", 8: "m16n8k8", 32: "m16n8k32"}[form.k]
    rows, cols = wf.a_register_map(form)
    count = 4 * 32 // BITS[form.atype]
    assert rows.shape == (128, count)
    for tid in range(128):
        for i in range(count):
            r, c = isa_a(shape, BITS[form.atype], tid % 32, i)
            assert (rows[tid, i], cols[tid, i]) == (16 * (tid // 32) + r, c)
            if layout is not None:
                idx = tv(layout, tid, i)
                assert (rows[tid, i], cols[tid, i]) == (idx % 64, idx // 64)


def test_forms_follow_the_table_rules() -> None:
    form = wf.WgmmaForm.parse("m64n128k16.f32.f16.f16")
    assert (form.n, form.k, form.acc_registers) == (128, 16, 64)
    assert wf.WgmmaForm.parse("m64n128k16.f16.f16.f16").acc_registers == 32
    with pytest.raises(ValueError, match="K = 8, not 16"):
        wf.WgmmaForm.parse("m64n8k16.f32.tf32.tf32")
    with pytest.raises(ValueError, match="accumulates in .f32 only"):
        wf.WgmmaForm.parse("m64n8k16.f16.bf16.bf16")
