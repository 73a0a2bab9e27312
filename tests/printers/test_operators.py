"""The operator tables: every spelling of a scalar arith op in Python and in C gives the op's
own meaning (floor vs truncation on negative operands included), checked by running the
printed expressions: Python through ``eval``, C compiled with gcc (skipped where there is none)."""

from __future__ import annotations

import math
import shutil
import subprocess

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, f64, i64
from xdsl.ir import Block

from tirx_mlir.printers import C, PYTHON, PrintError, SourcePrinter

PAIRS = [(a, b) for a in (-7, -6, -1, 0, 1, 5, 7, 9) for b in (-3, -2, 2, 3, 4)]


def trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


# The reference meaning of each op (MLIR's arith dialect documentation), on Python ints.
SEMANTICS = {
    "floordivsi": lambda a, b: a // b,
    "divsi": trunc_div,
    "remsi": lambda a, b: a - b * trunc_div(a, b),
    "ceildivsi": lambda a, b: -((-a) // b),
    "shli": lambda a, s: a << s,
    "shrsi": lambda a, s: a >> s,
    "minsi": min,
    "maxsi": max,
    "cmpi_slt": lambda a, b: int(a < b),
    "cmpi_sge": lambda a, b: int(a >= b),
    "select": lambda a, b: a if a < b else b,
    "addi": lambda a, b: a + b,
    "muli": lambda a, b: a * b,
}


class ExprPrinter(SourcePrinter):
    """A printer whose only output is scalar expressions over two named values a, b."""

    DESCRIPTION = "test printer"

    def scalar_type(self, t, op) -> str:
        return "double" if t == f64 else "long long"


def printer(language):
    cls = type(f"{language.name}Printer", (ExprPrinter,), {"LANGUAGE": language})
    return cls(ModuleOp([]))


def expressions(language, with_shift_amount: bool = True) -> dict[str, str]:
    """Each op of SEMANTICS applied to the block arguments a and b, printed in ``language``."""
    block = Block(arg_types=[i64, i64])
    a, b = block.args
    p = printer(language)
    p.names[a], p.names[b] = "a", "b"
    shift = arith.ConstantOp(IntegerAttr(2, i64))
    cond = arith.CmpiOp(a, b, "slt")
    ops = {"floordivsi": arith.FloorDivSIOp(a, b), "divsi": arith.DivSIOp(a, b),
           "remsi": arith.RemSIOp(a, b), "ceildivsi": arith.CeilDivSIOp(a, b),
           "shli": arith.ShLIOp(a, shift), "shrsi": arith.ShRSIOp(a, shift),
           "minsi": arith.MinSIOp(a, b), "maxsi": arith.MaxSIOp(a, b),
           "cmpi_slt": cond, "cmpi_sge": arith.CmpiOp(a, b, "sge"),
           "select": arith.SelectOp(cond, a, b), "addi": arith.AddiOp(a, b),
           "muli": arith.MuliOp(a, b)}
    out = {}
    for name, op in ops.items():
        try:
            out[name] = p.expr(op.results[0])
        except PrintError:
            pass
    return out


def expected(name: str, a: int, b: int) -> int:
    if name in ("shli", "shrsi"):
        return SEMANTICS[name](a, 2)
    return SEMANTICS[name](a, b)


def test_python_spellings_mean_the_ops():
    printed = expressions(PYTHON)
    # Python's // and % floor, so truncating division has no spelling for unknown signs.
    assert "divsi" not in printed and "remsi" not in printed
    assert printed["floordivsi"] == "(a // b)"
    for name, text in printed.items():
        for a, b in PAIRS:
            assert int(eval(text, {"math": math}, {"a": a, "b": b})) == expected(name, a, b), \
                (name, text, a, b)


def test_c_spellings_state_truncation_and_correct_floor():
    printed = expressions(C)
    assert printed["divsi"] == "(a / b)" and printed["remsi"] == "(a % b)"
    assert printed["floordivsi"] != "(a / b)"  # C's / truncates: floor needs a correction
    assert printed["select"] == "((a < b) ? a : b)"


def test_python_refuses_truncating_division_of_unknown_sign():
    block = Block(arg_types=[i64, i64])
    p = printer(PYTHON)
    p.names[block.args[0]], p.names[block.args[1]] = "a", "b"
    with pytest.raises(PrintError, match=r"\[print\] arith.divsi truncates toward zero"):
        p.expr(arith.DivSIOp(*block.args).result)


def test_nonneg_operands_print_the_plain_operator():
    seven, two = (arith.ConstantOp(IntegerAttr(v, i64)) for v in (7, 2))
    assert printer(PYTHON).expr(arith.DivSIOp(seven, two).result) == "(7 // 2)"
    assert printer(C).expr(arith.FloorDivSIOp(seven, two).result) == "(7 / 2)"


def test_c_literals_keep_negative_numbers_apart():
    minus = arith.ConstantOp(IntegerAttr(-3, i64))
    assert printer(C).expr(arith.SubiOp(minus, minus).result) == "((-3) - (-3))"
    assert printer(PYTHON).expr(arith.SubiOp(minus, minus).result) == "(-3 - -3)"


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_c_spellings_compile_and_mean_the_ops(tmp_path):
    printed = expressions(C)
    names = sorted(printed)
    lines = [f'    printf("%lld\\n", (long long)({printed[n]}));' for n in names]
    pairs = ", ".join(f"{{{a}, {b}}}" for a, b in PAIRS)
    source = "\n".join([
        "#include <stdio.h>",
        "int main(void) {",
        f"  long long pairs[][2] = {{{pairs}}};",
        f"  for (int i = 0; i < {len(PAIRS)}; i++) {{",
        "    long long a = pairs[i][0], b = pairs[i][1];",
        *lines,
        "  }",
        "  return 0;",
        "}"])
    exe = tmp_path / "exprs"
    subprocess.run(["gcc", "-x", "c", "-std=c11", "-Wall", "-Werror", "-o", str(exe), "-"],
                   input=source, text=True, check=True, capture_output=True)
    out = iter(subprocess.run([str(exe)], check=True, capture_output=True,
                              text=True).stdout.split())
    for a, b in PAIRS:
        for name in names:
            assert int(next(out)) == expected(name, a, b), (name, printed[name], a, b)
