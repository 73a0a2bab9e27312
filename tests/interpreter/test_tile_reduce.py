"""Reductions and fused tile primitives against numpy: sum/max/min over axes with [P] and [P, 1]
destinations and accum, reduce_negate, binary_reduce, unary_reduce, binary_chain."""

import numpy as np
import pytest

import tirx_testing.interp as tx
from tirx_testing.interp import FLOATS, NP, assert_same, buf, kernel, run, sample

REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}
DTYPES = ("f16", "bf16", "f32", "f64", "f8E4M3FN", "i8", "i32", "ui8")
# (source shape, axes, destination shape)
AXES = [((4, 8), "[-1]", (4, 1)), ((4, 8), "[1]", (4,)), ((4, 8), "[0]", (8,)),
        ((4, 8), "[0, 1]", (1, 1)), ((2, 3, 4), "[-2, -1]", (2,)), ((2, 3, 4), "[0, 2]", (3, 1))]


def _axes(text: str, rank: int) -> tuple[int, ...]:
    return tuple(sorted(int(a) % rank for a in text.strip("[]").split(",")))


def _check(actual, expected, dt):
    if dt in FLOATS:  # a different summation order may differ in the last bit of f32
        np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                                   rtol=2e-6 if dt == "f32" else 1e-12 if dt == "f64" else 1e-2)
    else:
        assert_same(actual, expected)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", list(REDUCE))
@pytest.mark.parametrize("src,axes,dst", AXES)
def test_reduce(name, dt, src, axes, dst, rng):
    x = sample(dt, src, rng)
    s, d = "x".join(map(str, src)), "x".join(map(str, dst))
    body = f"  tirx.{name} %o, %x axes {axes} : {buf(f'{d}x{dt}')}, {buf(f'{s}x{dt}')}"
    (o,) = run(kernel([("x", f"{s}x{dt}")], [("o", f"{d}x{dt}")], body), x)
    ref = REDUCE[name](x.astype(tx.compute_dtype(dt)), axis=_axes(axes, len(src)))
    _check(o, ref.reshape(dst).astype(NP[dt]), dt)


@pytest.mark.parametrize("dt", ("f32", "bf16", "i32"))
@pytest.mark.parametrize("name", list(REDUCE))
def test_reduce_accum_folds_old_destination(name, dt, rng):
    x, init = sample(dt, (4, 8), rng), sample(dt, (4,), rng)
    body = f"  tirx.{name} %o, %x axes [-1] accum : {buf(f'4x{dt}')}, {buf(f'4x8x{dt}')}"
    o = init.copy()
    run(kernel([("x", f"4x8x{dt}")], [("o", f"4x{dt}")], body), x, o)  # o written in place
    cdt = tx.compute_dtype(dt)
    combine = {"sum": np.add, "max": np.maximum, "min": np.minimum}[name]
    ref = combine(init.astype(cdt), REDUCE[name](x.astype(cdt), axis=1)).astype(NP[dt])
    _check(o, ref, dt)


def test_reduce_without_axes_uses_the_last_and_propagates_nan(rng):
    x = sample("f32", (3, 5), rng)
    x[1, 2] = np.nan
    body = (f"  tirx.max %m, %x : {buf('3x1xf32')}, {buf('3x5xf32')}\n"
            f"  tirx.sum %s, %x : {buf('3xf32')}, {buf('3x5xf32')}")
    m, s = run(kernel([("x", "3x5xf32")], [("m", "3x1xf32"), ("s", "3xf32")], body), x)
    assert np.isnan(m[1, 0]) and np.isnan(s[1])
    assert m[0, 0] == x[0].max() and m[2, 0] == x[2].max()


@pytest.mark.parametrize("reduce", ["sum", "max", "min"])
@pytest.mark.parametrize("accum", [False, True])
def test_reduce_negate(reduce, accum, rng):
    x, init = sample("f32", (4, 8), rng), sample("f32", (4, 1), rng)
    flag = " accum" if accum else ""
    body = f"  tirx.reduce_negate %o, %x reduce {reduce}{flag} : {buf('4x1xf32')}, {buf('4x8xf32')}"
    o = init.copy()
    run(kernel([("x", "4x8xf32")], [("o", "4x1xf32")], body), x, o)
    red = REDUCE[reduce](x, axis=1, keepdims=True)
    if accum:  # the running negated reduction: -reduce(-old, reduce(x))
        red = {"sum": lambda a, b: a + b, "max": np.maximum, "min": np.minimum}[reduce](-init, red)
    np.testing.assert_allclose(o, -red, rtol=1e-6)


def test_negated_max_over_tiles_accumulates_to_the_global_negated_max(rng):
    x = sample("f32", (4, 16), rng)
    t, r = buf("4x8xf32"), buf("4x1xf32")
    body = (f"  %a = tirx.slice %x[0, 0] [4, 8] : {buf('4x16xf32')} -> {t}\n"
            f"  %b = tirx.slice %x[0, 8] [4, 8] : {buf('4x16xf32')} -> {t}\n"
            f"  tirx.reduce_negate %o, %a reduce max : {r}, {t}\n"
            f"  tirx.reduce_negate %o, %b reduce max accum : {r}, {t}")
    (o,) = run(kernel([("x", "4x16xf32")], [("o", "4x1xf32")], body), x)
    assert_same(o, -x.max(axis=1, keepdims=True))


BIN = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "fdiv": np.divide,
       "maximum": np.maximum, "minimum": np.minimum}


@pytest.mark.parametrize("binary", list(BIN))
@pytest.mark.parametrize("reduce", list(REDUCE))
def test_binary_reduce(binary, reduce, rng):
    a, b = sample("f32", (4, 8), rng), sample("f32", (1, 8), rng, positive=True)
    body = (f"  tirx.binary_reduce %e, %r, %a, %b binary {binary} reduce {reduce} : "
            f"{buf('4x8xbf16')}, {buf('4xf32')}, {buf('4x8xf32')}, {buf('1x8xf32')}")
    e, r = run(kernel([("a", "4x8xf32"), ("b", "1x8xf32")], [("e", "4x8xbf16"), ("r", "4xf32")],
                      body), a, b)
    value = BIN[binary](a, b)
    assert_same(e, value.astype(NP["bf16"]))
    # the reduction sees the f32 values, not the bf16-rounded elementwise output
    np.testing.assert_allclose(r, REDUCE[reduce](value, axis=1), rtol=1e-6)


UNARY = {"exp": np.exp, "exp2": np.exp2, "log2": np.log2, "sqrt": np.sqrt,
         "reciprocal": np.reciprocal, "silu": lambda x: x / (1 + np.exp(-x))}


@pytest.mark.parametrize("unary", list(UNARY))
def test_unary_reduce_with_bias_and_scale(unary, rng):
    x, bias = sample("f32", (4, 8), rng, positive=True), sample("f32", (4, 1), rng, positive=True)
    body = (f"  %s = arith.constant 2.0 : f32\n"
            f"  tirx.unary_reduce %u, %r, %x bias %b scale %s unary {unary} reduce sum : "
            f"{buf('4x8xf32')}, {buf('4x1xf32')}, {buf('4x8xf32')}, {buf('4x1xf32')}, f32")
    u, r = run(kernel([("x", "4x8xf32"), ("b", "4x1xf32")], [("u", "4x8xf32"), ("r", "4x1xf32")],
                      body), x, bias)
    value = UNARY[unary](x * np.float32(2.0) + bias)
    np.testing.assert_allclose(u, value, rtol=1e-6)
    np.testing.assert_allclose(r, value.sum(axis=1, keepdims=True), rtol=1e-6)


def test_unary_reduce_in_place_softmax_step(rng):
    """un_out aliases src (the softmax idiom): the op reads src before writing."""
    x = sample("f32", (4, 8), rng)
    t = buf("4x8xf32")
    body = (f"  tirx.copy %y, %x : {t}, {t}\n"
            f"  tirx.reduce_negate %m, %y reduce max : {buf('4x1xf32')}, {t}\n"
            f"  tirx.unary_reduce %y, %s, %y bias %m unary exp reduce sum : {t}, {buf('4x1xf32')}, "
            f"{t}, {buf('4x1xf32')}")
    y, m, s = run(kernel([("x", "4x8xf32")], [("y", "4x8xf32"), ("m", "4x1xf32"),
                                               ("s", "4x1xf32")], body), x)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e, rtol=1e-6)
    np.testing.assert_allclose(s, e.sum(1, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize("op0,op1", [("sub", "mul"), ("add", "fdiv"), ("mul", "maximum"),
                                     ("minimum", "sub")])
@pytest.mark.parametrize("reverse", [False, True])
def test_binary_chain(op0, op1, reverse, rng):
    data, c0, c1 = sample("f32", (4, 8), rng), sample("f32", (4, 1), rng), \
        sample("f32", (1, 8), rng, positive=True)
    flag = " reverse1" if reverse else ""
    body = (f"  tirx.binary_chain %o, %d, %a, %b op0 {op0} op1 {op1}{flag} : {buf('4x8xf32')}, "
            f"{buf('4x8xf32')}, {buf('4x1xf32')}, {buf('1x8xf32')}")
    (o,) = run(kernel([("d", "4x8xf32"), ("a", "4x1xf32"), ("b", "1x8xf32")],
                      [("o", "4x8xf32")], body), data, c0, c1)
    first = BIN[op0](data, c0)
    ref = BIN[op1](c1, first) if reverse else BIN[op1](first, c1)
    assert_same(o, ref.astype(np.float32))


def test_binary_chain_with_scalar_operands(rng):
    data = sample("bf16", (2, 8), rng)
    body = ("  %a = arith.constant 1.5 : f32\n  %b = arith.constant 0.25 : f32\n"
            f"  tirx.binary_chain %o, %d, %a, %b op0 sub op1 mul : {buf('2x8xbf16')}, "
            f"{buf('2x8xbf16')}, f32, f32")
    (o,) = run(kernel([("d", "2x8xbf16")], [("o", "2x8xbf16")], body), data)
    assert_same(o, ((data.astype(np.float32) - 1.5) * 0.25).astype(NP["bf16"]))
