"""Differential test: every arith and math op on lane arrays against the core scalar interpreter.

Each case parses one op, runs it lane by lane through the core interpreter (``run_op`` on Python
scalars: the reference semantics) and once through `ARITH_LANES`/`MATH_LANES` on whole lane
arrays, and compares the results bit for bit (any NaN equals any NaN: the core keeps NaNs as
Python floats, which carry no payload). Inputs are random bit patterns and random values plus
the edge values of each type (0, -0, +-1, min, max, NaN, +-inf, subnormals, ties). Lanes where
the core raises (division by zero, over-wide shifts) must be exactly the lanes named by the
`LaneFault`, and masking them off must silence it.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from xdsl.dialects import arith, math as mathd

from tirx_mlir.backends.cuda.interpreter.lane_ops.arith_lanes import ARITH_LANES
from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import LaneFault, lane_dtype
from tirx_mlir.backends.cuda.interpreter.lane_ops.math_lanes import MATH_LANES
from tirx_mlir.interpreter import InterpretError, make_interpreter
from tirx_mlir.interpreter.runtime import is_float_dtype, to_python
from tirx_mlir.located_parser import parse_module

L = 96
INTS = ("i1", "i8", "i16", "i32", "i64", "index")
FLOATS = ("f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2")
WIDE_FLOATS = ("f16", "bf16", "f32", "f64")
LANES = {**ARITH_LANES, **MATH_LANES}


# --- inputs --------------------------------------------------------------------------------------


def _float_edges(dt: np.dtype) -> list[float]:
    info = ml_dtypes.finfo(dt)
    tiny, sub = float(info.smallest_normal), float(info.smallest_subnormal)
    return [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, float("nan"), float("inf"),
            float("-inf"), float(info.max), -float(info.max), tiny, -tiny, sub, -sub,
            tiny - sub, 2.0 ** 24 + 1, -(2.0 ** 31), 2.0 ** 31, 2.0 ** 63, -(2.0 ** 63),
            2.0 ** 64, 127.5, 255.5, -128.5, 1e-3, 65520.0, 0.1]


def float_inputs(rng, dt: np.dtype, n: int = L) -> np.ndarray:
    edges = np.asarray(_float_edges(dt), dtype=np.float64)
    bits = rng.integers(0, 1 << (8 * dt.itemsize), size=n, dtype=np.uint64)
    random_bits = bits.astype(np.dtype(f"u{dt.itemsize}")).view(dt)
    values = (rng.standard_normal(n) * np.exp2(rng.integers(-12, 12, size=n))).astype(dt)
    with np.errstate(over="ignore"):  # edges past a narrow type's range become inf (or NaN)
        edges = edges.astype(dt)
    return _with_edges(rng, edges, np.concatenate([random_bits, values]), n)


def _with_edges(rng, edges: np.ndarray, pool: np.ndarray, n: int) -> np.ndarray:
    """All the edge values, then random picks from ``pool``, shuffled: ``n`` in all."""
    fill = rng.permutation(pool)[:max(n - len(edges), 0)]
    return rng.permutation(np.concatenate([edges, fill]))


def int_inputs(rng, t: str, n: int = L) -> np.ndarray:
    dt = lane_dtype(_type(t))
    if dt == np.bool_:
        return rng.integers(0, 2, size=n).astype(np.bool_)
    info = np.iinfo(dt)
    edges = np.asarray([0, 1, -1, 2, -2, 7, -7, info.min, info.max, info.min + 1, info.max - 1,
                        3, 8, 16, 31, 32, 63], dtype=np.int64).astype(dt)
    bits = rng.integers(0, 1 << 63, size=n, dtype=np.uint64).view(np.int64).astype(dt)
    small = rng.integers(-40, 40, size=n).astype(dt)
    return _with_edges(rng, edges, np.concatenate([bits, small]), n)


def _type(name: str):
    from xdsl.dialects.builtin import IndexType

    from tirx_mlir.dialects.tirx import dtypes
    return IndexType() if name == "index" else dtypes.element_type(name)


def inputs_for(rng, t: str) -> np.ndarray:
    return int_inputs(rng, t) if t in INTS else float_inputs(rng, lane_dtype(_type(t)))


# --- running both sides --------------------------------------------------------------------------


def parse_op(op_text: str, arg_types, result_types):
    names = ", ".join(f"%r{i}" for i in range(len(result_types)))
    sig = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
    text = (f"func.func @f({sig}) -> ({', '.join(result_types)}) {{\n"
            f"  {names} = {op_text}\n  func.return {names} : {', '.join(result_types)}\n}}\n")
    module = parse_module(text, "f.mlir")
    module.verify()
    func = module.body.block.first_op
    return make_interpreter(module), func.body.block.first_op


def core_results(interp, op, args):
    """Per lane: the core's results as Python scalars, or the InterpretError it raised."""
    out = []
    for lane in range(args[0].shape[0] if args else L):
        values = tuple(to_python(a[lane]) for a in args)
        try:
            out.append(interp.run_op(op, values))
        except InterpretError as err:
            out.append(err)
    return out


def _bits(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.bool_:
        return a
    return np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))


def assert_same(actual: np.ndarray, expected: np.ndarray, what: str, inputs) -> None:
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape
    same = _bits(actual) == _bits(expected)
    if is_float_dtype(actual.dtype):
        f = lambda a: a.astype(np.float64)  # noqa: E731
        same |= np.isnan(f(actual)) & np.isnan(f(expected))
    bad = np.flatnonzero(~same)
    assert not bad.size, (f"{what}: {bad.size} lanes differ, first lane {bad[0]}: inputs "
                          f"{[a[bad[0]] for a in inputs]}, got {actual[bad[0]]!r}, "
                          f"expected {expected[bad[0]]!r}")


def check_op(op_text: str, arg_types, result_types, args=None, seed=0):
    rng = np.random.default_rng(seed)
    interp, op = parse_op(op_text, arg_types, result_types)
    if args is None:
        args = tuple(inputs_for(rng, t) for t in arg_types)
    if isinstance(op, mathd.IPowIOp):  # the core computes base ** exp exactly: keep exp small
        args = (args[0], (args[1].astype(np.int64) % 70 - 5).astype(args[1].dtype))
    n = args[0].shape[0] if args else L
    per_lane = core_results(interp, op, args)
    faulty = np.asarray([isinstance(r, InterpretError) for r in per_lane])
    lane_fn = LANES[type(op)]
    mask = np.ones(n, dtype=bool)
    if faulty.any():
        with pytest.raises(LaneFault) as info:
            with np.errstate(all="ignore"):
                lane_fn(op, args, mask)
        assert list(info.value.lanes) == list(np.flatnonzero(faulty)), op_text
        first = next(r for r in per_lane if isinstance(r, InterpretError))
        assert info.value.message.split(" (")[0] in first.message, (info.value.message,
                                                                     first.message)
        mask = ~faulty
    with np.errstate(all="ignore"):
        actual = lane_fn(op, args, mask)
    assert len(actual) == len(result_types)
    for i, t in enumerate(result_types):
        dt = lane_dtype(_type(t))
        expected = np.asarray([np.asarray(r[i]).astype(dt) if not isinstance(r, Exception)
                               else actual[i][lane] for lane, r in enumerate(per_lane)], dtype=dt)
        if isinstance(op, arith.BitcastOp) and is_float_dtype(args[0].dtype):
            # the core holds floats as Python floats, which lose a NaN's payload: a NaN's
            # bits are the input's own
            nan = np.isnan(args[0].astype(np.float64))
            expected[nan] = args[0][nan].view(dt)
        assert_same(actual[i], expected, f"{op_text} result {i}", args)
    return op


# --- the cases -----------------------------------------------------------------------------------

INT_BINARY = ("addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi",
              "ceildivsi", "ceildivui", "maxsi", "minsi", "maxui", "minui", "andi", "ori", "xori",
              "shli", "shrsi", "shrui")
CMPI = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
CMPF = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
        "ule", "une", "uno", "true")
FLOAT_BINARY = ("addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf", "minnumf")

CASES = []
for _name in INT_BINARY:
    for _t in INTS:
        CASES.append((f"arith.{_name} %a0, %a1 : {_t}", [_t, _t], [_t]))
for _t in INTS:
    if _t != "index":  # xDSL infers no overflow type for index
        CASES.append((f"arith.addui_extended %a0, %a1 : {_t}, i1", [_t, _t], [_t, "i1"]))
    CASES.append((f"arith.mulsi_extended %a0, %a1 : {_t}", [_t, _t], [_t, _t]))
    CASES.append((f"arith.mului_extended %a0, %a1 : {_t}", [_t, _t], [_t, _t]))
    CASES.append((f"arith.select %a0, %a1, %a2 : {_t}", ["i1", _t, _t], [_t]))
    for _p in CMPI:
        CASES.append((f"arith.cmpi {_p}, %a0, %a1 : {_t}", [_t, _t], ["i1"]))
for _t in FLOATS:
    for _name in FLOAT_BINARY:
        CASES.append((f"arith.{_name} %a0, %a1 : {_t}", [_t, _t], [_t]))
    CASES.append((f"arith.negf %a0 : {_t}", [_t], [_t]))
    CASES.append((f"arith.select %a0, %a1, %a2 : {_t}", ["i1", _t, _t], [_t]))
    for _p in CMPF:
        CASES.append((f"arith.cmpf {_p}, %a0, %a1 : {_t}", [_t, _t], ["i1"]))
for _src, _dst in (("f16", "f32"), ("bf16", "f32"), ("f32", "f64"), ("f16", "f64"),
                   ("f8E4M3FN", "f16"), ("f8E5M2", "f32"), ("bf16", "f64")):
    CASES.append((f"arith.extf %a0 : {_src} to {_dst}", [_src], [_dst]))
    CASES.append((f"arith.truncf %a0 : {_dst} to {_src}", [_dst], [_src]))
for _src, _dst in (("f64", "f16"), ("f32", "f8E4M3FN"), ("f64", "f8E5M2"), ("f32", "bf16")):
    CASES.append((f"arith.truncf %a0 : {_src} to {_dst}", [_src], [_dst]))
for _i in INTS[:-1]:  # not index: the casts take signless integers
    for _f in ("f16", "bf16", "f32", "f64", "f8E4M3FN"):
        CASES.append((f"arith.sitofp %a0 : {_i} to {_f}", [_i], [_f]))
        CASES.append((f"arith.uitofp %a0 : {_i} to {_f}", [_i], [_f]))
        CASES.append((f"arith.fptosi %a0 : {_f} to {_i}", [_f], [_i]))
        CASES.append((f"arith.fptoui %a0 : {_f} to {_i}", [_f], [_i]))
for _i, _w in enumerate(INTS[:-1]):
    for _n in INTS[_i + 1:-1]:
        CASES.append((f"arith.extsi %a0 : {_w} to {_n}", [_w], [_n]))
        CASES.append((f"arith.extui %a0 : {_w} to {_n}", [_w], [_n]))
        CASES.append((f"arith.trunci %a0 : {_n} to {_w}", [_n], [_w]))
for _t in ("i8", "i16", "i32", "i64"):
    CASES.append((f"arith.index_cast %a0 : index to {_t}", ["index"], [_t]))
    CASES.append((f"arith.index_cast %a0 : {_t} to index", [_t], ["index"]))
for _a, _b in (("f32", "i32"), ("f16", "i16"), ("bf16", "i16"), ("f64", "i64"),
               ("f16", "bf16"), ("f8E4M3FN", "i8"), ("i1", "i1")):
    CASES.append((f"arith.bitcast %a0 : {_a} to {_b}", [_a], [_b]))
    CASES.append((f"arith.bitcast %a0 : {_b} to {_a}", [_b], [_a]))
for _t in WIDE_FLOATS:
    for _op in mathd.Math.operations:
        _name = _op.name.split(".")[1]
        if _name in ("absi", "ctlz", "cttz", "ctpop", "ipowi", "fpowi", "fma", "atan2",
                     "copysign", "powf"):
            continue
        CASES.append((f"math.{_name} %a0 : {_t}", [_t], [_t]))
    for _name in ("atan2", "copysign", "powf"):
        CASES.append((f"math.{_name} %a0, %a1 : {_t}", [_t, _t], [_t]))
    CASES.append((f"math.fma %a0, %a1, %a2 : {_t}", [_t, _t, _t], [_t]))
    CASES.append((f"math.fpowi %a0, %a1 : {_t}, i32", [_t, "i32"], [_t]))
for _t in INTS:
    for _name in ("absi", "ctlz", "cttz", "ctpop"):
        CASES.append((f"math.{_name} %a0 : {_t}", [_t], [_t]))
    CASES.append((f"math.ipowi %a0, %a1 : {_t}", [_t, _t], [_t]))


@pytest.mark.parametrize("op_text,arg_types,result_types", CASES, ids=[c[0] for c in CASES])
def test_lanes_equal_core(op_text, arg_types, result_types):
    check_op(op_text, arg_types, result_types)


def test_every_arith_and_math_op_is_covered():
    ops = set()
    for op_text, arg_types, result_types in CASES:
        ops.add(op_text.split()[0])
    ops.add("arith.constant")  # test_constants
    assert ops == {o.name for o in (*arith.Arith.operations, *mathd.Math.operations)}
    assert set(LANES) == {*arith.Arith.operations, *mathd.Math.operations}


CONSTANTS = [
    ("arith.constant 255 : i8", "i8"), ("arith.constant -1 : i64", "i64"),
    ("arith.constant true", "i1"), ("arith.constant 0.1 : f32", "f32"),
    ("arith.constant 0.1 : bf16", "bf16"), ("arith.constant 0.1 : f16", "f16"),
    ("arith.constant 7 : index", "index"), ("arith.constant 2.5 : f64", "f64"),
]


@pytest.mark.parametrize("op_text,t", CONSTANTS, ids=[c[0] for c in CONSTANTS])
def test_constants(op_text, t):
    interp, op = parse_op(op_text, [], [t])
    (expected,) = interp.run_op(op, ())
    (actual,) = ARITH_LANES[type(op)](op, (), np.ones(5, dtype=bool))
    dt = lane_dtype(_type(t))
    assert_same(actual, np.full(5, expected, dtype=dt), op_text, ())


def test_vector_constant_and_vector_select():
    _, op = parse_op("arith.constant dense<[1, 2, 255]> : vector<3xi8>", [], ["vector<3xi8>"])
    (value,) = ARITH_LANES[type(op)](op, (), np.ones(4, dtype=bool))
    assert value.shape == (4, 3) and value.dtype == np.int8
    assert (value == np.asarray([1, 2, -1], dtype=np.int8)).all()
    _, op = parse_op("arith.select %a0, %a1, %a2 : vector<2xf32>",
                     ["i1", "vector<2xf32>", "vector<2xf32>"], ["vector<2xf32>"])
    cond = np.asarray([True, False])
    a, b = np.ones((2, 2), np.float32), np.zeros((2, 2), np.float32)
    (out,) = ARITH_LANES[type(op)](op, (cond, a, b), np.ones(2, dtype=bool))
    assert (out == [[1, 1], [0, 0]]).all()


def test_vector_operands_compute_elementwise_and_faults_name_lanes():
    _, op = parse_op("arith.divsi %a0, %a1 : vector<2xi32>", ["vector<2xi32>"] * 2,
                     ["vector<2xi32>"])
    a = np.asarray([[7, -7], [9, 1], [4, 4]], dtype=np.int32)
    b = np.asarray([[2, 2], [0, 1], [1, 0]], dtype=np.int32)
    with pytest.raises(LaneFault) as info:
        ARITH_LANES[type(op)](op, (a, b), np.ones(3, dtype=bool))
    assert list(info.value.lanes) == [1, 2]
    (q,) = ARITH_LANES[type(op)](op, (a, b), np.asarray([True, False, False]))
    assert q[0].tolist() == [3, -3]


def test_division_by_zero_on_inactive_lanes_is_no_error():
    _, op = parse_op("arith.remui %a0, %a1 : i32", ["i32", "i32"], ["i32"])
    a = np.asarray([5, 6, 7], dtype=np.int32)
    b = np.asarray([0, 4, 0], dtype=np.int32)
    (r,) = ARITH_LANES[type(op)](op, (a, b), np.asarray([False, True, False]))
    assert r[1] == 2
    with pytest.raises(LaneFault, match="integer division by zero") as info:
        ARITH_LANES[type(op)](op, (a, b), np.asarray([False, True, True]))
    assert info.value.lanes.tolist() == [2]


def test_shift_fault_names_the_amount_and_lanes():
    _, op = parse_op("arith.shli %a0, %a1 : i8", ["i8", "i8"], ["i8"])
    a = np.ones(4, dtype=np.int8)
    b = np.asarray([1, 9, 8, 2], dtype=np.int8)
    with pytest.raises(LaneFault, match=r"shift by 9 bits of an i8 value") as info:
        ARITH_LANES[type(op)](op, (a, b), np.ones(4, dtype=bool))
    assert info.value.lanes.tolist() == [1, 2]


def test_edge_values_are_in_the_inputs():
    """The generators really produce the edge values the docstring promises."""
    rng = np.random.default_rng(0)
    f = float_inputs(rng, np.dtype(np.float32), n=200).astype(np.float64)
    assert np.isnan(f).any() and np.isinf(f).any() and (f == 0).any()
    assert ((np.abs(f) < 2.0 ** -126) & (f != 0)).any()  # subnormals
    i = int_inputs(rng, "i32", n=200)
    assert {np.iinfo(np.int32).min, np.iinfo(np.int32).max, 0, -1} <= set(i.tolist())
    assert math.isfinite(float(ml_dtypes.finfo(ml_dtypes.float8_e4m3fn).max))
