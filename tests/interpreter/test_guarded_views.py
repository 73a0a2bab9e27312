"""The interpreter on guarded views (a tirx.slice size given by an index value): the view is the
numpy view of its guarded extent, so a tile op touches only those elements; views of it keep
the extent (a whole-dim slice, a transpose, a reshape through unit dims); what the IR cannot
mean stops at the op: a guard outside [0, maximum], a slice cutting into a guarded dim."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.interp import buf, kernel, run

from tirx_mlir.interpreter.runtime import InterpretError

F32 = np.float32


def _loop(view: str, tiles: int = 3, limit: int = 20) -> str:
    """Y[8 i : 8 i + n] = X[...] + 1 for tiles of 8 rows of [20, 4], n = min(8, limit - 8 i),
    through the view text ``view`` of the guarded slices %x, %y (it defines %xv, %yv)."""
    return kernel([("X", "20x4xf32")], [("Y", "20x4xf32")], f"""  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ct = arith.constant {tiles} : index
  %c8 = arith.constant 8 : index
  %cl = arith.constant {limit} : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %ct step %c1 {{
    %row = arith.muli %i, %c8 : index
    %left = arith.subi %cl, %row : index
    %n = arith.minsi %c8, %left : index
    %x = tirx.slice %X[%row, 0] [%n, 4] : {buf("20x4xf32")} -> {buf("8x4xf32")}
    %y = tirx.slice %Y[%row, 0] [%n, 4] : {buf("20x4xf32")} -> {buf("8x4xf32")}
{view}
    tirx.add %yv, %xv, %one : VIEW, VIEW, f32
  }}""".replace("VIEW", "{t}"))


def test_a_guarded_loop_touches_only_its_rows():
    t = buf("8x4xf32")
    view = f"""    %xv = tirx.slice %x[0, 0] [8, 4] : {t} -> {t}
    %yv = tirx.transpose %y [0, 1] : {t} -> {t}"""
    x = np.arange(80, dtype=F32).reshape(20, 4)
    (y,) = run(_loop(view).replace("{t}", t), x)
    np.testing.assert_array_equal(y, x + 1)  # 8 + 8 + 4 rows, nothing past row 19


def test_a_guard_above_its_maximum_stops_at_the_slice():
    t = buf("8x4xf32")
    view = f"""    %xv = tirx.slice %x[0, 0] [8, 4] : {t} -> {t}
    %yv = tirx.slice %y[0, 0] [8, 4] : {t} -> {t}"""
    text = _loop(view).replace("{t}", t).replace("%n = arith.minsi %c8, %left : index",
                                                 "%n = arith.addi %c8, %i : index")
    with pytest.raises(InterpretError, match=r"slice dim 0: the guarded size is 9, outside "
                                             r"\[0, 8\]"):
        run(text, np.zeros((20, 4), F32))


def test_a_reshape_through_unit_dims_keeps_the_guard():
    t, u = buf("8x4xf32"), buf("8x1x4xf32")
    view = f"""    %xu = tirx.reshape %x : {t} -> {u}
    %xv = tirx.reshape %xu : {u} -> {t}
    %yv = tirx.slice %y[0, 0] [8, 4] : {t} -> {t}"""
    x = np.arange(80, dtype=F32).reshape(20, 4)
    (y,) = run(_loop(view).replace("{t}", t), x)
    np.testing.assert_array_equal(y, x + 1)


def test_a_guard_past_the_source_stops_at_the_slice():
    """limit 30: n = min(8, 30 - 8 i) is 8 at i = 2, rows 16..23 of 20: the interpreter
    refuses the slice (tirx-check-bounds refuses it at compile time)."""
    text = _loop("    %xv = tirx.slice %x[0, 0] [8, 4] : {t} -> {t}\n"
                 "    %yv = tirx.slice %y[0, 0] [8, 4] : {t} -> {t}", limit=30
                 ).replace("{t}", buf("8x4xf32"))
    with pytest.raises(InterpretError, match=r"dim 0: elements \[16, 23\] are out of bounds "
                                             r"for extent 20"):
        run(text, np.zeros((20, 4), F32))


def test_a_slice_cutting_into_a_guarded_dim_is_refused():
    t, h = buf("8x4xf32"), buf("4x4xf32")
    view = f"""    %xv = tirx.slice %x[0, 0] [4, 4] : {t} -> {h}
    %yv = tirx.slice %y[0, 0] [4, 4] : {t} -> {h}"""
    with pytest.raises(InterpretError, match=r"slice dim 0 cuts into a guarded dim \(its extent "
                                             r"is 4 at run time, at most 8\)"):
        run(_loop(view).replace("{t}", h), np.zeros((20, 4), F32))
