"""mma.sync fragment maps, element by element, against the PTX ISA tables (sections "Matrix
Fragments for mma.m16n8k8", "Matrix Fragments for mma.m16n8k16 with floating point type",
"Matrix Fragments for mma.m16n8k16 with integer type", "Matrix Fragments for mma.m16n8k32"),
whose formulas are written out here case by case, and against CUTLASS's thread-value layouts.
"""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.cute_layouts import (SM80_8x8_ROW, SM80_8x16_ROW, SM80_16x8_ROW, SM80_16x8x8_TF32_A,
                          SM80_16x8x8_TF32_B, SM80_16x8x16_F16_A, SM80_16x8x16_F16_B,
                          SM80_16x8x16_S8_A, SM80_16x8x32_S8_A, SM80_16x8x32_S8_B, tv)
from tirx_mlir.backends.cuda.dialects.ptx import rules
from tirx_mlir.backends.cuda.interpreter.tensor_core import mma_fragments as mf
from tirx_testing.ptx_isa_fragments import BITS, isa_a, isa_b, isa_c

FORMS = [mf.MmaForm(s, a, b, d) for s, a, b, d in rules.MMA_SHAPES]


def _check(maps, expect, count: int) -> None:
    rows, cols = maps
    assert rows.shape == cols.shape == (32, count)
    for lane in range(32):
        for i in range(count):
            assert (rows[lane, i], cols[lane, i]) == expect(lane, i), (lane, i)


@pytest.mark.parametrize("form", FORMS, ids=str)
def test_maps_follow_the_isa_tables(form: mf.MmaForm) -> None:
    ra, rb, _ = form.registers
    abits, bbits = BITS[form.atype], BITS[form.btype]
    _check(mf.a_map(form), lambda l, i: isa_a(form.shape, abits, l, i), ra * 32 // abits)
    _check(mf.b_map(form), lambda l, i: isa_b(form.shape, bbits, l, i), rb * 32 // bbits)
    _check(mf.c_map(form), isa_c, 4)


@pytest.mark.parametrize("form", FORMS, ids=str)
def test_each_matrix_element_is_held_once(form: mf.MmaForm) -> None:
    for (rows, cols), shape in ((mf.a_map(form), (16, form.k)), (mf.b_map(form), (form.k, 8)),
                                (mf.c_map(form), (16, 8))):
        held = np.zeros(shape, dtype=int)
        np.add.at(held, (rows, cols), 1)
        assert (held == 1).all()


CUTE = [  # (form, operand, CuTe layout, column-major extent of its first mode)
    ("m16n8k8.f32.f16.f16.f32", "a", SM80_16x8_ROW, 16),
    ("m16n8k8.f32.f16.f16.f32", "b", SM80_8x8_ROW, 8),
    ("m16n8k16.f32.bf16.bf16.f32", "a", SM80_16x8x16_F16_A, 16),
    ("m16n8k16.f32.bf16.bf16.f32", "b", SM80_16x8x16_F16_B, 8),
    ("m16n8k8.f32.tf32.tf32.f32", "a", SM80_16x8x8_TF32_A, 16),
    ("m16n8k8.f32.tf32.tf32.f32", "b", SM80_16x8x8_TF32_B, 8),
    ("m16n8k16.s32.s8.s8.s32", "a", SM80_16x8x16_S8_A, 16),
    ("m16n8k16.s32.u8.u8.s32", "b", SM80_8x16_ROW, 8),
    ("m16n8k32.s32.s8.u8.s32", "a", SM80_16x8x32_S8_A, 16),
    ("m16n8k32.s32.u8.s8.s32", "b", SM80_16x8x32_S8_B, 8),
    ("m16n8k16.f16.f16.f16.f16", "c", SM80_16x8_ROW, 16),
]


@pytest.mark.parametrize("text, operand, layout, extent", CUTE)
def test_maps_match_cutlass_layouts(text: str, operand: str, layout, extent: int) -> None:
    form = mf.MmaForm.parse(text)
    rows, cols = {"a": mf.a_map, "b": mf.b_map, "c": mf.c_map}[operand](form)
    for lane in range(32):
        for v in range(rows.shape[1]):
            idx = tv(layout, lane, v)
            first, second = idx % extent, idx // extent      # (M, K), (N, K) or (M, N)
            want = (second, first) if operand == "b" else (first, second)
            assert (rows[lane, v], cols[lane, v]) == want, (lane, v)


def test_forms_parse_and_reject() -> None:
    form = mf.MmaForm.parse("m16n8k16.f32.f16.f16.f32")
    assert (form.k, form.registers, str(form)) == (16, (4, 2, 4), "m16n8k16.f32.f16.f16.f32")
    assert mf.MmaForm.from_mods({"shape": "m16n8k32", "atype": "e4m3", "btype": "e5m2",
                                 "dtype": "f32", "ctype": "f32"}).k == 32
    with pytest.raises(ValueError, match="not a supported form"):
        mf.MmaForm("m16n8k8", "s8", "s8", "s32")
