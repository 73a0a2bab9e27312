"""The select predicate: readable printing that re-parses, vectorised evaluation, linear form."""

import itertools

import numpy as np
import pytest

from tirx_mlir.located_parser import parse_module
from tirx_mlir.dialects.tirx.predicate import evaluate, format_affine_set, linear_constraints
from tirx_mlir.dialects.tirx.tile_ops import SelectOp

CASES = {
    "(d0, d1) : (d1 - d0 - 1 >= 0)": lambda i, j: j - i - 1 >= 0,
    "(d0, d1) : (d0 - d1 >= 0, d1 - 2 >= 0)": lambda i, j: i >= j and j >= 2,
    "(d0, d1) : (2 * d0 - d1 == 0)": lambda i, j: 2 * i == j,
    "(d0, d1) : ((d0 + d1) mod 2 == 0)": lambda i, j: (i + j) % 2 == 0,
    "(d0, d1) : (d1 floordiv 2 - d0 >= 0)": lambda i, j: j // 2 - i >= 0,
}


def select_op(where: str, shape=(5, 7)):
    t = f"!tirx.buffer<{shape[0]}x{shape[1]}xf32, global>"
    src = (f"tirx.kernel @k(%A: {t}) grid [1] threads [1] {{\n  %c = arith.constant 0.0 : f32\n"
           f"  tirx.select %A, %A, %c where {where} : {t}, {t}, f32\n  tirx.return\n}}")
    module = parse_module(src)
    module.verify()
    return module, next(o for o in module.walk() if isinstance(o, SelectOp))


@pytest.mark.parametrize("where", list(CASES))
def test_evaluate_matches_python(where):
    _, op = select_op(where)
    mask = evaluate(op.where.data, (5, 7))
    expected = np.array([[CASES[where](i, j) for j in range(7)] for i in range(5)])
    assert (mask == expected).all()


@pytest.mark.parametrize("where", list(CASES))
def test_printing_is_readable_and_round_trips(where):
    module, op = select_op(where)
    text = format_affine_set(op.where.data)
    assert "+ -" not in text and "* -1" not in text
    again = str(parse_module(str(module)))
    assert again == str(module)


def test_linear_form():
    _, op = select_op("(d0, d1) : (d1 - d0 - 1 >= 0, 2 * d0 - d1 == 0)")
    lin = linear_constraints(op.where.data)
    assert [(c.coeffs, c.const, c.is_equality) for c in lin] == [((-1, 1), -1, False),
                                                                 ((2, -1), 0, True)]
    for (i, j) in itertools.product(range(5), range(7)):
        holds = all((sum(a * x for a, x in zip(c.coeffs, (i, j))) + c.const == 0) if c.is_equality
                    else (sum(a * x for a, x in zip(c.coeffs, (i, j))) + c.const >= 0) for c in lin)
        assert holds == (j - i - 1 >= 0 and 2 * i == j)
    _, op = select_op("(d0, d1) : (d0 mod 2 >= 0)")
    assert linear_constraints(op.where.data) is None


def symbol_select(where: str):
    t = "!tirx.buffer<5x7xf32, global>"
    src = (f"tirx.kernel @k(%A: {t}) grid [1] threads [1] {{\n  %c = arith.constant 0.0 : f32\n"
           f"  %i = tirx.cta_id x : index\n  %j = tirx.cta_id y : index\n"
           f"  tirx.select %A, %A, %c where {where} symbols [%i, %j] : {t}, {t}, f32, index, "
           f"index\n  tirx.return\n}}")
    module = parse_module(src)
    module.verify()
    return module, next(o for o in module.walk() if isinstance(o, SelectOp))


def test_symbols_evaluate_linearise_and_round_trip():
    module, op = symbol_select("(d0, d1)[s0, s1] : (s0 * 4 + d0 - d1 - s1 >= 0)")
    assert str(parse_module(str(module))) == str(module)
    for s0, s1 in [(0, 0), (1, 3), (2, -1)]:
        expected = np.array([[s0 * 4 + i - j - s1 >= 0 for j in range(7)] for i in range(5)])
        assert (evaluate(op.where.data, (5, 7), (s0, s1)) == expected).all()
    (c,) = linear_constraints(op.where.data)
    assert (c.coeffs, c.sym_coeffs, c.const) == ((1, -1), (4, -1), 0)
    assert str(c) == "d0 - d1 + 4 * s0 - s1 >= 0"
    with pytest.raises(ValueError, match="2 symbols, 1 values"):
        evaluate(op.where.data, (5, 7), (1,))
