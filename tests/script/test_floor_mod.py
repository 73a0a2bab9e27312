"""``%`` on front-end index values is Python's floor mod (the result has the divisor's sign, as
``//`` floors): checked against Python on negative operands through the interpreter, its range
from ``access.value_range`` (``i % 2`` is in [0, 1] for any ``i``), and ``-t tx`` printing it
back as ``%``."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir import script as Tx
from tirx_mlir.dialects.tirx.access import floor_mod_operands, value_range
from tirx_mlir.script.to_script import module_to_script


@pytest.mark.parametrize("divisor", [3, 5, -3, -4])
def test_negative_operands_give_pythons_values(divisor):
    """Each (j - 8) % d marks column m + 8 of row 0: the marked columns are Python's values."""

    @Tx.kernel(threads=(1,))
    def k(Y: Tx.Out[(1, 32), "f32"]):
        ones = Tx.alloc((1, 1), scope="shared")
        Tx.fill(ones, 1.0)
        for j in range(16):
            m = (j - 8) % divisor
            Tx.copy(Y[0:1, m + 16:m + 17], ones)

    y = k.interpret(np.zeros((1, 32), np.float32))
    marked = sorted(int(c) - 16 for c in np.flatnonzero(y[0] == 1.0))
    assert marked == sorted({(j - 8) % divisor for j in range(16)})


def test_an_index_divisor_and_a_constant_dividend():
    """``7 % d`` and ``-7 % d`` over run-time divisors d in -4..-1 and 1..4 (the general form)."""

    @Tx.kernel(threads=(1,))
    def k(Y: Tx.Out[(2, 32), "f32"]):
        ones = Tx.alloc((1, 1), scope="shared")
        Tx.fill(ones, 1.0)
        for d in range(1, 5):
            for sign in range(2):
                e = d - sign * 2 * d  # d, then -d
                a = 7 % e
                b = -7 % e
                Tx.copy(Y[0:1, a + 16:a + 17], ones)
                Tx.copy(Y[1:2, b + 16:b + 17], ones)

    y = k.interpret(np.zeros((2, 32), np.float32))
    divisors = [d for d in range(1, 5)] + [-d for d in range(1, 5)]
    for row, x in ((0, 7), (1, -7)):
        marked = sorted(int(c) - 16 for c in np.flatnonzero(y[row] == 1.0))
        assert marked == sorted({x % d for d in divisors})


def _mods(module):
    return [op.results[0] for op in module.walk()
            if op.results and floor_mod_operands(op.results[0]) is not None
            and op.name in ("arith.select", "arith.remsi")]


def test_range_of_the_floor_form():
    @Tx.kernel(threads=(1,))
    def k(X: Tx.Buffer[(4, 8), "f32"], Y: Tx.Out[(4, 8), "f32"]):
        for i in range(-5, 9):
            a = (i - 3) % 2    # may be negative before the mod: the select form
            b = i % 8          # idem (i from -5)
            c = (i + 5) % 4    # provably >= 0: remsi
            d = (i + 5) % 32   # does not wrap: exact [0, 13]
            e = d % 8
            Tx.cta.copy(Y[a:a + 1, b:b + 1], X[c:c + 1, e:e + 1])

    mods = _mods(k.ir)
    names = [m.owner.name for m in mods]
    assert names[:4] == ["arith.select", "arith.select", "arith.remsi", "arith.remsi"]
    assert [value_range(m) for m in mods[:4]] == [(0, 1), (0, 7), (0, 3), (0, 13)]


def test_range_needs_a_positive_constant_divisor():
    @Tx.kernel(threads=(1,))
    def k(X: Tx.Buffer[(4, 8), "f32"], Y: Tx.Out[(4, 8), "f32"]):
        for i in range(-5, 9):
            for d in range(1, 3):
                a = i % d
                Tx.cta.copy(Y[0:1, a:a + 1], X[0:1, 0:1])

    (m,) = _mods(k.ir)
    assert m.owner.name == "arith.select" and value_range(m) is None


def test_to_script_prints_a_percent(tmp_path):
    import importlib.util

    from tirx_testing.ir_structure import structural_diff

    @Tx.kernel(threads=(1,))
    def k(X: Tx.Buffer[(4, 8), "f32"], Y: Tx.Out[(4, 8), "f32"]):
        for i in range(-5, 9):
            for d in range(1, 3):
                a = (i % 2) % d
                b = i % 8
                Tx.cta.copy(Y[a:a + 1, b:b + 1], X[0:1, 0:1])

    source = module_to_script(k.ir)
    assert source.count(" % ") == 3 and "select" not in source
    path = tmp_path / "printed.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("printed", path)
    printed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(printed)
    (again,) = [v for v in vars(printed).values() if isinstance(v, Tx.Kernel)]
    assert structural_diff(again.ir, k.ir) is None


def test_a_truncating_remainder_prints_as_truncmod():
    from tirx_mlir.located_parser import parse_module

    module = parse_module("""
    tirx.kernel @k() -> (%Y: !tirx.buffer<4xf32, global>) threads [1] {
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c9 = arith.constant 9 : index
      %cm = arith.constant -3 : index
      scf.for %i = %cm to %c9 step %c2 {
        %r = arith.remsi %i, %c2 : index
      }
      tirx.return
    }""", "trunc")
    assert "r = Tx.truncmod(i, 2)" in module_to_script(module)  # C's %, not Python's


@pytest.mark.parametrize("symbol", ["%", "//"])
def test_a_constant_zero_divisor_is_an_error_at_the_line(symbol, tmp_path):
    """``i % 0`` raises in Python; the front end says so at the line instead of building a
    division by zero (undefined behaviour in arith)."""
    import runpy

    from tirx_mlir.script.builder import ScriptError

    path = tmp_path / "bad.py"
    path.write_text("from tirx_mlir import script as Tx\n"
                    "@Tx.kernel(target='cuda -arch=sm_80', grid=(1,), threads=(32,))\n"
                    "def bad(X: Tx.Buffer[(64,), 'f32'], Y: Tx.Out[(64,), 'f32']):\n"
                    f"    i = Tx.cuda.thread_idx('x') {symbol} 0\n"
                    "    Tx.cuda.store(Y, i, Tx.cuda.load(X, i))\n")
    kernel = runpy.run_path(str(path))["bad"]
    with pytest.raises(ScriptError, match=f"`{symbol}` by zero") as info:
        kernel.ir  # noqa: B018 - building the IR reports the error
    assert info.value.where.line == 4
