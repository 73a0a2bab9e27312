"""The CUDA elementwise variants (reg, smem, gmem) through the cuda pipeline: numpy == tile
interpreter == SIMT interpreter after every pass; the printed code compiles."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import check_every_stage

HEADER = """tirx.kernel @k(%X: !tirx.buffer<256x64xf32, global>, %B: !tirx.buffer<1x64xf32, global>)
    -> (%Y: !tirx.buffer<256x64xf32, global>) grid [2] threads [128] target "cuda -arch=sm_80" {
  %cta = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %cta, %c128 : index
  %x = tirx.slice %X[%row, 0] [128, 64] : !tirx.buffer<256x64xf32, global> -> !tirx.buffer<128x64xf32, global>
  %y = tirx.slice %Y[%row, 0] [128, 64] : !tirx.buffer<256x64xf32, global> -> !tirx.buffer<128x64xf32, global>
"""
T = "!tirx.buffer<128x64xf32, {}>"
BIAS = "!tirx.buffer<1x64xf32, {}>"


def _kernel(scope: str, op: str) -> str:
    t, b = T.format(scope), BIAS.format(scope)
    g = T.format("global")
    return HEADER + f"""  %t = tirx.alloc : {t}
  %b = tirx.alloc : {b}
  tirx.copy cta %t, %x : {t}, {g}
  tirx.copy cta %b, %B : {b}, {BIAS.format("global")}
  tirx.{op} cta %t, %t, %b : {t}, {t}, {b}
  tirx.copy cta %y, %t : {g}, {t}
  tirx.return
}}
"""


@pytest.mark.parametrize("op,fn", [("add", np.add), ("mul", np.multiply),
                                   ("maximum", np.maximum), ("sub", np.subtract)])
def test_broadcast_binary_in_shared(op, fn):
    check_every_stage(_kernel("shared", op), lambda x, b: [fn(x, b)])


def _sigmoid_times(x):
    return x / (1 + np.exp(-x))


@pytest.mark.parametrize("op,fn", [("exp", np.exp), ("exp2", np.exp2), ("silu", _sigmoid_times)])
def test_unary_in_shared_then_global(op, fn):
    t, g = T.format("shared"), T.format("global")
    text = HEADER + f"""  %t = tirx.alloc : {t}
  tirx.copy cta %t, %x : {t}, {g}
  tirx.{op} cta %t, %t : {t}, {t}
  tirx.copy cta %y, %t : {g}, {t}
  tirx.return
}}
"""
    check_every_stage(text, lambda x, b: [fn(x)])


def test_global_destination_reads_global_sources_with_vectors():
    g = T.format("global")
    text = HEADER + f"""  tirx.mul cta %y, %x, %B : {g}, {g}, {BIAS.format("global")}
  tirx.return
}}
"""
    final = check_every_stage(text, lambda x, b: [x * b])
    ops = [op.name for op in final.walk()]
    assert "ptx.ld" in ops and "ptx.st" in ops  # 16-byte accesses


def test_register_tiles_with_a_broadcast_register_operand():
    r, g = T.format("local"), T.format("global")
    text = HEADER + f"""  %t = tirx.alloc : {r}
  %b = tirx.alloc : !tirx.buffer<1x64xf32, shared>
  tirx.copy cta %t, %x : {r}, {g}
  tirx.copy cta %b, %B : !tirx.buffer<1x64xf32, shared>, {BIAS.format("global")}
  tirx.exp cta %t, %t : {r}, {r}
  tirx.add cta %t, %t, %b : {r}, {r}, !tirx.buffer<1x64xf32, shared>
  tirx.copy cta %y, %t : {g}, {r}
  tirx.return
}}
"""
    final = check_every_stage(text, lambda x, b: [np.exp(x) + b])
    arrays = [op for op in final.walk() if op.name == "tirx.alloc"]
    assert [str(a.result.type) for a in arrays] == ["!tirx.buffer<64xf32, local>"]


def _packed_kernel(dtype: str, arch: str) -> str:
    t = f"!tirx.buffer<64x128x{dtype}, local>"
    g = f"!tirx.buffer<64x128x{dtype}, global>"
    return f"""tirx.kernel @k(%X: {g}, %Z: {g}) -> (%Y: {g}) grid [1] threads [128]
    target "cuda -arch={arch}" {{
  %a = tirx.alloc : {t}
  %b = tirx.alloc : {t}
  tirx.copy cta %a, %X : {t}, {g}
  tirx.copy cta %b, %Z : {t}, {g}
  tirx.mul cta %a, %a, %b : {t}, {t}, {t}
  tirx.maximum cta %a, %a, %b : {t}, {t}, {t}
  tirx.copy cta %Y, %a : {g}, {t}
  tirx.return
}}
"""


@pytest.mark.parametrize("dtype,arch,packed", [("f16", "sm_80", True), ("bf16", "sm_90a", True),
                                               ("bf16", "sm_80", False)])
def test_half_types_compute_two_at_a_time_where_the_arch_has_it(dtype, arch, packed):
    def reference(x, z):
        prod = (x.astype(np.float32) * z.astype(np.float32)).astype(x.dtype)
        return [np.maximum(prod.astype(np.float32), z.astype(np.float32)).astype(x.dtype)]

    final = check_every_stage(_packed_kernel(dtype, arch), reference, arch=arch, rtol=0, atol=0)
    text = str(final)
    assert (text.count("arith.mulf %") and f"vector<2x{dtype}>" in text) == packed
    assert ("arith.extf" in text) != packed  # the scalar path computes in f32


def _cast_kernel(half: str, arch: str = "sm_80") -> str:
    """f32 -> ``half`` -> f32 through register tiles: two casts TIRx does with cast_vec2."""
    r, h = "!tirx.buffer<64x32xf32, local>", f"!tirx.buffer<64x32x{half}, local>"
    g = "!tirx.buffer<64x32xf32, global>"
    gh = f"!tirx.buffer<64x32x{half}, global>"
    return f"""tirx.kernel @k(%X: {g}) -> (%Y: {g}, %H: {gh}) grid [1] threads [128]
    target "cuda -arch={arch}" {{
  %r = tirx.alloc : {r}
  %h = tirx.alloc : {h}
  tirx.copy cta %r, %X : {r}, {g}
  tirx.cast cta %h, %r : {h}, {r}
  tirx.copy cta %H, %h : {gh}, {h}
  tirx.cast cta %r, %h : {r}, {h}
  tirx.copy cta %Y, %r : {g}, {r}
  tirx.return
}}
"""


def _special_values(half: str) -> np.ndarray:
    """Ties to even, subnormals, overflow, signed zeros, infinities and NaN of the 16-bit type,
    the rest random."""
    import ml_dtypes

    t = np.float16 if half == "f16" else ml_dtypes.bfloat16
    info = ml_dtypes.finfo(t)
    one_ulp = float(info.eps)
    tiny = float(info.smallest_subnormal)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, float(info.max), float(info.max) * 1.001,
               -float(info.max) * 1.01, tiny, tiny / 2, tiny * 1.5, -tiny * 2.5,
               1 + one_ulp / 2, 1 + 1.5 * one_ulp, -(1 + one_ulp / 2), 3e-40, 1e-45]
    x = np.random.default_rng(7).standard_normal(64 * 32).astype(np.float32) * 1e3
    x[:len(special)] = special
    return x.reshape(64, 32)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("half", ["f16", "bf16"])
def test_casts_of_register_tiles_convert_two_at_a_time_bit_identically(half, monkeypatch):
    """The packed conversions (cuda.pack f32 -> half2/bfloat162, cuda.unpack back) give the
    SIMT interpreter the same bits as the scalar casts (the pairing turned off), on ties,
    subnormals, overflow and NaN; through every stage the kernel equals numpy; nvcc and ptxas
    take it and the SASS packs with F2FP."""
    import ml_dtypes

    from tirx_testing.cuda_compile import ptx_sass_opcodes
    from tirx_testing.cuda_every_stage import lower

    from tirx_mlir.backends.cuda.dispatch import pointwise
    from tirx_mlir.backends.cuda.interpreter import simulate
    from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

    t = np.float16 if half == "f16" else ml_dtypes.bfloat16
    x = _special_values(half)
    packed = lower(_cast_kernel(half), "k")
    # 16 elements per thread: 8 pairs per cast, rolled (2 pairs a round) and expanded in PTX
    assert str(packed).count("cuda.pack") == 2 * 2 and \
        "arith.truncf" not in str(packed) and "arith.extf" not in str(packed)
    assert emit_ptx(packed).count(f"cvt.rn.{half}x2.f32") == 8
    with monkeypatch.context() as m:
        m.setattr(pointwise, "_conversion_pairs", lambda *args: None)
        scalar = lower(_cast_kernel(half), "k")
    assert "cuda.pack" not in str(scalar)
    got = simulate(packed, "k", x).outputs
    want = simulate(scalar, "k", x).outputs
    for a, b in zip(got, want, strict=True):
        bits = np.uint32 if a.dtype == np.float32 else np.uint16
        np.testing.assert_array_equal(a.view(bits), b.view(bits))
    np.testing.assert_array_equal(got[1].view(np.uint16), x.astype(t).view(np.uint16))
    finite = np.where(np.isnan(x), 1.0, x).astype(np.float32)
    check_every_stage(_cast_kernel(half), lambda v: [v.astype(t).astype(np.float32),
                                                     v.astype(t)],
                      arch="sm_80", rtol=0, atol=0, inputs=[finite], name="k")
    sass = ptx_sass_opcodes(emit_ptx(packed), "sm_80")
    assert any(o.startswith("F2FP") and "PACK_AB" in o for o in sass), sorted(sass)
