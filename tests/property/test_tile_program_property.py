"""Property test: random well-typed tile programs round-trip and mean what numpy says.

Hypothesis draws a kernel: a random shape (rank 1-3) and element type, a second input that
broadcasts to it, then a chain of tile primitives (copy, unary, binary with buffer / broadcast /
reduced / scalar operands, fma, select, reductions over random axes). For every program:

* the custom form round-trips: print(parse(text)) == print(parse(print(parse(text))));
* the generic form round-trips, and reading it back gives the same custom print;
* the interpreter runs it; for f32 programs its output matches a numpy model built alongside
  the IR (for f16/bf16, only the output's dtype and shape are checked).

The default profile is deterministic (CI); ``HYPOTHESIS_PROFILE=explore`` draws 500 fresh
programs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from io import StringIO

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tirx_mlir.located_parser import parse_module

settings.register_profile("ci", max_examples=50, deadline=5000, derandomize=True,
                          database=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", max_examples=500, deadline=5000, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

DIMS = (1, 2, 3, 4, 8)
DTYPES = ("f32", "f16", "bf16")
UNARY = ("exp", "silu")
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "maximum": np.maximum,
          "minimum": np.minimum}
REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}


def btype(shape: tuple[int, ...], dtype: str, scope: str) -> str:
    return f"!tirx.buffer<{'x'.join(map(str, shape))}x{dtype}, {scope}>"


@dataclass
class Program:
    """IR text of one kernel, its inputs, and the numpy model of its output."""

    dtype: str
    shape: tuple[int, ...]
    inputs: list[np.ndarray]
    lines: list[str] = field(default_factory=list)
    buffers: dict[str, tuple[tuple[int, ...], np.ndarray]] = field(default_factory=dict)
    counter: int = 0

    def fresh(self, shape: tuple[int, ...], value: np.ndarray) -> str:
        name = f"%t{self.counter}"
        self.counter += 1
        self.lines.append(f"  {name} = tirx.alloc : {btype(shape, self.dtype, 'shared')}")
        self.buffers[name] = (shape, value.astype(np.float32))
        return name

    def t(self, name: str) -> str:
        if name in ("%X", "%Y"):
            return btype(self.shape, self.dtype, "global")
        if name == "%W":
            return btype(self.inputs[1].shape, self.dtype, "global")
        return btype(self.buffers[name][0], self.dtype, "shared")

    def emit(self, op: str, operands: list[str], types: list[str], suffix: str = "") -> None:
        self.lines.append(f"  tirx.{op} {', '.join(operands)}{suffix} : {', '.join(types)}")

    @property
    def text(self) -> str:
        head = (f"tirx.kernel @k(%X: {self.t('%X')}, %W: {self.t('%W')}) -> "
                f"(%Y: {self.t('%Y')}) grid [1] threads [1] {{")
        return "\n".join([head, *self.lines, "  tirx.return", "}", ""])


def silu(x: np.ndarray) -> np.ndarray:
    return x / (np.float32(1) + np.exp(-x))


@st.composite
def programs(draw) -> Program:
    dtype = draw(st.sampled_from(DTYPES))
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.sampled_from(DIMS)) for _ in range(rank))
    w_shape = tuple(d if draw(st.booleans()) else 1 for d in shape)[draw(st.integers(0, rank - 1)):]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    x = rng.uniform(-1, 1, shape).astype(np.float32)
    w = rng.uniform(-1, 1, w_shape).astype(np.float32)
    prog = Program(dtype, shape, [x, w])
    cur = prog.fresh(shape, x)
    prog.emit("copy", [cur, "%X"], [prog.t(cur), prog.t("%X")])
    scalars = 0
    for _ in range(draw(st.integers(1, 5))):
        cur_val = prog.buffers[cur][1]
        kind = draw(st.sampled_from(["unary", "binary", "binary", "reduce", "fma", "select"]))
        if kind == "unary":
            fn = draw(st.sampled_from(UNARY))
            value = np.exp(cur_val) if fn == "exp" else silu(cur_val)
            dst = prog.fresh(shape, value)
            prog.emit(fn, [dst, cur], [prog.t(dst), prog.t(cur)])
        elif kind in ("binary", "fma"):
            choice = draw(st.sampled_from(["buffer", "broadcast", "reduced", "scalar"]))
            reduced = [n for n, (s, _) in prog.buffers.items() if s != shape]
            if choice == "reduced" and reduced:
                other = draw(st.sampled_from(reduced))
                other_val, other_type = prog.buffers[other][1], prog.t(other)
            elif choice == "scalar":
                value = draw(st.sampled_from([0.5, -2.0, 3.0]))
                other = f"%s{scalars}"
                scalars += 1
                prog.lines.append(f"  {other} = arith.constant {value!r} : f32")
                other_val, other_type = np.float32(value), "f32"
            elif choice == "broadcast":
                other, other_val, other_type = "%W", w, prog.t("%W")
            else:
                other, other_val, other_type = "%X", x, prog.t("%X")
            if kind == "fma":  # dst = cur * other + W
                dst = prog.fresh(shape, cur_val * other_val + w)
                prog.emit("fma", [dst, cur, other, "%W"],
                          [prog.t(dst), prog.t(cur), other_type, prog.t("%W")])
            else:
                fn = draw(st.sampled_from(sorted(BINARY)))
                swap = draw(st.booleans())
                lhs, rhs = (other, cur) if swap else (cur, other)
                lhs_val, rhs_val = (other_val, cur_val) if swap else (cur_val, other_val)
                lhs_t, rhs_t = (other_type, prog.t(cur)) if swap else (prog.t(cur), other_type)
                dst = prog.fresh(shape, BINARY[fn](lhs_val, rhs_val))
                prog.emit(fn, [dst, lhs, rhs], [prog.t(dst), lhs_t, rhs_t])
            cur = dst
            continue
        elif kind == "reduce":
            fn = draw(st.sampled_from(sorted(REDUCE)))
            axes = sorted(draw(st.sets(st.integers(0, rank - 1), min_size=1)))
            spelled = [a - rank if draw(st.booleans()) else a for a in axes]
            out_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
            red = prog.fresh(out_shape, REDUCE[fn](cur_val, axis=tuple(axes), keepdims=True))
            prog.emit(fn, [red, cur], [prog.t(red), prog.t(cur)], f" axes {spelled}")
            continue  # the reduced buffer is an operand for later broadcasts
        else:  # select: keep cur where the last index >= the first, else X
            dims = ", ".join(f"d{i}" for i in range(rank))
            cond = f"d{rank - 1} - d0 >= 0" if rank > 1 else "d0 - 1 >= 0"
            idx = np.indices(shape)
            mask = idx[-1] - idx[0] >= 0 if rank > 1 else idx[0] - 1 >= 0
            dst = prog.fresh(shape, np.where(mask, cur_val, x))
            prog.emit("select", [dst, cur, "%X"], [prog.t(dst), prog.t(cur), prog.t("%X")],
                      f" where ({dims}) : ({cond})")
        cur = dst
    prog.emit("copy", ["%Y", cur], [prog.t("%Y"), prog.t(cur)])
    prog.buffers["%Y"] = (shape, prog.buffers[cur][1])
    return prog


def printed(text: str, generic: bool = False) -> str:
    from xdsl.printer import Printer

    module = parse_module(text, "prop.mlir")
    module.verify()
    out = StringIO()
    Printer(stream=out, print_generic_format=generic).print_op(module)
    return out.getvalue()


@given(programs())
def test_custom_and_generic_forms_round_trip(prog: Program) -> None:
    custom = printed(prog.text)
    assert printed(custom) == custom
    generic = printed(prog.text, generic=True)
    assert printed(generic, generic=True) == generic
    assert printed(generic) == custom


@given(programs())
def test_interpreter_matches_numpy(prog: Program) -> None:
    interpret = pytest.importorskip("tirx_mlir.interpreter").interpret
    from tirx_mlir.dialects.tirx import dtypes

    np_dtype = dtypes.numpy_dtype(dtypes.element_type(prog.dtype))
    inputs = [a.astype(np_dtype) for a in prog.inputs]
    result = interpret(prog.text, "k", *inputs)
    assert result.shape == prog.shape and result.dtype == np_dtype
    if prog.dtype != "f32":
        return
    expected = prog.buffers["%Y"][1]
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5, equal_nan=True,
                               err_msg=prog.text)
