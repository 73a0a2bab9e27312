"""TIRx's rounding_mode config on elementwise arithmetic (backends/cuda/dispatch/rounded_arith.py):
numpy (the exact value as a Fraction, its neighbours by nextafter: tirx_testing/float_neighbours)
== tile interpreter == SIMT interpreter after every pass of the cuda pipeline, bit for bit
(signed zeros too); nvcc and ptxas take the result, which has one ``<op>.<mode>.f32`` per
operation; each invalid value is an error at the op."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower, run
from tirx_testing.float_neighbours import compare_with, exact_roundings

SHAPE = (32, 64)
PTX_KIND = {"add": "add", "sub": "sub", "mul": "mul", "fdiv": "div", "fma": "fma",
            "reciprocal": "rcp", "sqrt": "sqrt"}


def _kernel(op: str, mode: str, mid: str = "shared", dst: str = "f32", arch: str = "sm_80",
            mode_attr: str | None = None) -> str:
    """Operands X, Y, Z (f32, global) staged in ``mid``; ``op`` with the mode into a ``dst``
    tile in ``mid``; copied out to R (global)."""
    n = "x".join(map(str, SHAPE))
    g, m, d = (f"!tirx.buffer<{n}xf32, global>", f"!tirx.buffer<{n}xf32, {mid}>",
               f"!tirx.buffer<{n}x{dst}, {mid}>")
    gd = f"!tirx.buffer<{n}x{dst}, global>"
    config = f'config {{rounding_mode = {mode_attr or chr(34) + mode + chr(34)}}}'
    body = {
        "add": f"tirx.add cta %r, %a, %b {config} : {d}, {m}, {m}",
        "sub": f"tirx.sub cta %r, %a, %b {config} : {d}, {m}, {m}",
        "mul": f"tirx.mul cta %r, %a, %b {config} : {d}, {m}, {m}",
        "fdiv": f"tirx.fdiv cta %r, %a, %b {config} : {d}, {m}, {m}",
        "fma": f"tirx.fma cta %r, %a, %b, %c {config} : {d}, {m}, {m}, {m}",
        "reciprocal": f"tirx.reciprocal cta %r, %a {config} : {d}, {m}",
        "sqrt": f"tirx.sqrt cta %r, %a bias %c scale %b {config} : {d}, {m}, {m}, {m}",
    }[op]
    used = {"reciprocal": "a", "fma": "abc", "sqrt": "abc"}.get(op, "ab")
    allocs = "".join(f"  %{v} = tirx.alloc : {m}\n" for v in used)
    copies = "".join(f"  tirx.copy cta %{v}, %{'XYZ'['abc'.index(v)]} : {m}, {g}\n"
                     for v in used)
    return f"""tirx.kernel @k(%X: {g}, %Y: {g}, %Z: {g}) -> (%R: {gd}) grid [1] threads [128]
    target "cuda -arch={arch}" {{
{allocs}  %r = tirx.alloc : {d}
{copies}  {body}
  tirx.copy cta %R, %r : {gd}, {d}
  tirx.return
}}
"""


def _inputs(op: str) -> list[np.ndarray]:
    """Random magnitudes over f32's range (subnormals, overflowing products and quotients),
    ties and near-ties, and sums that are exactly zero (x + -x, +0 + -0)."""
    rng = np.random.default_rng(3)

    def spread(lo, hi):
        return (rng.standard_normal(SHAPE) * 10.0 ** rng.integers(lo, hi, SHAPE)).astype(
            np.float32)

    x, y, z = spread(-20, 20), spread(-20, 20), spread(-20, 20)
    x.flat[:64], y.flat[:64] = spread(-44, 38).flat[:64], spread(-44, 38).flat[:64]
    y.flat[64:96] = -x.flat[64:96]  # exact zeros of add (and sub, fma below)
    x.flat[96:98], y.flat[96:98] = np.float32(0.0), np.float32(-0.0)
    x.flat[98], y.flat[98] = np.float32(-0.0), np.float32(-0.0)
    x.flat[100:120] = np.float32(1.0)
    y.flat[100:120] = np.float32(2.0 ** -24) * np.arange(1, 21, dtype=np.float32)  # ties
    if op == "sub":
        y.flat[64:96] = x.flat[64:96]
    if op == "fma":
        z.flat[64:96] = -(x.flat[64:96].astype(np.float64) * y.flat[64:96]).astype(np.float32)
        y.flat[64:96] = np.float32(1.0)
        z.flat[64:96] = -x.flat[64:96]
    if op in ("fdiv", "reciprocal"):  # no 0 / 0 (NaN reads as unwritten memory)
        y.flat[96:99] = np.float32(1.0)
        x.flat[64:96] = y.flat[64:96]
    if op == "sqrt":  # sqrt(x * y + z) of a non-negative value
        x, y, z = np.abs(x), np.abs(y), np.abs(z)
    return [x, y, z]


def _exact(op: str, x, y, z) -> list:
    """The exact value of each element as a Fraction; None where an operand is not finite or
    a divisor is zero (numpy's answer is then the answer in every mode)."""
    F = [[Fraction(float(v)) if np.isfinite(v) else None for v in a.flat] for a in (x, y, z)]
    exact = {
        "add": lambda a, b, c: a + b, "sub": lambda a, b, c: a - b,
        "mul": lambda a, b, c: a * b, "fdiv": lambda a, b, c: a / b if b else None,
        "fma": lambda a, b, c: a * b + c, "reciprocal": lambda a, b, c: 1 / a if a else None,
    }[op]
    return [None if None in (a, b, c) else exact(a, b, c) for a, b, c in zip(*F)]


def _one_rounding(op, args, dt, mode):
    """The exact result of ``op`` on the f32 ``args``, rounded once to ``dt`` in ``mode`` (numpy's
    answer where it is not finite: a division by zero)."""
    x, y, z = (list(args) + [args[0]] * 3)[:3]
    values = _exact(op, x, y, z)
    with np.errstate(all="ignore"):  # overflows: inf, as the neighbours below expect
        numpy_value = {"add": x + y, "sub": x - y, "mul": x * y, "fdiv": x / y,
                       "fma": x.astype(np.float64) * y + z, "reciprocal": 1 / x}[op]
        candidate = numpy_value.astype(dt)
    finite = [v is not None for v in values]
    exact = [v if v is not None else Fraction(0) for v in values]
    out = exact_roundings(compare_with(exact), candidate)[mode]
    out = np.where(np.array(finite).reshape(out.shape), out, candidate)
    zero = np.array([v == 0 for v in values]).reshape(out.shape)
    out = np.where(zero, candidate, out)  # a product's or quotient's zero: numpy's sign
    if op in ("add", "sub", "fma"):  # IEEE 754 6.3: the exact zero sum of two zeros of one
        # sign has that sign; any other is +0, or -0 toward -inf
        with np.errstate(over="ignore"):  # only the zeros' signs are read
            a, b = (x, -y) if op == "sub" else (x, y) if op == "add" else (x * y, z)
        same = (a == 0) & (b == 0) & (np.signbit(a) == np.signbit(b))
        other = np.asarray(-0.0 if mode == "rm" else 0.0, dt)
        signed = np.where(same, np.where(np.signbit(a), np.asarray(-0.0, dt),
                                         np.asarray(0.0, dt)), other)
        out = np.where(zero, signed, out)
    return out


def _reference(op: str, mode: str, dt):
    def ref(x, y, z):
        if op == "sqrt":  # round(x * y) then round(+ z) in f32, then the root, each in the mode
            p = _one_rounding("mul", [x, y], np.dtype(np.float32), mode)
            s = _one_rounding("add", [p, z], np.dtype(np.float32), mode)
            root = np.sqrt(s.astype(np.float64)).astype(np.float32)
            a = [Fraction(float(v)) if np.isfinite(v) else Fraction(0) for v in s.flat]
            r = exact_roundings(lambda i, v: (v * abs(v) > a[i]) - (v * abs(v) < a[i]),
                                root)[mode]
            return [_narrow(np.where(np.isfinite(s), r, root), dt, mode)]
        args = {"reciprocal": [x]}.get(op, [x, y, z] if op == "fma" else [x, y])
        if dt == np.dtype(np.float32) or mode != "rn":
            return [_one_rounding(op, args, dt, mode)]  # directed: rounding twice is once
        with np.errstate(over="ignore"):  # past f16's range: inf, as the store rounds
            return [_one_rounding(op, args, np.dtype(np.float32), mode).astype(dt)]
    return ref


def _narrow(r, dt, mode):
    if dt == np.dtype(np.float32):
        return r
    exact = [Fraction(float(v)) if np.isfinite(v) else Fraction(0) for v in r.flat]
    with np.errstate(over="ignore"):
        out = exact_roundings(compare_with(exact), r.astype(dt))[mode]
    return np.where(np.isfinite(r), out, r.astype(dt))


def _bits(a):
    return np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}")


@pytest.mark.parametrize("op,mode,mid,dst,arch", [
    ("add", "rz", "shared", "f32", "sm_80"), ("add", "rm", "local", "f32", "sm_90a"),
    ("sub", "rp", "shared", "f32", "sm_80"), ("sub", "rm", "shared", "f16", "sm_80"),
    ("mul", "rm", "local", "f32", "sm_80"), ("mul", "rz", "shared", "bf16", "sm_90a"),
    ("fdiv", "rp", "shared", "f32", "sm_80"), ("fdiv", "rz", "local", "f32", "sm_80"),
    ("fma", "rm", "shared", "f32", "sm_80"), ("fma", "rp", "local", "f16", "sm_90a"),
    ("reciprocal", "rz", "shared", "f32", "sm_80"), ("reciprocal", "rp", "local", "f32",
                                                     "sm_90a"),
    ("sqrt", "rp", "shared", "f32", "sm_80"), ("sqrt", "rz", "local", "f32", "sm_80"),
    ("add", "rn", "shared", "f16", "sm_80"), ("fma", "rn", "shared", "f32", "sm_80"),
])
def test_arithmetic_rounds_in_its_rounding_mode(op, mode, mid, dst, arch):
    """numpy (exact, by Fractions) == tile == SIMT after every pass; the same bits (signed
    zeros included) from the final IR; nvcc + ptxas for the arch; the PTX instruction."""
    from ml_dtypes import bfloat16

    from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

    dt = np.dtype({"f32": np.float32, "f16": np.float16, "bf16": bfloat16}[dst])
    inputs = _inputs(op)
    ref = _reference(op, mode, dt)
    final = check_every_stage(_kernel(op, mode, mid, dst, arch), ref, arch=arch, rtol=0,
                              atol=0, name=op, inputs=inputs)
    (out,) = run(final, inputs)
    np.testing.assert_array_equal(_bits(out), _bits(ref(*inputs)[0]))
    assert f"{PTX_KIND[op]}.{mode}.f32" in emit_ptx(final)


def test_the_modes_differ_on_these_inputs():
    """Each mode's reference disagrees with the others' (so each test checks its mode)."""
    x, y, z = _inputs("add")
    outs = [_reference("add", m, np.dtype(np.float32))(x, y, z)[0] for m in ("rz", "rm", "rp")]
    for i, a in enumerate(outs):
        for b in outs[i + 1:]:
            assert (_bits(a) != _bits(b)).sum() > 100


@pytest.mark.parametrize("text_change,reason", [
    (("add", "rna", {}), "tirx.add config rounding_mode must be one of rn, rz, rm, rp"),
    (("mul", "rz", {"mode_attr": "1"}), "rounding_mode must be one of rn, rz, rm, rp; got 1"),
    (("fma", "rz", {"dst": "f64"}), "tirx.fma config rounding_mode rounds f32 arithmetic; "
                                     "operand 'dst' has type f64"),
    (("add", "rz", {"dst": "i32"}), "rounds arithmetic; operand 'dst' has type i32"),
])
def test_an_invalid_rounding_mode_fails_verification(text_change, reason):
    """(tests/filecheck/dialects/tirx/invalid.mlir shows the op's file:line:col.)"""
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.located_parser import parse_module

    op, mode, extra = text_change
    with pytest.raises(VerifyException, match=reason):
        parse_module(_kernel(op, mode, **extra), "k").verify()


def test_an_exact_op_takes_no_rounding_mode():
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.located_parser import parse_module

    text = _kernel("add", "rz").replace("tirx.add", "tirx.maximum")
    with pytest.raises(VerifyException, match="tirx.maximum is exact and takes no "
                                              "rounding_mode; it rounds add, sub, mul, fdiv"):
        parse_module(text, "k").verify()


def test_exp_with_a_rounding_mode_is_declined_at_the_op():
    """exp has no rounded PTX form: every variant declines, naming the configs it takes."""
    from tirx_mlir.diagnostics import TirxError, op_location

    text = _kernel("sqrt", "rz").replace("tirx.sqrt", "tirx.exp")
    with pytest.raises(TirxError, match=r"config rounding_mode is not a config of this "
                                        r"variant") as err:
        lower(text, name="k")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "tirx.exp" in t)
    assert op_location(err.value.op)[1:] == (line, 3)
