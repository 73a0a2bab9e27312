"""Elementwise tile primitives against numpy, for every dtype they accept: binary ops with
broadcast and scalars, unary ops with bias/scale, fma, select, fill/memset/zero, cast, copies."""

import ml_dtypes
import numpy as np
import pytest

import tirx_testing.interp as tx
from tirx_testing.interp import FLOATS, INTS, NP, assert_same, buf, kernel, run, sample

BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "fdiv": np.true_divide,
          "maximum": np.maximum, "minimum": np.minimum}
BINARY_CASES = [(n, d) for n in BINARY for d in FLOATS + INTS if n != "fdiv" or d in FLOATS]


@pytest.mark.parametrize("name,dt", BINARY_CASES)
def test_binary_with_row_broadcast(name, dt, rng):
    a = sample(dt, (4, 8), rng)
    b = sample(dt, (1, 8), rng, positive=name == "fdiv")
    body = f"  tirx.{name} %o, %a, %b : {buf(f'4x8x{dt}')}, {buf(f'4x8x{dt}')}, {buf(f'1x8x{dt}')}"
    (o,) = run(kernel([("a", f"4x8x{dt}"), ("b", f"1x8x{dt}")], [("o", f"4x8x{dt}")], body), a, b)
    cdt = tx.compute_dtype(dt)
    assert_same(o, BINARY[name](a.astype(cdt), b.astype(cdt)).astype(NP[dt]))


@pytest.mark.parametrize("dt", ["f32", "bf16", "i32"])
def test_binary_with_scalar_on_either_side(dt, rng):
    scalar_t = "f32" if dt in FLOATS else "i32"
    value = "0.75" if dt in FLOATS else "3"
    a = sample(dt, (3, 5), rng)
    t = buf(f"3x5x{dt}")
    body = (f"  %s = arith.constant {value} : {scalar_t}\n"
            f"  tirx.sub %o, %s, %a : {t}, {scalar_t}, {t}\n"
            f"  tirx.mul %p, %a, %s : {t}, {t}, {scalar_t}")
    o, p = run(kernel([("a", f"3x5x{dt}")], [("o", f"3x5x{dt}"), ("p", f"3x5x{dt}")], body), a)
    cdt = tx.compute_dtype(dt, scalar_t)
    s = float(value) if dt in FLOATS else int(value)
    assert_same(o, (s - a.astype(cdt)).astype(NP[dt]))
    assert_same(p, (a.astype(cdt) * s).astype(NP[dt]))


def test_binary_in_place_with_column_broadcast(rng):
    a = sample("f32", (4, 6), rng)
    c = sample("f32", (4, 1), rng)
    t, tc = buf("4x6xf32"), buf("4x1xf32")
    body = (f"  tirx.copy %o, %a : {t}, {t}\n"
            f"  tirx.add %o, %o, %c : {t}, {t}, {tc}\n"
            f"  tirx.mul %o, %o, %o : {t}, {t}, {t}")
    (o,) = run(kernel([("a", "4x6xf32"), ("c", "4x1xf32")], [("o", "4x6xf32")], body), a, c)
    assert_same(o, (a + c) * (a + c))


UNARY = {"exp": np.exp, "exp2": np.exp2, "log2": np.log2, "sqrt": np.sqrt}


@pytest.mark.parametrize("dt", FLOATS)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_with_bias_and_scale(name, dt, rng):
    x = sample(dt, (4, 8), rng, positive=True)
    bias = sample(dt, (4, 1), rng, positive=True)
    body = (f"  %s = arith.constant 0.5 : f32\n"
            f"  tirx.{name} %o, %x bias %b scale %s : {buf(f'4x8x{dt}')}, {buf(f'4x8x{dt}')}, "
            f"{buf(f'4x1x{dt}')}, f32")
    (o,) = run(kernel([("x", f"4x8x{dt}"), ("b", f"4x1x{dt}")], [("o", f"4x8x{dt}")], body),
               x, bias)
    cdt = tx.compute_dtype(dt, "f32")
    ref = UNARY[name](x.astype(cdt) * np.asarray(0.5, cdt) + bias.astype(cdt)).astype(NP[dt])
    assert_same(o, ref)


@pytest.mark.parametrize("dt", FLOATS)
def test_reciprocal_silu_and_plain_unary(dt, rng):
    x = sample(dt, (2, 16), rng, positive=True)
    t = buf(f"2x16x{dt}")
    body = (f"  tirx.reciprocal %r, %x : {t}, {t}\n"
            f"  tirx.silu %s, %x : {t}, {t}\n"
            f"  tirx.sqrt %q, %x : {t}, {t}")
    r, s, q = run(kernel([("x", f"2x16x{dt}")],
                         [("r", f"2x16x{dt}"), ("s", f"2x16x{dt}"), ("q", f"2x16x{dt}")], body), x)
    xc = x.astype(tx.compute_dtype(dt))
    assert_same(r, (1 / xc).astype(NP[dt]))
    assert_same(s, (xc / (1 + np.exp(-xc))).astype(NP[dt]))
    assert_same(q, np.sqrt(xc).astype(NP[dt]))


@pytest.mark.parametrize("dt", FLOATS + INTS)
def test_fma_with_column_scale_and_row_bias(dt, rng):
    x, s, b = sample(dt, (4, 8), rng), sample(dt, (4, 1), rng), sample(dt, (1, 8), rng)
    body = (f"  tirx.fma %o, %x, %s, %b : {buf(f'4x8x{dt}')}, {buf(f'4x8x{dt}')}, "
            f"{buf(f'4x1x{dt}')}, {buf(f'1x8x{dt}')}")
    (o,) = run(kernel([("x", f"4x8x{dt}"), ("s", f"4x1x{dt}"), ("b", f"1x8x{dt}")],
                      [("o", f"4x8x{dt}")], body), x, s, b)
    cdt = tx.compute_dtype(dt)
    assert_same(o, (x.astype(cdt) * s.astype(cdt) + b.astype(cdt)).astype(NP[dt]))


def test_fma_operands_each_broadcast_to_the_destination(rng):
    x, b = sample("f32", (1, 8), rng), sample("f32", (4, 8), rng)
    body = ("  %s = arith.constant 3.0 : f32\n"
            f"  tirx.fma %o, %x, %s, %b : {buf('4x8xf32')}, {buf('1x8xf32')}, f32, {buf('4x8xf32')}")
    (o,) = run(kernel([("x", "1x8xf32"), ("b", "4x8xf32")], [("o", "4x8xf32")], body), x, b)
    assert_same(o, x * np.float32(3) + b)


PREDICATES = [
    ("(d0, d1) : (d1 - d0 - 1 >= 0)", lambda i, j: j - i - 1 >= 0),   # strictly upper triangle
    ("(d0, d1) : (d0 - d1 >= 0)", lambda i, j: i >= j),               # causal (lower + diag)
    ("(d0, d1) : (d0 - 1 >= 0, 2 - d0 >= 0)", lambda i, j: (i >= 1) & (i <= 2)),
    ("(d0, d1) : (d1 mod 3 == 0)", lambda i, j: j % 3 == 0),
    ("(d0, d1) : (d1 floordiv 2 - d0 == 0)", lambda i, j: j // 2 == i),
]


@pytest.mark.parametrize("where,pred", PREDICATES)
def test_select_predicates(where, pred, rng):
    a = sample("f32", (4, 8), rng)
    t = buf("4x8xf32")
    body = (f"  %f = arith.constant -1.0e+30 : f32\n"
            f"  tirx.select %o, %a, %f where {where} : {t}, {t}, f32")
    (o,) = run(kernel([("a", "4x8xf32")], [("o", "4x8xf32")], body), a)
    i, j = np.indices((4, 8))
    assert_same(o, np.where(pred(i, j), a, np.float32(-1e30)))


@pytest.mark.parametrize("dt", FLOATS + INTS)
def test_select_dtypes_with_buffer_false_value(dt, rng):
    a, b = sample(dt, (3, 3), rng), sample(dt, (1, 3), rng)
    t = buf(f"3x3x{dt}")
    body = f"  tirx.select %o, %a, %b where (d0, d1) : (d0 - d1 == 0) : {t}, {t}, {buf(f'1x3x{dt}')}"
    (o,) = run(kernel([("a", f"3x3x{dt}"), ("b", f"1x3x{dt}")], [("o", f"3x3x{dt}")], body), a, b)
    assert_same(o, np.where(np.eye(3, dtype=bool), a, b))


def test_copy_async_where_zero_fills_where_the_predicate_fails(rng):
    """A predicated copy_async in a loop: tile %i keeps rows below 6 - %i and columns up to
    4 + 2 * %i (floor), and is 0 elsewhere."""
    a = sample("f32", (3, 4, 8), rng)
    g, t = buf("3x4x8xf32"), buf("4x8xf32")
    sh = "!tirx.buffer<4x8xf32, shared>"
    body = f"""  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s = tirx.alloc : {sh}
  scf.for %i = %c0 to %c3 step %c1 {{
    %x = tirx.slice %a[%i, 0, 0] [1, 4, 8] : {g} -> !tirx.buffer<1x4x8xf32, global>
    %xr = tirx.reshape %x : !tirx.buffer<1x4x8xf32, global> -> {t}
    %y = tirx.slice %o[%i, 0, 0] [1, 4, 8] : {g} -> !tirx.buffer<1x4x8xf32, global>
    %yr = tirx.reshape %y : !tirx.buffer<1x4x8xf32, global> -> {t}
    tirx.copy_async %s, %xr where (d0, d1)[s0] : (5 - s0 - d0 >= 0, 8 + 4 * s0 - 2 * d1 >= 0) symbols [%i] : {sh}, {t}, index
    tirx.copy %yr, %s : {t}, {sh}
  }}"""
    (o,) = run(kernel([("a", "3x4x8xf32")], [("o", "3x4x8xf32")], body), a)
    k, i, j = np.indices((3, 4, 8))
    assert_same(o, np.where((i <= 5 - k) & (2 * j <= 8 + 4 * k), a, np.float32(0)))


@pytest.mark.parametrize("dt", FLOATS + INTS + ("i1",))
def test_fill_memset_zero(dt):
    scalar_t, value = ("f32", "2.75") if dt in FLOATS else ("i32", "300")
    if dt == "i1":
        scalar_t, value = "i1", "1"
    t = buf(f"2x3x{dt}")
    body = (f"  %v = arith.constant {value} : {scalar_t}\n"
            f"  tirx.fill %f, %v : {t}, {scalar_t}\n"
            f"  tirx.memset %m, %v : {t}, {scalar_t}\n"
            f"  tirx.zero %z : {t}")
    f, m, z = run(kernel([], [("f", f"2x3x{dt}"), ("m", f"2x3x{dt}"), ("z", f"2x3x{dt}")], body))
    expected = {"f": np.float32(2.75), "i": np.int64(300), "b": True}[
        "f" if dt in FLOATS else "b" if dt == "i1" else "i"]
    want = np.full((2, 3), expected).astype(NP[dt])  # ints wrap: 300 -> 44 in i8
    assert_same(f, want)
    assert_same(m, want)
    assert_same(z, np.zeros((2, 3), NP[dt]))


def test_fill_wraps_and_rounds_on_store():
    body = ("  %v = arith.constant 300 : i32\n"
            f"  tirx.fill %a, %v : {buf('2xi8')}, i32\n"
            "  %w = arith.constant 1.00390625 : f32\n"      # 1 + 2^-8: a bf16 tie
            f"  tirx.fill %b, %w : {buf('2xbf16')}, f32")
    a, b = run(kernel([], [("a", "2xi8"), ("b", "2xbf16")], body))
    assert a.tolist() == [44, 44]
    assert b.astype(np.float32).tolist() == [1.0, 1.0]  # ties round to even


CASTS = [("f32", "bf16"), ("f32", "f16"), ("f32", "f8E4M3FN"), ("f32", "f8E5M2"),
         ("f64", "f32"), ("bf16", "f32"), ("f8E4M3FN", "f16"), ("i32", "f16"), ("i32", "i8"),
         ("i8", "f32"), ("ui8", "i8"), ("f32", "i8"), ("f32", "ui8"), ("f16", "i32"),
         ("f32", "i1"), ("i1", "f32")]


def _reference_cast(x: np.ndarray, dst: str) -> np.ndarray:
    """The documented store rules, restated independently of the interpreter."""
    dt = NP[dst]
    if dst == "i1":
        return x.astype(np.float64) != 0
    if dt.kind in "iu" and x.dtype.kind not in "iub":
        info = np.iinfo(dt)
        y = np.trunc(x.astype(np.float64))
        y = np.where(np.isnan(y), 0, np.clip(y, info.min, info.max))
        return y.astype(dt)
    if dt.kind in "iu":
        return x.astype(np.int64).astype(dt)
    return x.astype(dt)


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("src,dst", CASTS)
def test_cast(src, dst, rng):
    x = sample(src, (4, 8), rng)
    if src in FLOATS:  # include out-of-range, NaN, halves and ties
        x = (x.astype(np.float32) * 60).astype(NP[src])
        x[0, :4] = np.array([np.nan, 1e6, -1e6, 2.5], np.float32).astype(NP[src])
    (o,) = run(kernel([("x", f"4x8x{src}")], [("o", f"4x8x{dst}")],
                      f"  tirx.cast %o, %x : {buf(f'4x8x{dst}')}, {buf(f'4x8x{src}')}"), x)
    assert_same(o, _reference_cast(x, dst))


def test_float_to_int_truncates_saturates_and_zeroes_nan():
    x = np.array([2.9, -2.9, 1e9, -1e9, np.nan, 127.5, -128.5, 0.0], np.float32)
    (o,) = run(kernel([("x", "8xf32")], [("o", "8xi8")],
                      f"  tirx.cast %o, %x : {buf('8xi8')}, {buf('8xf32')}"), x)
    assert o.tolist() == [2, -2, 127, -128, 0, 127, -128, 0]


def test_copy_converts_and_drops_unit_dims(rng):
    x = sample("f32", (4, 1, 8), rng)
    body = (f"  tirx.copy %o, %x : {buf('4x8xbf16')}, {buf('4x1x8xf32')}\n"
            f"  tirx.copy_async %p, %x : {buf('1x4x8xf32')}, {buf('4x1x8xf32')}")
    o, p = run(kernel([("x", "4x1x8xf32")], [("o", "4x8xbf16"), ("p", "1x4x8xf32")], body), x)
    assert_same(o, x.reshape(4, 8).astype(ml_dtypes.bfloat16))
    assert_same(p, x.reshape(1, 4, 8))


def test_permute_layout_keeps_logical_values(rng):
    x = sample("f16", (8, 16), rng)
    col_major = "!tirx.buffer<8x16xf16, shared, S[(8,16):(1,8)]>"
    body = (f"  %s = tirx.alloc : {col_major}\n"
            f"  tirx.permute_layout %s, %x : {col_major}, {buf('8x16xf16')}\n"
            f"  tirx.copy %o, %s : {buf('8x16xf16')}, {col_major}")
    (o,) = run(kernel([("x", "8x16xf16")], [("o", "8x16xf16")], body), x)
    assert_same(o, x)


def test_compose_op_runs_its_body_in_order(rng):
    x = sample("f32", (4, 8), rng)
    t, r = buf("4x8xf32"), buf("4x1xf32")
    body = (f"  tirx.compose_op {{\n"
            f"    tirx.exp %e, %x : {t}, {t}\n"
            f"    tirx.sum %s, %e axes [-1] : {r}, {t}\n"
            f"    tirx.fdiv %e, %e, %s : {t}, {t}, {r}\n"
            f"  }}")
    e, s = run(kernel([("x", "4x8xf32")], [("e", "4x8xf32"), ("s", "4x1xf32")], body), x)
    ex = np.exp(x)
    np.testing.assert_allclose(s, ex.sum(-1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(e, ex / ex.sum(-1, keepdims=True), rtol=1e-6)
