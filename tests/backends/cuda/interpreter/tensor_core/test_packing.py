"""Packing of sub-32-bit elements in b32 registers: the lower-indexed element in the low bits
(PTX ISA "Matrix Fragments for mma.m16n8k16": a .f16x2 register holds two .f16 elements)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from tirx_testing.fresh_imports import ROOT, packages_imported_compiling

from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import (as_b32, pack,
                                                                     per_register, unpack)


def test_f16x2_low_half_first() -> None:
    regs = pack(np.array([1.0, 2.0], dtype=np.float16), "f16")   # 0x3C00, 0x4000
    assert regs.dtype == np.int32 and regs.tolist() == [0x40003C00]
    assert unpack(regs, "f16").tolist() == [1.0, 2.0]


def test_bytes_lowest_first() -> None:
    regs = pack(np.array([1, 2, 3, -1], dtype=np.int8), "s8")
    assert int(regs[0]) == np.int32(np.uint32(0xFF030201).view(np.int32))
    assert unpack(regs, "u8").tolist() == [1, 2, 3, 255]
    e4m3 = pack(np.array([1.0, -2.0, 0.5, 448.0], dtype=ml_dtypes.float8_e4m3fn), "e4m3")
    assert unpack(e4m3, "e4m3").astype(np.float32).tolist() == [1.0, -2.0, 0.5, 448.0]


@pytest.mark.parametrize("t, n", [("f16", 2), ("bf16", 2), ("tf32", 1), ("s8", 4),
                                  ("e5m2", 4), ("b16", 2)])
def test_round_trip_keeps_shape_and_bits(t: str, n: int) -> None:
    regs = np.random.default_rng(1).integers(-2**31, 2**31, size=(3, 32, 2)).astype(np.int32)
    if t == "tf32":
        regs &= ~0x1FFF
    assert per_register(t) == n
    elems = unpack(regs, t)
    assert elems.shape == (3, 32, 2 * n)
    assert (pack(elems, t) == regs).all()


def test_tf32_ignores_the_low_13_bits() -> None:
    x = np.array([1.0 + 2.0**-10 + 2.0**-11 + 2.0**-20], dtype=np.float32)
    assert unpack(x.view(np.int32), "tf32").tolist() == [1.0 + 2.0**-10]


def test_b32_view_of_float_registers() -> None:
    assert as_b32(np.array([1.0], dtype=np.float32)).tolist() == [0x3F800000]
    with pytest.raises(TypeError, match="32-bit"):
        as_b32(np.array([1], dtype=np.int64))


def test_element_dtypes_are_the_tirx_element_types_numpy_dtypes() -> None:
    from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import element_dtype

    assert element_dtype("bf16") == np.dtype(ml_dtypes.bfloat16)
    assert element_dtype("e4m3") == np.dtype(ml_dtypes.float8_e4m3fn)
    assert element_dtype("e5m2") == np.dtype(ml_dtypes.float8_e5m2)
    assert element_dtype("tf32") == np.dtype(np.float32)
    assert element_dtype("b16") == np.dtype(np.uint16)
    assert element_dtype("u8") == np.dtype(np.uint8)
    assert [per_register(t) for t in ("f16", "bf16", "tf32", "f32", "e4m3", "e5m2", "s8", "u8",
                                      "s32", "b16")] == [2, 2, 1, 1, 4, 4, 4, 4, 1, 2]


@pytest.mark.parametrize("example", ["softmax", "gemm_sm80", "gemm_sm90a"])
def test_a_cuda_compile_to_ptx_imports_no_ml_dtypes(example: str, tmp_path) -> None:
    """The layout lowering reads fragment maps from this package (`per_register`): that must not
    import ml_dtypes (most of a second of a fresh ``tirx-opt``'s CPU), which only unpacking
    bf16/fp8 registers in the interpreter needs."""
    source = ROOT / "examples" / "cuda" / "tile" / f"{example}.mlir"
    out = tmp_path / "out.ptx"
    assert packages_imported_compiling(source, out, ("ml_dtypes",), "--pass-pipeline=cuda",
                                       "-t", "ptx") == []
    assert ".entry" in (tmp_path / "out.ptx").read_text()
