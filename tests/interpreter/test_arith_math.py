"""Scalar arith and math ops: every op xDSL leaves out (and the ones it has, now rounded to their
type), against Python/numpy references."""

import math

import ml_dtypes
import numpy as np
import pytest

from tirx_mlir.located_parser import parse_module
from tirx_mlir.interpreter import InterpretError, make_interpreter

NAN, INF = float("nan"), float("inf")


def f32(x):
    return float(np.float32(x))


def call(op_text: str, arg_types, result_types, *args):
    """Run ``%r = <op_text>`` in a func.func of the given argument types; returns the results."""
    result_types = [result_types] if isinstance(result_types, str) else result_types
    names = ", ".join(f"%r{i}" for i in range(len(result_types)))
    sig = ", ".join(f"%{n}: {t}" for n, t in zip("abc", arg_types))
    text = (f"func.func @f({sig}) -> ({', '.join(result_types)}) {{\n"
            f"  {names} = {op_text}\n  func.return {names} : {', '.join(result_types)}\n}}\n")
    module = parse_module(text, "f.mlir")
    module.verify()
    return make_interpreter(module).call_op("f", args)


def same(actual, expected) -> bool:
    if isinstance(expected, float) and math.isnan(expected):
        return isinstance(actual, float) and math.isnan(actual)
    if isinstance(expected, float) and expected == 0.0:
        return actual == 0.0 and math.copysign(1, actual) == math.copysign(1, expected)
    return type(actual) is type(expected) and actual == expected


ARITH = [
    # float arithmetic is rounded to the result type
    ("arith.addf %a, %b : f32", ["f32", "f32"], "f32", (1.0, 2.0 ** -30), 1.0),
    ("arith.addf %a, %b : f64", ["f64", "f64"], "f64", (1.0, 2.0 ** -30), 1.0 + 2.0 ** -30),
    ("arith.addf %a, %b : bf16", ["bf16", "bf16"], "bf16", (1.0, 2.0 ** -8), 1.0),
    ("arith.mulf %a, %b : f16", ["f16", "f16"], "f16", (300.0, 300.0), INF),
    ("arith.subf %a, %b : f32", ["f32", "f32"], "f32", (0.5, 0.25), 0.25),
    ("arith.divf %a, %b : f32", ["f32", "f32"], "f32", (1.0, 3.0), f32(1 / 3)),
    ("arith.divf %a, %b : f32", ["f32", "f32"], "f32", (1.0, 0.0), INF),
    ("arith.divf %a, %b : f32", ["f32", "f32"], "f32", (-1.0, 0.0), -INF),
    ("arith.divf %a, %b : f32", ["f32", "f32"], "f32", (0.0, 0.0), NAN),
    ("arith.negf %a : f32", ["f32"], "f32", (2.5,), -2.5),
    ("arith.maxnumf %a, %b : f32", ["f32", "f32"], "f32", (NAN, 1.0), 1.0),
    ("arith.minnumf %a, %b : f32", ["f32", "f32"], "f32", (2.0, NAN), 2.0),
    ("arith.maximumf %a, %b : f32", ["f32", "f32"], "f32", (NAN, 1.0), NAN),
    ("arith.minimumf %a, %b : f32", ["f32", "f32"], "f32", (-0.0, 0.0), -0.0),
    ("arith.cmpf olt, %a, %b : f32", ["f32", "f32"], "i1", (1.0, 2.0), True),
    ("arith.cmpf one, %a, %b : f32", ["f32", "f32"], "i1", (NAN, 2.0), False),
    ("arith.cmpf une, %a, %b : f32", ["f32", "f32"], "i1", (NAN, 2.0), True),
    ("arith.cmpf uno, %a, %b : f32", ["f32", "f32"], "i1", (NAN, 2.0), True),
    ("arith.cmpf ord, %a, %b : f32", ["f32", "f32"], "i1", (1.0, 2.0), True),
    ("arith.cmpf oge, %a, %b : f32", ["f32", "f32"], "i1", (2.0, 2.0), True),
    # integers (signed form, wrapping at the width)
    ("arith.addi %a, %b : i8", ["i8", "i8"], "i8", (127, 1), -128),
    ("arith.addi %a, %b : i8", ["i8", "i8"], "i8", (126, 1), 127),  # the range's ends
    ("arith.addi %a, %b : i8", ["i8", "i8"], "i8", (-127, -1), -128),
    ("arith.subi %a, %b : i8", ["i8", "i8"], "i8", (-128, 1), 127),
    ("arith.muli %a, %b : i64", ["i64", "i64"], "i64", (2 ** 62, 2), -2 ** 63),
    ("arith.addi %a, %b : i1", ["i1", "i1"], "i1", (True, True), False),
    ("arith.muli %a, %b : i16", ["i16", "i16"], "i16", (300, 300), 90000 - 65536 * 1),
    ("arith.subi %a, %b : index", ["index", "index"], "index", (3, 5), -2),
    ("arith.divsi %a, %b : i32", ["i32", "i32"], "i32", (-7, 2), -3),
    ("arith.remsi %a, %b : i32", ["i32", "i32"], "i32", (-7, 2), -1),
    ("arith.floordivsi %a, %b : i32", ["i32", "i32"], "i32", (-7, 2), -4),
    ("arith.ceildivsi %a, %b : i32", ["i32", "i32"], "i32", (7, 2), 4),
    ("arith.ceildivsi %a, %b : i32", ["i32", "i32"], "i32", (-7, 2), -3),
    ("arith.divui %a, %b : i8", ["i8", "i8"], "i8", (-1, 2), 127),
    ("arith.remui %a, %b : i8", ["i8", "i8"], "i8", (-1, 16), 15),
    ("arith.ceildivui %a, %b : i8", ["i8", "i8"], "i8", (-2, 2), 127),
    ("arith.maxsi %a, %b : i8", ["i8", "i8"], "i8", (-1, 1), 1),
    ("arith.maxui %a, %b : i8", ["i8", "i8"], "i8", (-1, 1), -1),
    ("arith.minsi %a, %b : i8", ["i8", "i8"], "i8", (-1, 1), -1),
    ("arith.minui %a, %b : i8", ["i8", "i8"], "i8", (-1, 1), 1),
    ("arith.andi %a, %b : i8", ["i8", "i8"], "i8", (12, 10), 8),
    ("arith.ori %a, %b : i8", ["i8", "i8"], "i8", (12, 10), 14),
    ("arith.xori %a, %b : i8", ["i8", "i8"], "i8", (12, 10), 6),
    ("arith.shli %a, %b : i8", ["i8", "i8"], "i8", (1, 7), -128),
    ("arith.shrsi %a, %b : i8", ["i8", "i8"], "i8", (-8, 1), -4),
    ("arith.shrui %a, %b : i8", ["i8", "i8"], "i8", (-8, 1), 124),
    ("arith.cmpi slt, %a, %b : i32", ["i32", "i32"], "i1", (-1, 1), True),
    ("arith.cmpi ult, %a, %b : i32", ["i32", "i32"], "i1", (-1, 1), False),
    ("arith.cmpi uge, %a, %b : i32", ["i32", "i32"], "i1", (-1, 1), True),
    ("arith.select %a, %b, %c : f32", ["i1", "f32", "f32"], "f32", (False, 1.0, 2.0), 2.0),
    # conversions
    ("arith.sitofp %a : i32 to f32", ["i32"], "f32", (16777217,), 16777216.0),
    ("arith.uitofp %a : i8 to f32", ["i8"], "f32", (-1,), 255.0),
    ("arith.fptosi %a : f32 to i8", ["f32"], "i8", (300.5,), 127),
    ("arith.fptosi %a : f32 to i32", ["f32"], "i32", (-3.75,), -3),
    ("arith.fptosi %a : f32 to i32", ["f32"], "i32", (NAN,), 0),
    ("arith.fptoui %a : f32 to i8", ["f32"], "i8", (200.0,), -56),
    ("arith.fptoui %a : f32 to i8", ["f32"], "i8", (-5.0,), 0),
    ("arith.extf %a : f16 to f32", ["f16"], "f32", (0.5,), 0.5),
    ("arith.truncf %a : f32 to f16", ["f32"], "f16", (65520.0,), INF),
    ("arith.truncf %a : f32 to bf16", ["f32"], "bf16", (1 + 3 * 2 ** -8,), 1 + 2 ** -6),
    ("arith.extsi %a : i8 to i32", ["i8"], "i32", (-1,), -1),
    ("arith.extui %a : i8 to i32", ["i8"], "i32", (-1,), 255),
    ("arith.extsi %a : i1 to i32", ["i1"], "i32", (True,), -1),
    ("arith.extui %a : i1 to i32", ["i1"], "i32", (True,), 1),
    ("arith.trunci %a : i32 to i8", ["i32"], "i8", (300,), 44),
    ("arith.index_cast %a : index to i8", ["index"], "i8", (200,), -56),
    ("arith.index_cast %a : i32 to index", ["i32"], "index", (-5,), -5),
    ("arith.bitcast %a : f32 to i32", ["f32"], "i32", (1.0,), 1065353216),
    ("arith.bitcast %a : i32 to f32", ["i32"], "f32", (-1082130432,), -1.0),
    ("arith.bitcast %a : f16 to i16", ["f16"], "i16", (-2.0,), -16384),
]


@pytest.mark.parametrize("op,types,result,args,expected", ARITH, ids=[c[0] for c in ARITH])
def test_arith(op, types, result, args, expected):
    (actual,) = call(op, types, result, *args)
    assert same(actual, expected), f"{op}{args}: got {actual!r}, expected {expected!r}"


def test_constants_are_rounded_to_their_type():
    (a,) = call("arith.constant 0.1 : f32", [], "f32")
    (b,) = call("arith.constant 0.1 : f64", [], "f64")
    (c,) = call("arith.constant 255 : i8", [], "i8")
    assert a == f32(0.1) and b == 0.1 and c == -1


def test_extended_arithmetic_has_two_results():
    assert call("arith.addui_extended %a, %b : i8, i1", ["i8", "i8"], ["i8", "i1"], -1, 2) == \
        (1, True)
    assert call("arith.mulsi_extended %a, %b : i8", ["i8", "i8"], ["i8", "i8"], -128, 2) == (0, -1)
    assert call("arith.mului_extended %a, %b : i8", ["i8", "i8"], ["i8", "i8"], -1, -1) == (1, -2)


@pytest.mark.parametrize("op", ["arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
                                "arith.floordivsi", "arith.ceildivsi", "arith.ceildivui"])
def test_integer_division_by_zero_is_an_error(op):
    with pytest.raises(InterpretError, match=rf"f\.mlir:2:3: error: {op}: integer division by zero"):
        call(f"{op} %a, %b : i32", ["i32", "i32"], "i32", 1, 0)


def test_oversized_shift_is_an_error():
    with pytest.raises(InterpretError, match=r"arith\.shli: shift by 8 bits of an i8 value"):
        call("arith.shli %a, %b : i8", ["i8", "i8"], "i8", 1, 8)


MATH_UNARY = {
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x),
    "tanh": np.tanh, "erf": math.erf, "absf": np.abs, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "atan": np.arctan, "asin": np.arcsin, "acos": np.arccos, "sinh": np.sinh,
    "cosh": np.cosh, "asinh": np.arcsinh, "atanh": np.arctanh, "cbrt": np.cbrt,
    "ceil": np.ceil, "floor": np.floor, "trunc": np.trunc, "roundeven": np.rint,
}


@pytest.mark.parametrize("name", list(MATH_UNARY))
@pytest.mark.parametrize("value", [0.3, -0.7])
def test_math_unary_f32(name, value):
    (actual,) = call(f"math.{name} %a : f32", ["f32"], "f32", value)
    with np.errstate(all="ignore"):
        expected = f32(MATH_UNARY[name](np.float64(value)))
    assert same(actual, expected)


def test_math_domain_errors_give_nan_and_inf_and_results_round_to_bf16():
    assert math.isnan(call("math.sqrt %a : f32", ["f32"], "f32", -1.0)[0])
    assert call("math.log %a : f32", ["f32"], "f32", 0.0)[0] == -INF
    assert call("math.acosh %a : f64", ["f64"], "f64", 2.0)[0] == float(np.arccosh(2.0))
    bf = call("math.exp %a : bf16", ["bf16"], "bf16", 1.0)[0]
    assert bf == float(np.float32(math.e).astype(ml_dtypes.bfloat16))


def test_math_rounding_ops_and_binary_ops():
    assert call("math.round %a : f32", ["f32"], "f32", 2.5)[0] == 3.0
    assert call("math.round %a : f32", ["f32"], "f32", -2.5)[0] == -3.0
    assert call("math.roundeven %a : f32", ["f32"], "f32", 2.5)[0] == 2.0
    assert call("math.copysign %a, %b : f32", ["f32", "f32"], "f32", 2.0, -0.0)[0] == -2.0
    assert call("math.atan2 %a, %b : f32", ["f32", "f32"], "f32", 1.0, -1.0)[0] == f32(
        math.atan2(1, -1))
    assert call("math.powf %a, %b : f32", ["f32", "f32"], "f32", 2.0, 0.5)[0] == f32(2 ** 0.5)
    assert call("math.fpowi %a, %b : f32, i32", ["f32", "i32"], "f32", 2.0, -2)[0] == 0.25
    assert call("math.fma %a, %b, %c : f32", ["f32", "f32", "f32"], "f32",
                1.5, 2.0, 0.25)[0] == 3.25


def test_math_integer_ops():
    assert call("math.ipowi %a, %b : i32", ["i32", "i32"], "i32", 3, 4)[0] == 81
    assert call("math.ipowi %a, %b : i8", ["i8", "i8"], "i8", 2, 7)[0] == -128
    assert call("math.ipowi %a, %b : i32", ["i32", "i32"], "i32", 2, -1)[0] == 0
    assert call("math.ipowi %a, %b : i32", ["i32", "i32"], "i32", -1, -3)[0] == -1
    assert call("math.absi %a : i8", ["i8"], "i8", -128)[0] == -128
    assert call("math.absi %a : i32", ["i32"], "i32", -5)[0] == 5
    assert call("math.ctlz %a : i32", ["i32"], "i32", 1)[0] == 31
    assert call("math.ctlz %a : i32", ["i32"], "i32", 0)[0] == 32
    assert call("math.cttz %a : i32", ["i32"], "i32", 8)[0] == 3
    assert call("math.cttz %a : i8", ["i8"], "i8", 0)[0] == 8
    assert call("math.ctpop %a : i8", ["i8"], "i8", -1)[0] == 8


def test_recursive_calls_keep_their_own_values():
    text = """func.func @fact(%n: i64) -> i64 {
  %c1 = arith.constant 1 : i64
  %le = arith.cmpi sle, %n, %c1 : i64
  %r = scf.if %le -> (i64) {
    scf.yield %c1 : i64
  } else {
    %m = arith.subi %n, %c1 : i64
    %f = func.call @fact(%m) : (i64) -> i64
    %p = arith.muli %n, %f : i64
    scf.yield %p : i64
  }
  func.return %r : i64
}
"""
    assert make_interpreter(parse_module(text)).call_op("fact", (10,)) == (3628800,)
