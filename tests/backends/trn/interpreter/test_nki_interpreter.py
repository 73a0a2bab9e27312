"""The nki interpreter against numpy models: every op, low-precision dtypes, NKI's rounding,
and the run-time limit checks."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from tirx_testing.trn import buf, np_dtype, run_nki

from tirx_mlir.interpreter import InterpretError

RNG = np.random.default_rng(7)
BF16 = np.dtype(ml_dtypes.bfloat16)
FP8 = np.dtype(ml_dtypes.float8_e4m3fn)
F32 = np.dtype(np.float32)


def randn(*shape, dtype=F32, scale=1.0) -> np.ndarray:
    return (RNG.standard_normal(shape) * scale).astype(np.float32).astype(dtype)


def S(shape, dt="f32"):
    return buf(shape, dt, "trn.sbuf")


def P(shape, dt="f32"):
    return buf(shape, dt, "trn.psum")


# --- data movement ------------------------------------------------------------------------------


def test_load_converts_through_fp32_with_rne():
    x = randn(128, 512, scale=100.0)
    out = run_nki(f"  nki.tensor_copy %y, %x : {S((128, 512), 'bf16')}, {S((128, 512))}",
                  {"x": (x, "trn.sbuf")}, {"y": ((128, 512), "bf16", "trn.sbuf")})["y"]
    assert out.dtype == BF16
    np.testing.assert_array_equal(out, x.astype(BF16))


def test_dma_copy_between_shapes_equal_up_to_unit_dims():
    x = randn(128, 512, dtype=BF16)
    body = f"  nki.dma_copy %y, %x : {S((128, 1, 512))}, {S((128, 512), 'bf16')}"
    out = run_nki(body, {"x": (x, "trn.sbuf")}, {"y": ((128, 1, 512), "f32", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out, x.astype(F32).reshape(128, 1, 512))


def test_tensor_copy_walks_free_elements_in_row_major_order():
    x = randn(128, 512)
    body = f"  nki.tensor_copy %y, %x : {S((128, 4, 128))}, {P((128, 512))}"
    out = run_nki(body, {"x": (x, "trn.psum")}, {"y": ((128, 4, 128), "f32", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out, x.reshape(128, 4, 128))


def test_tensor_copy_to_int_rounds_to_nearest_even_and_saturates():
    x = np.tile(np.array([2.5, 3.5, -2.5, 300.0, -300.0, np.nan, 1.4, -0.6], F32), (128, 1))
    out = run_nki(f"  nki.tensor_copy %y, %x : {S((128, 8), 'i8')}, {P((128, 8))}",
                  {"x": (x, "trn.psum")}, {"y": ((128, 8), "i8", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out[0], [2, 4, -2, 127, -128, 0, 1, -1])


def test_memset_fills_psum_and_int_tiles():
    body = (f"  %i = arith.constant -3 : i32\n"
            f"  nki.memset %p, %half : {P((128, 512))}, f32\n"
            f"  nki.memset %q, %i engine gpsimd : {S((128, 4), 'i32')}, i32")
    out = run_nki(body, {}, {"p": ((128, 512), "f32", "trn.psum"),
                             "q": ((128, 4), "i32", "trn.sbuf")})
    assert (out["p"] == 0.5).all() and (out["q"] == -3).all()


def test_iota_multi_dim_pattern():
    body = f"  nki.iota %y pattern [[2, 4], [-1, 8]] offset 5 channel_multiplier 100 : {S((128, 32))}"
    out = run_nki(body, {}, {"y": ((128, 32), "f32", "trn.sbuf")})["y"]
    p, a, b = np.ogrid[:128, :4, :8]
    np.testing.assert_array_equal(out, (5 + 100 * p + 2 * a - b).reshape(128, 32))


def test_identity():
    out = run_nki(f"  nki.identity %y : {S((64, 64), 'bf16')}", {},
                  {"y": ((64, 64), "bf16", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out.astype(F32), np.eye(64))


# --- TensorE ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", ["bf16", "f16", "f8E4M3FN", "f32"])
def test_matmul_is_stationary_transposed_times_moving(dt):
    stat, mov = randn(128, 96, dtype=np_dtype(dt)), randn(128, 512, dtype=np_dtype(dt))
    body = f"  nki.matmul %y, %s, %m : {P((96, 512))}, {S((128, 96), dt)}, {S((128, 512), dt)}"
    out = run_nki(body, {"s": (stat, "trn.sbuf"), "m": (mov, "trn.sbuf")},
                  {"y": ((96, 512), "f32", "trn.psum")})["y"]
    ref = stat.astype(np.float64).T @ mov.astype(np.float64)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


def test_matmul_accumulate_flags():
    stat, mov = randn(128, 128, dtype=BF16), randn(128, 512, dtype=BF16)
    types = f"{P((128, 512))}, {S((128, 128), 'bf16')}, {S((128, 512), 'bf16')}"
    body = (f"  nki.matmul %y, %s, %m : {types}\n"
            f"  nki.matmul %y, %s, %m accumulate : {types}\n"
            f"  nki.matmul %y, %s, %m accumulate_if %true : {types}, i1\n"
            f"  nki.matmul %z, %s, %m accumulate_if %false : {types}, i1")
    out = run_nki(body, {"s": (stat, "trn.sbuf"), "m": (mov, "trn.sbuf")},
                  {"y": ((128, 512), "f32", "trn.psum"), "z": ((128, 512), "f32", "trn.psum")})
    ref = stat.astype(F32).T @ mov.astype(F32)
    np.testing.assert_allclose(out["y"], 3 * ref, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(out["z"], ref, rtol=1e-5, atol=1e-4)


def test_matmul_k_loop_first_step_overwrites():
    """accumulate_if (k > 0) over a K loop: no memset needed, the first step overwrites."""
    stat, mov = randn(128, 2, 64, dtype=BF16), randn(128, 2, 512, dtype=BF16)
    body = f"""  %c2 = arith.constant 2 : index
  scf.for %k = %c0 to %c2 step %c1 {{
    %acc = arith.cmpi sgt, %k, %c0 : index
    %sv = tirx.slice %s[0, %k, 0] [128, 1, 64] : {S((128, 2, 64), 'bf16')} -> {S((128, 1, 64), 'bf16')}
    %mv = tirx.slice %m[0, %k, 0] [128, 1, 512] : {S((128, 2, 512), 'bf16')} -> {S((128, 1, 512), 'bf16')}
    nki.matmul %y, %sv, %mv accumulate_if %acc : {P((64, 512))}, {S((128, 1, 64), 'bf16')}, {S((128, 1, 512), 'bf16')}, i1
  }}"""
    out = run_nki(body, {"s": (stat, "trn.sbuf"), "m": (mov, "trn.sbuf")},
                  {"y": ((64, 512), "f32", "trn.psum")})["y"]
    ref = sum(stat[:, k].astype(F32).T @ mov[:, k].astype(F32) for k in range(2))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


def test_accumulating_onto_fresh_psum_reads_nan():
    stat, mov = randn(128, 128, dtype=BF16), randn(128, 512, dtype=BF16)
    body = f"  nki.matmul %y, %s, %m accumulate : {P((128, 512))}, {S((128, 128), 'bf16')}, {S((128, 512), 'bf16')}"
    out = run_nki(body, {"s": (stat, "trn.sbuf"), "m": (mov, "trn.sbuf")},
                  {"y": ((128, 512), "f32", "trn.psum")})["y"]
    assert np.isnan(out).all()


@pytest.mark.parametrize("engine,n", [("tensor", (128, 64)), ("vector", (32, 32))])
def test_transpose(engine, n):
    x = randn(*n)
    dst_scope = "trn.psum" if engine == "tensor" else "trn.sbuf"
    body = f"  nki.transpose %y, %x engine {engine} : {buf(n[::-1], 'f32', dst_scope)}, {S(n)}"
    out = run_nki(body, {"x": (x, "trn.sbuf")}, {"y": (n[::-1], "f32", dst_scope)})["y"]
    np.testing.assert_array_equal(out, x.T)


# --- ScalarE ------------------------------------------------------------------------------------

_erf = np.vectorize(math.erf)


def _sig(x):
    return 1 / (1 + np.exp(-x))


ACTIVATION_MODELS = {
    "copy": lambda x: x, "square": lambda x: x * x, "sigmoid": _sig,
    "relu": lambda x: np.maximum(x, 0),
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))),
    "gelu_dx": lambda x: 0.5 * (1 + _erf(x / math.sqrt(2))) + x * np.exp(-x * x / 2) / math.sqrt(2 * math.pi),
    "gelu_apprx_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
    "gelu_apprx_sigmoid": lambda x: x * _sig(1.702 * x),
    "gelu_apprx_sigmoid_dx": lambda x: _sig(1.702 * x) * (1 + 1.702 * x * _sig(-1.702 * x)),
    "silu": lambda x: x * _sig(x), "silu_dx": lambda x: _sig(x) * (1 + x * (1 - _sig(x))),
    "tanh": np.tanh, "softplus": lambda x: np.log1p(np.exp(x)),
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))), "erf": _erf,
    "erf_dx": lambda x: 2 / math.sqrt(math.pi) * np.exp(-x * x), "exp": np.exp,
    "log": lambda x: np.log(np.abs(x) + 0.1), "sin": np.sin, "arctan": np.arctan,
    "sqrt": lambda x: np.sqrt(np.abs(x) + 0.1), "rsqrt": lambda x: 1 / np.sqrt(np.abs(x) + 0.1),
    "reciprocal": lambda x: 1 / x, "sign": np.sign, "abs": np.abs,
}
"""Models of ``f(x)``; log/sqrt/rsqrt are fed |x| + 0.1 (see _activation_input)."""


def _activation_input(func: str, x: np.ndarray) -> np.ndarray:
    return np.abs(x) + np.float32(0.1) if func in ("log", "sqrt", "rsqrt") else x


def test_every_activation_function_has_a_model():
    from tirx_mlir.backends.trn.dialects.nki.tables import ACTIVATIONS

    assert set(ACTIVATION_MODELS) == set(ACTIVATIONS)


@pytest.mark.parametrize("func", sorted(ACTIVATION_MODELS))
def test_activation_functions(func):
    x = _activation_input(func, randn(128, 64).clip(-3, 3))
    out = run_nki(f"  nki.activation %y, %x func {func} : {S((128, 64))}, {S((128, 64))}",
                  {"x": (x, "trn.sbuf")}, {"y": ((128, 64), "f32", "trn.sbuf")})["y"]
    ref = ACTIVATION_MODELS[func](x.astype(np.float64))
    if func == "log":
        ref = np.log(x.astype(np.float64))
    elif func in ("sqrt", "rsqrt"):
        ref = np.sqrt(x.astype(np.float64)) ** (1 if func == "sqrt" else -1)
    np.testing.assert_allclose(out, ref, rtol=2e-6, atol=1e-6)


def test_activation_bias_and_scale_and_bf16_output():
    x, bias, scale = randn(128, 512), randn(128, 1), randn(128, 1)
    body = (f"  nki.activation %y, %x func exp bias %b scale %s : {S((128, 512), 'bf16')}, "
            f"{P((128, 512))}, {S((128, 1))}, {S((128, 1))}\n"
            f"  nki.activation %z, %x func sigmoid bias %b scale %two : {S((128, 512))}, "
            f"{P((128, 512))}, {S((128, 1))}, f32")
    out = run_nki(body, {"x": (x, "trn.psum"), "b": (bias, "trn.sbuf"), "s": (scale, "trn.sbuf")},
                  {"y": ((128, 512), "bf16", "trn.sbuf"), "z": ((128, 512), "f32", "trn.sbuf")})
    ref_y = np.exp((x * scale + bias).astype(np.float64)).astype(F32).astype(BF16)
    np.testing.assert_array_equal(out["y"], ref_y)
    np.testing.assert_allclose(out["z"], _sig((x * 2 + bias).astype(np.float64)), rtol=1e-6)


def test_activation_reduce_sums_fp32_results_before_rounding():
    x, bias = randn(128, 512), randn(128, 1)
    body = (f"  nki.activation_reduce %y, %r, %x func exp bias %b : {S((128, 512), 'bf16')}, "
            f"{S((128, 1))}, {S((128, 512))}, {S((128, 1))}")
    out = run_nki(body, {"x": (x, "trn.sbuf"), "b": (bias, "trn.sbuf")},
                  {"y": ((128, 512), "bf16", "trn.sbuf"), "r": ((128, 1), "f32", "trn.sbuf")})
    e = np.exp((x + bias).astype(np.float64))
    np.testing.assert_array_equal(out["y"], e.astype(F32).astype(BF16))
    np.testing.assert_allclose(out["r"], e.sum(axis=1, keepdims=True), rtol=1e-5)


# --- VectorE ------------------------------------------------------------------------------------


def test_reciprocal_f16():
    x = randn(128, 64, dtype=np.float16)
    out = run_nki(f"  nki.reciprocal %y, %x : {S((128, 64), 'f16')}, {S((128, 64), 'f16')}",
                  {"x": (x, "trn.sbuf")}, {"y": ((128, 64), "f16", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out, (1 / x.astype(F32)).astype(np.float16))


@pytest.mark.parametrize("op,fn", [("add", np.sum), ("maximum", np.max), ("minimum", np.min),
                                   ("multiply", np.prod)])
def test_tensor_reduce_trailing_axes_and_negate(op, fn):
    x = randn(128, 4, 16, scale=0.5) + np.float32(1.0)
    body = (f"  nki.tensor_reduce %y, %x op {op} axes [1, 2] keepdims : {S((128, 1))}, {P((128, 4, 16))}\n"
            f"  nki.tensor_reduce %z, %x op {op} axes [-1] negate : {S((128, 4))}, {P((128, 4, 16))}")
    out = run_nki(body, {"x": (x, "trn.psum")},
                  {"y": ((128, 1), "f32", "trn.sbuf"), "z": ((128, 4), "f32", "trn.sbuf")})
    np.testing.assert_allclose(out["y"][:, 0], fn(x.astype(np.float64), axis=(1, 2)), rtol=2e-5)
    np.testing.assert_allclose(out["z"], -fn(x.astype(np.float64), axis=2), rtol=2e-5)


def test_tensor_reduce_bitwise_and_logical():
    x = RNG.integers(0, 256, (128, 32)).astype(np.int32)
    body = (f"  nki.tensor_reduce %y, %x op bitwise_or axes [1] keepdims : {S((128, 1), 'i32')}, {S((128, 32), 'i32')}\n"
            f"  nki.tensor_reduce %z, %x op logical_and axes [1] keepdims : {S((128, 1))}, {S((128, 32), 'i32')}")
    out = run_nki(body, {"x": (x, "trn.sbuf")},
                  {"y": ((128, 1), "i32", "trn.sbuf"), "z": ((128, 1), "f32", "trn.sbuf")})
    np.testing.assert_array_equal(out["y"][:, 0], np.bitwise_or.reduce(x, axis=1))
    np.testing.assert_array_equal(out["z"][:, 0], (x != 0).all(axis=1))


TT_MODELS = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "maximum": np.maximum, "minimum": np.minimum, "power": lambda a, b: np.abs(a) ** b,
    "equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
    "greater_equal": np.greater_equal, "less": np.less, "less_equal": np.less_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}


@pytest.mark.parametrize("op", sorted(TT_MODELS))
def test_tensor_tensor_arithmetic(op):
    a, b = randn(128, 64), randn(128, 64)
    a[:, :8] = b[:, :8]  # exercise equality
    if op == "power":
        a = np.abs(a)
    out = run_nki(f"  nki.tensor_tensor %y, %a, %b op {op} : {S((128, 64))}, {S((128, 64))}, {S((128, 64))}",
                  {"a": (a, "trn.sbuf"), "b": (b, "trn.sbuf")}, {"y": ((128, 64), "f32", "trn.sbuf")})["y"]
    np.testing.assert_allclose(out, TT_MODELS[op](a, b).astype(F32), rtol=1e-6)


def test_tensor_tensor_int_is_exact_and_bitvec_on_raw_bits():
    a = RNG.integers(-2**30, 2**30, (128, 16)).astype(np.int32)
    b = RNG.integers(0, 31, (128, 16)).astype(np.int32)
    body = (f"  nki.tensor_tensor %y, %a, %b op add : {S((128, 16), 'i32')}, {S((128, 16), 'i32')}, {S((128, 16), 'i32')}\n"
            f"  nki.tensor_tensor %z, %a, %b op bitwise_xor : {S((128, 16), 'i32')}, {S((128, 16), 'i32')}, {S((128, 16), 'i32')}\n"
            f"  nki.tensor_tensor %w, %a, %b op left_shift : {S((128, 16), 'i32')}, {S((128, 16), 'i32')}, {S((128, 16), 'i32')}")
    out = run_nki(body, {"a": (a, "trn.sbuf"), "b": (b, "trn.sbuf")},
                  {n: ((128, 16), "i32", "trn.sbuf") for n in "yzw"})
    np.testing.assert_array_equal(out["y"], a + b)
    np.testing.assert_array_equal(out["z"], a ^ b)
    np.testing.assert_array_equal(out["w"], (a.astype(np.int64) << b).astype(np.int32))


def test_tensor_tensor_free_shapes_may_differ():
    a, b = randn(128, 512), randn(128, 4, 128)
    out = run_nki(f"  nki.tensor_tensor %y, %a, %b op subtract : {S((128, 512))}, {S((128, 512))}, {P((128, 4, 128))}",
                  {"a": (a, "trn.sbuf"), "b": (b, "trn.psum")}, {"y": ((128, 512), "f32", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out, a - b.reshape(128, 512))


def test_tensor_scalar_two_ops_and_reverse_flags():
    x, v = randn(128, 64), randn(128, 1)
    body = (f"  nki.tensor_scalar %y, %x, %v op0 subtract reverse0 operand1 %two op1 divide reverse1 : "
            f"{S((128, 64))}, {S((128, 64))}, {S((128, 1))}, f32\n"
            f"  nki.tensor_scalar %z, %x, %half op0 maximum operand1 %v op1 multiply : "
            f"{S((128, 64))}, {S((128, 64))}, f32, {S((128, 1))}\n"
            f"  nki.tensor_scalar %w, %x, %half op0 abs : {S((128, 64))}, {S((128, 64))}, f32")
    out = run_nki(body, {"x": (x, "trn.sbuf"), "v": (v, "trn.sbuf")},
                  {n: ((128, 64), "f32", "trn.sbuf") for n in "yzw"})
    np.testing.assert_allclose(out["y"], 2 / (v - x), rtol=1e-6)
    np.testing.assert_allclose(out["z"], np.maximum(x, 0.5) * v, rtol=1e-6)
    np.testing.assert_array_equal(out["w"], np.abs(x))


def test_tensor_scalar_bitvec_shift():
    x = RNG.integers(0, 1 << 20, (128, 8)).astype(np.int32)
    body = (f"  %s3 = arith.constant 3 : i32\n"
            f"  nki.tensor_scalar %y, %x, %s3 op0 right_shift operand1 %s3 op1 bitwise_and : "
            f"{S((128, 8), 'i32')}, {S((128, 8), 'i32')}, i32, i32")
    out = run_nki(body, {"x": (x, "trn.sbuf")}, {"y": ((128, 8), "i32", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out, (x >> 3) & 3)


def test_tensor_scalar_reduce_with_reverse():
    x = randn(128, 64)
    body = (f"  nki.tensor_scalar_reduce %y, %r, %x, %two op0 subtract reduce maximum reverse0 : "
            f"{S((128, 64), 'bf16')}, {S((128, 1))}, {S((128, 64))}, f32")
    out = run_nki(body, {"x": (x, "trn.sbuf")},
                  {"y": ((128, 64), "bf16", "trn.sbuf"), "r": ((128, 1), "f32", "trn.sbuf")})
    np.testing.assert_array_equal(out["y"], (2 - x).astype(BF16))
    np.testing.assert_array_equal(out["r"][:, 0], (2 - x).max(axis=1))


def test_scalar_tensor_tensor():
    x, c, t = randn(128, 64), randn(128, 1), randn(128, 64)
    body = (f"  nki.scalar_tensor_tensor %y, %x, %c, %t op0 subtract op1 multiply reverse0 : "
            f"{S((128, 64))}, {S((128, 64))}, {S((128, 1))}, {P((128, 64))}\n"
            f"  nki.scalar_tensor_tensor %z, %x, %half, %t op0 add op1 subtract reverse1 : "
            f"{S((128, 64))}, {S((128, 64))}, f32, {P((128, 64))}")
    out = run_nki(body, {"x": (x, "trn.sbuf"), "c": (c, "trn.sbuf"), "t": (t, "trn.psum")},
                  {"y": ((128, 64), "f32", "trn.sbuf"), "z": ((128, 64), "f32", "trn.sbuf")})
    np.testing.assert_allclose(out["y"], (c - x) * t, rtol=1e-6)
    np.testing.assert_allclose(out["z"], t - (x + 0.5), rtol=1e-6)


def test_select_tile_and_scalar():
    x, f = randn(128, 64), randn(128, 64)
    mask = RNG.integers(0, 2, (128, 64)).astype(np.uint8)
    body = (f"  nki.select %y, %m, %x, %f : {S((128, 64))}, {S((128, 64), 'ui8')}, {S((128, 64))}, {S((128, 64))}\n"
            f"  nki.select %z, %m, %x, %two : {S((128, 64), 'bf16')}, {S((128, 64), 'ui8')}, {S((128, 64))}, f32")
    out = run_nki(body, {"x": (x, "trn.sbuf"), "f": (f, "trn.sbuf"), "m": (mask, "trn.sbuf")},
                  {"y": ((128, 64), "f32", "trn.sbuf"), "z": ((128, 64), "bf16", "trn.sbuf")})
    np.testing.assert_array_equal(out["y"], np.where(mask != 0, x, f))
    np.testing.assert_array_equal(out["z"], np.where(mask != 0, x, 2.0).astype(BF16))


def test_affine_select_causal_mask():
    x = randn(128, 128)
    body = (f"  nki.affine_select %y, %x pattern [[-1, 128]] channel_multiplier 1 cmp greater_equal "
            f"on_false -inf : {S((128, 128))}, {S((128, 128))}")
    out = run_nki(body, {"x": (x, "trn.sbuf")}, {"y": ((128, 128), "f32", "trn.sbuf")})["y"]
    q, k = np.ogrid[:128, :128]
    np.testing.assert_array_equal(out, np.where(q >= k, x, -np.inf))


# --- run-time checks ----------------------------------------------------------------------------


def test_dynamic_partition_start_is_checked_at_run_time():
    x = randn(128, 8)
    body = f"""  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  scf.for %i = %c0 to %c2 step %c1 {{
    %start = arith.muli %i, %c32 : index
    %v = tirx.slice %x[%start, 0] [64, 8] : {S((128, 8))} -> {S((64, 8))}
    nki.reciprocal %v, %v : {S((64, 8))}, {S((64, 8))}
  }}"""
    with pytest.raises(InterpretError, match="starts at partition 32; a tile of 64 partitions "
                                             "must start at partition 0, 64") as info:
        run_nki(body, {"x": (x, "trn.sbuf")}, {})
    assert "nki_test.mlir:" in str(info.value) and "nki.reciprocal" in str(info.value)


def test_dynamic_psum_bank_crossing_is_checked_at_run_time():
    w, m = randn(128, 128, dtype=BF16), randn(128, 512, dtype=BF16)
    body = f"""  %c3 = arith.constant 3 : index
  %c256 = arith.constant 256 : index
  scf.for %i = %c0 to %c3 step %c1 {{
    %off = arith.muli %i, %c256 : index
    %pv = tirx.slice %p[0, %off] [128, 512] : {P((128, 2048))} -> {P((128, 512))}
    nki.matmul %pv, %w, %m : {P((128, 512))}, {S((128, 128), 'bf16')}, {S((128, 512), 'bf16')}
  }}"""
    with pytest.raises(InterpretError, match="crosses a 2048-byte bank boundary"):
        run_nki(body, {"w": (w, "trn.sbuf"), "m": (m, "trn.sbuf")}, {},
                extra=f"  %p = tirx.alloc : {P((128, 2048))}\n")


def test_static_limits_hold_for_unverified_ir():
    w, x = randn(128, 128, dtype=BF16), randn(128, 1024, dtype=BF16)
    body = f"  nki.matmul %y, %w, %x : {P((128, 1024))}, {S((128, 128), 'bf16')}, {S((128, 1024), 'bf16')}"
    with pytest.raises(InterpretError, match="moving free size N is 1024; TensorE allows at "
                                             "most 512"):
        run_nki(body, {"w": (w, "trn.sbuf"), "x": (x, "trn.sbuf")}, {}, verify=False,
                extra=f"  %y = tirx.alloc : {P((128, 1024))}\n")


def test_a_static_start_partition_beside_a_dynamic_free_offset_is_checked_once_run():
    """Only the free offset is dynamic: the start partition is checked when the op first runs
    (also in IR that was never verified), located at the op."""
    x = randn(128, 16)
    body = f"""  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {{
    %v = tirx.slice %x[32, %i] [64, 8] : {S((128, 16))} -> {S((64, 8))}
    nki.reciprocal %v, %v : {S((64, 8))}, {S((64, 8))}
  }}"""
    with pytest.raises(InterpretError, match="starts at partition 32; a tile of 64 partitions "
                                             "must start at partition 0, 64") as info:
        run_nki(body, {"x": (x, "trn.sbuf")}, {}, verify=False)
    assert "nki_test.mlir:" in str(info.value) and "nki.reciprocal" in str(info.value)


def test_tensor_tensor_into_a_view_overlapping_its_source_reads_the_source_first():
    """dst = x[:, 1:9] and lhs = x[:, 0:8] overlap, shifted by one element: every element is
    the sum of the values before the op (the fp32 in-place path must not read its own writes)."""
    x, b = randn(128, 16), randn(128, 8)
    body = f"""  nki.dma_copy %y, %x : {S((128, 16))}, {S((128, 16))}
  %d = tirx.slice %y[0, 1] [128, 8] : {S((128, 16))} -> {S((128, 8))}
  %l = tirx.slice %y[0, 0] [128, 8] : {S((128, 16))} -> {S((128, 8))}
  nki.tensor_tensor %d, %l, %b op add : {S((128, 8))}, {S((128, 8))}, {S((128, 8))}"""
    out = run_nki(body, {"x": (x, "trn.sbuf"), "b": (b, "trn.sbuf")},
                  {"y": ((128, 16), "f32", "trn.sbuf")})["y"]
    want = x.copy()
    want[:, 1:9] = x[:, 0:8] + b
    np.testing.assert_array_equal(out, want)


def test_matmul_accumulating_in_a_loop_into_fp32_psum_equals_the_sum():
    """The fp32 path computes straight into PSUM; each step adds the fresh product."""
    stat, mov = randn(128, 3, 128), randn(128, 3, 512)
    body = f"""  %c3 = arith.constant 3 : index
  nki.memset %y, %zero : {P((128, 512))}, f32
  scf.for %k = %c0 to %c3 step %c1 {{
    %sv = tirx.slice %s[0, %k, 0] [128, 1, 128] : {S((128, 3, 128))} -> {S((128, 1, 128))}
    %mv = tirx.slice %m[0, %k, 0] [128, 1, 512] : {S((128, 3, 512))} -> {S((128, 1, 512))}
    nki.matmul %y, %sv, %mv accumulate : {P((128, 512))}, {S((128, 1, 128))}, {S((128, 1, 512))}
  }}"""
    out = run_nki(body, {"s": (stat, "trn.sbuf"), "m": (mov, "trn.sbuf")},
                  {"y": ((128, 512), "f32", "trn.psum")},
                  extra="  %zero = arith.constant 0.0 : f32\n")["y"]
    ref = sum(stat[:, k].T @ mov[:, k] for k in range(3))
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


def test_fp32_activation_in_place_equals_the_float64_model_bit_for_bit():
    """The fp32 path (computed in dst through a float64 scratch) rounds as the model does:
    scale and bias in fp32, the function in float64, one rounding to fp32."""
    x, bias, scale = randn(128, 512), randn(128, 1), randn(128, 1)
    body = (f"  nki.dma_copy %y, %x : {S((128, 512))}, {S((128, 512))}\n"
            f"  nki.activation_reduce %y, %r, %y func exp bias %b scale %s : {S((128, 512))}, "
            f"{S((128, 1))}, {S((128, 512))}, {S((128, 1))}, {S((128, 1))}")
    out = run_nki(body, {"x": (x, "trn.sbuf"), "b": (bias, "trn.sbuf"), "s": (scale, "trn.sbuf")},
                  {"y": ((128, 512), "f32", "trn.sbuf"), "r": ((128, 1), "f32", "trn.sbuf")})
    e = np.exp((x * scale + bias).astype(np.float64)).astype(F32)
    np.testing.assert_array_equal(out["y"], e)
    np.testing.assert_array_equal(out["r"], np.add.reduce(e, axis=1, keepdims=True, dtype=F32))


def test_activation_whose_bias_is_a_column_of_its_destination_reads_the_bias_first():
    x, scale = randn(128, 8), randn(128, 1)
    body = (f"  nki.dma_copy %y, %x : {S((128, 8))}, {S((128, 8))}\n"
            f"  %bias = tirx.slice %y[0, 3] [128, 1] : {S((128, 8))} -> {S((128, 1))}\n"
            f"  nki.activation %y, %y func copy bias %bias scale %s : {S((128, 8))}, "
            f"{S((128, 8))}, {S((128, 1))}, {S((128, 1))}")
    out = run_nki(body, {"x": (x, "trn.sbuf"), "s": (scale, "trn.sbuf")},
                  {"y": ((128, 8), "f32", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out, x * scale + x[:, 3:4])


def test_tensor_scalar_one_reversed_op_in_place():
    x, v = randn(128, 64), randn(128, 1)
    body = (f"  nki.dma_copy %y, %x : {S((128, 64))}, {S((128, 64))}\n"
            f"  nki.tensor_scalar %y, %y, %v op0 subtract reverse0 : {S((128, 64))}, "
            f"{S((128, 64))}, {S((128, 1))}")
    out = run_nki(body, {"x": (x, "trn.sbuf"), "v": (v, "trn.sbuf")},
                  {"y": ((128, 64), "f32", "trn.sbuf")})["y"]
    np.testing.assert_array_equal(out, v - x)
