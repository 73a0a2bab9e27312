"""Interpreter implementations of the 31 tile primitives, as whole-array numpy operations.

Each op runs once per CTA on the logical buffers it names, whatever its exec scope (tile ops are
collective). Semantics, beyond the docstrings in tile_ops.py:

* sources are read in the compute dtype of all the op's operands (`runtime.compute_dtype`: f32
  for f16/bf16/fp8, f64 if any is f64, int64 for integers); results are rounded on store to the
  destination's dtype (`runtime.store`). A source whose shape differs from the destination's only
  by unit dims is reshaped to it; bias/scale/binary operands broadcast NumPy-style.
* ``gemm``: D = alpha * op(A) @ op(B) + beta * C in the compute dtype (f32 for f16/bf16 inputs);
  C defaults to D; ``beta = 0`` (the default) does not read C, as in BLAS.
* ``gemm_async``: C = op(A) @ op(B) with B K-major ([N, K], [K, N] with ``transpose_b``);
  ``accum`` adds to C. Scale factors ``sfa`` [M, K/blk] and ``sfb`` [N, K/blk] multiply A and B
  block-wise along K first. It completes synchronously (there is nothing to wait for).
* ``copy_async`` completes synchronously too, except a ``remote_cta`` one, which lands in the
  other CTA at the next ``tirx.cluster_sync`` (cluster.py); ``copy``/``copy_async`` convert
  the element type; with ``config {use_tma_reduce = "add"|"min"|"max"}`` it reduces into dst
  (dst = dst op src);
  ``permute_layout`` keeps the logical values (layouts are physical).
* reductions keep NaN (max/min propagate it); ``accum`` folds the old destination in;
  ``reduce_negate`` with ``accum`` keeps the running negated reduction:
  ``dst = -reduce(-dst, reduce(src))``.
* ``binary_reduce``/``unary_reduce`` reduce the computed values before they are rounded to the
  elementwise output's dtype (the engines reduce their internal fp32 values).
* ``select`` evaluates its affine predicate once over the destination's index grid, with its
  symbols bound to the values of ``symbols``.
* ``compose_op`` runs its body's ops in order.
* an operand that is a guarded view (a ``tirx.slice`` with an index-valued size) is the numpy
  view of its guarded extent, so the op touches only that; operands of one type shape must then
  have one run-time shape (guarded alike), else the op stops with an error naming both (a
  gemm's operands share dims by role instead: the product of mismatched extents fails).

Scope check: an op narrower than the CTA (warpgroup, warp, thread) runs once in *each* instance
of its scope; without per-thread ids they all see the same operands, so running it once gives
their common result, unless it writes memory the instances share (anything but ``local``): then
every instance would write the same buffer, and the interpreter raises a scope error instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl

from tirx_mlir.dialects.tirx import dtypes, predicate, rules, tile_ops as T
from tirx_mlir.dialects.tirx.access import is_guarded
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope
from tirx_mlir.dialects.tirx.kernel import enclosing_kernel
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.interpreter import cluster, rounded_arith, rounding, runtime
from tirx_mlir.interpreter import tile_semantics as sem
from tirx_mlir.interpreter.runtime import InterpretError

CONTRACTIONS = (T.GemmOp, T.GemmAsyncOp)
"""Tile ops whose operands are not guarded alike by shape (`TileCall.check_guards`)."""

PER_THREAD_SCOPES = frozenset({"local"})
"""Memory scopes private to each thread: narrower-than-CTA ops may write them."""

_THREADS_PER_INSTANCE = {ExecScope.THREAD: 1, ExecScope.WARP: 32, ExecScope.WARPGROUP: 128}


@dataclass
class TileCall:
    """What one tile op needs at run time, computed once per op: its operand names (in the order
    the interpreter passes values), element dtypes, compute dtype and properties."""

    op: TileOp
    names: tuple[str, ...]
    dtypes: dict[str, np.dtype | None]
    cdt: np.dtype
    scope_error: str | None
    variadic: tuple[tuple[str, int], ...] = ()
    """(name, count) of each variadic operand, passed after the single ones."""
    props: dict[str, Any] = field(default_factory=dict)
    guarded: bool = False
    """Some operand is a guarded view (a dynamic extent): `check_guards` runs on each call."""

    def values(self, args: PythonValues) -> dict[str, Any]:
        if self.scope_error is not None:
            raise InterpretError(self.scope_error, self.op, code="scope",
                                 hint="make the op collective over the CTA (e.g. `"
                                      f"{self.op.name} cta ...`) or write a `local` buffer")
        values = dict(zip(self.names, args))
        if self.guarded:
            self.check_guards(values)
        if self.variadic:  # variadic operands come last (symbols, workspace)
            at = len(self.names)
            for name, count in self.variadic:
                values[name] = tuple(args[at:at + count])
                at += count
        return values

    def check_guards(self, values: dict[str, Any]) -> None:
        """Operands of one static shape are guarded alike (docs/ir.md, ``tirx.slice``): at run
        time they have one shape too."""
        seen: dict[tuple[int, ...], tuple[str, tuple[int, ...]]] = {}
        for name, value in values.items():
            btype = getattr(self.op, name).type
            if not isinstance(value, np.ndarray) or not isinstance(btype, BufferType):
                continue
            first = seen.setdefault(btype.get_shape(), (name, value.shape))
            if first[1] != value.shape:
                raise InterpretError(
                    f"operands '{first[0]}' and '{name}' of {self.op.name} have the type shape "
                    f"{list(btype.get_shape())} but {list(first[1])} and {list(value.shape)} "
                    f"elements at run time; guard every operand of the op alike", self.op)

    def scratch(self, shape: tuple[int, ...], dt: np.dtype) -> np.ndarray:
        """A temporary owned by this op, reused on each run (values never escape the op)."""
        key = ("scratch", shape, dt)
        arr = self.props.get(key)
        if arr is None:
            arr = self.props[key] = np.empty(shape, dt)
        return arr

    def writes_in_place(self, dst: np.ndarray, *others: Any) -> bool:
        """Whether the op may compute straight into ``dst``: it has the compute dtype (so no
        rounding is skipped) and shares no memory with ``others`` (operands read after the
        first write). Operands read elementwise at the same index may alias ``dst``."""
        return dst.dtype == self.cdt and not any(
            isinstance(o, np.ndarray) and np.may_share_memory(dst, o) for o in others)

    def read(self, value: Any, shape: tuple[int, ...] | None = None) -> Any:
        """A source in the compute dtype (a Python scalar stays one); reshaped to ``shape``."""
        if not isinstance(value, np.ndarray):
            return value
        arr = value if value.dtype == self.cdt else value.astype(self.cdt)
        return arr if shape is None or arr.shape == shape else arr.reshape(shape)


def _element_dtype(t) -> np.dtype | None:
    t = t.element_type if isinstance(t, BufferType) else t
    return dtypes.numpy_dtype(t) if dtypes.is_supported(t) else None


def _scope_error(op: TileOp) -> str | None:
    per = _THREADS_PER_INSTANCE.get(op.exec_scope)
    kernel = enclosing_kernel(op)
    if per is None or kernel is None or kernel.num_threads() // per <= 1:
        return None
    scope = op.exec_scope.value
    for name, value in op.named_operands().items():
        btype = value.type
        if name in op.DSTS and isinstance(btype, BufferType) and \
                btype.scope_name not in PER_THREAD_SCOPES:
            count = kernel.num_threads() // per
            return (f"a {scope}-scope op runs once per {scope}, {count} times in each CTA of "
                    f"@{kernel.kernel_name}, and every run would write the same "
                    f"{btype.scope_name} buffer '{name}'")
    return None


def _make_call(op: TileOp) -> TileCall:
    named = op.named_operands()
    dts = {n: _element_dtype(v.type) for n, v in named.items()}
    # A contraction's operands share dims by role (gemm: M, N, K), not by shape: its semantics
    # multiply the guarded extents, and a mismatch is numpy's shape error at the op.
    guarded = not isinstance(op, CONTRACTIONS) and any(
        isinstance(v.type, BufferType) and is_guarded(v) for v in named.values())
    variadic = tuple((n, len(v)) for n, v in op.variadic_operands().items())
    return TileCall(op, tuple(named), dts, runtime.compute_dtype(*dts.values()), _scope_error(op),
                    variadic, guarded=guarded)


# --- the semantics of each op, on a TileCall and its operand values ----------------------------

Semantics = Callable[[TileCall, dict[str, Any], Interpreter], None]


def _copy(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    """copy, copy_async, permute_layout and cast: the store rules do the conversion."""
    dst, src = v["dst"], v["src"]
    if src.size == dst.size:
        runtime.store(dst, src.reshape(dst.shape))
    else:  # a broadcast copy (rules.check_copy)
        runtime.store(dst, np.broadcast_to(src, dst.shape))


def _cast(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    """cast: a copy, whose float -> float conversion rounds in the op's ``rounding_mode``
    (`rounding.round_float`; nearest even by default, as the store rules do)."""
    op = call.op
    assert isinstance(op, T.CastOp)
    mode = op.rounding_mode()
    if mode == "rn":
        _copy(call, v, interp)
        return
    dst, src = v["dst"], v["src"]
    value = src.reshape(dst.shape) if src.size == dst.size else np.broadcast_to(src, dst.shape)
    runtime.store(dst, rounding.round_float(value.astype(np.float64), dst.dtype, mode))


_REDUCE = {"add": np.add, "min": np.minimum, "max": np.maximum}


def _copy_async(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    """copy_async: a copy, or with ``use_tma_reduce`` dst = dst <op> src in the compute dtype,
    or with ``where`` dst = where(i) ? src[i] : 0 (the source read only where it holds)."""
    op = call.op
    assert isinstance(op, T.CopyAsyncOp)
    if op.where is not None:
        dst = v["dst"]
        mask = predicate.evaluate(op.where.data, dst.shape, v.get("symbols", ()))
        runtime.store(dst, np.where(mask, call.read(v["src"], dst.shape), 0))
        return
    red = op.reduction()
    if red is None:
        _copy(call, v, interp)
        return
    dst = v["dst"]
    runtime.store(dst, _REDUCE[red](call.read(dst), call.read(v["src"], dst.shape)))


def _gemm(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    op = call.op
    assert isinstance(op, T.GemmOp)
    a, b = call.read(v["a"]), call.read(v["b"])
    a = a.T if op.flag("transpose_a") else a
    b = b.T if op.flag("transpose_b") else b
    d = v["d"]
    prod = np.matmul(a, b, out=call.scratch(d.shape, call.cdt))
    alpha, beta = op.float_prop("alpha", 1.0), op.float_prop("beta", 0.0)
    if alpha != 1.0:
        prod = prod * alpha
    if beta == 1.0 and "c" not in v and d.dtype == call.cdt:
        d += prod  # D += op(A) @ op(B): the accumulate form, in place
        return
    if beta != 0.0:
        prod = prod + beta * call.read(v.get("c", d))
    runtime.store(d, prod)


def _prepared_accumulate(call: TileCall, run: Callable[[PythonValues], tuple]
                         ) -> Callable[[PythonValues], tuple]:
    """`_gemm` for ``D += op(A) @ op(B)`` (alpha 1, beta 1, no C) with the transposes decoded
    once: on operands already in the compute dtype it is the same matmul into the scratch and
    the same in-place add; others go through ``run`` (`_gemm`)."""
    op = call.op
    ia, ib, idst = call.names.index("a"), call.names.index("b"), call.names.index("d")
    ta, tb, cdt = op.flag("transpose_a"), op.flag("transpose_b"), call.cdt

    held: list[np.ndarray | None] = [None]  # the scratch of the last shape

    def accumulate(args: PythonValues) -> tuple:
        a, b, d = args[ia], args[ib], args[idst]
        if not (a.dtype is cdt and b.dtype is cdt and d.dtype is cdt) and \
                (a.dtype != cdt or b.dtype != cdt or d.dtype != cdt):
            return run(args)
        scratch = held[0]
        if scratch is None or scratch.shape != d.shape:
            scratch = held[0] = call.scratch(d.shape, cdt)
        d += np.matmul(a.T if ta else a, b.T if tb else b, out=scratch)
        return ()

    return accumulate


def _gemm_async(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    op = call.op
    assert isinstance(op, T.GemmAsyncOp)
    a, b = call.read(v["a"]), call.read(v["b"])
    a_mk = a.T if op.flag("transpose_a") else a
    b_nk = b.T if op.flag("transpose_b") else b
    if "sfa" in v:
        try:
            a_mk = sem.block_scale(a_mk, call.read(v["sfa"]), "sfa")
            b_nk = sem.block_scale(b_nk, call.read(v["sfb"]), "sfb")
        except ValueError as err:
            raise InterpretError(str(err), op) from None
    c = v["c"]
    prod = np.matmul(a_mk, b_nk.T, out=call.scratch(c.shape, call.cdt))
    if op.flag("accum") and c.dtype == call.cdt:
        c += prod
        return
    runtime.store(c, call.read(c) + prod if op.flag("accum") else prod)


def _zero(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    runtime.store(v["dst"], 0)


def _fill(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    runtime.store(v["dst"], v["value"])


def _activation_operands(call: TileCall, v: dict[str, Any], shape: tuple[int, ...]):
    """(src in the compute dtype and ``shape``, scale, bias)."""
    return call.read(v["src"], shape), call.read(v.get("scale")), call.read(v.get("bias"))


def _activate(call: TileCall, v: dict[str, Any], func: Callable[[Any], Any],
              out: np.ndarray) -> np.ndarray:
    """``func(src * scale + bias)`` in the compute dtype: computed straight into ``out`` when it
    may be (`TileCall.writes_in_place`), else into a new array. Returns the values (unrounded)."""
    x, scale, bias = _activation_operands(call, v, out.shape)
    if not (isinstance(func, np.ufunc) and call.writes_in_place(out, scale, bias)):
        return func(sem.bias_scale(x, scale, bias))
    if scale is not None:
        x = np.multiply(x, scale, out=out)
    if bias is not None:
        x = np.add(x, bias, out=out)
    return func(x, out=out)


def _unary(func: Callable[[Any], Any]) -> Semantics:
    def run(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
        dst = v["dst"]
        value = _activate(call, v, func, dst)
        if value is not dst:
            runtime.store(dst, value)

    return run


def _binary(func: np.ufunc) -> Semantics:
    def run(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
        dst = v["dst"]
        if dst.dtype == call.cdt:
            func(call.read(v["lhs"]), call.read(v["rhs"]), out=dst)  # overlap-safe ufunc
            return
        runtime.store(dst, func(call.read(v["lhs"]), call.read(v["rhs"])))

    return run


def _fma(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    runtime.store(v["dst"], sem.bias_scale(call.read(v["input"]), call.read(v["scale"]),
                                           call.read(v["bias"])))


ROUNDED_OPERANDS: dict[type[TileOp], tuple[str, tuple[str, ...]]] = {
    T.AddOp: ("add", ("lhs", "rhs")), T.SubOp: ("sub", ("lhs", "rhs")),
    T.MulOp: ("mul", ("lhs", "rhs")), T.FdivOp: ("div", ("lhs", "rhs")),
    T.FmaOp: ("fma", ("input", "scale", "bias")), T.ReciprocalOp: ("rcp", ("src",)),
    T.SqrtOp: ("sqrt", ("src",)),
}
"""The arithmetic ops taking a ``rounding_mode`` config: their `rounded_arith` kind and
operands (sqrt's bias and scale come first, `_rounded_arith`)."""


def _rounded_arith(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    """An arithmetic op with a ``rounding_mode`` config: each f32 operation (sqrt's scale
    multiply and bias add included; fma fused) rounds in the mode (`rounded_arith`), and so
    does the store to a narrower destination."""
    op = call.op
    kind, names = ROUNDED_OPERANDS[type(op)]
    mode = op.rounding_mode()
    dst = v["dst"]

    def f32(name: str) -> Any:
        x = v.get(name)
        return None if x is None else np.asarray(call.read(x), dtype=np.float32)

    args = [f32(n) for n in names]
    if kind == "sqrt":
        x = args[0].reshape(dst.shape) if args[0].size == dst.size else args[0]
        scale, bias = f32("scale"), f32("bias")
        if scale is not None:
            x = rounded_arith.rounded("mul", [x, scale], mode)
        if bias is not None:
            x = rounded_arith.rounded("add", [x, bias], mode)
        args = [x]
    value = np.broadcast_to(rounded_arith.rounded(kind, args, mode), dst.shape)
    runtime.store(dst, rounding.round_float(value.astype(np.float64), dst.dtype, mode))


def _or_rounded(plain: Semantics) -> Semantics:
    """``plain``, or `_rounded_arith` for an op with a ``rounding_mode`` config."""
    def run(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
        (_rounded_arith if call.op.rounds() else plain)(call, v, interp)

    return run


def _select(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    dst = v["dst"]
    op = call.op
    assert isinstance(op, T.SelectOp)
    symbols = v.get("symbols", ())
    mask = call.props.get("mask")
    if symbols or mask is None or mask.shape != dst.shape:  # symbols change between runs
        mask = call.props["mask"] = predicate.evaluate(op.where.data, dst.shape, symbols)
    runtime.store(dst, np.where(mask, call.read(v["true_value"]), call.read(v["false_value"])))


def _reduce(kind: str | None) -> Semantics:
    """sum/max/min (``kind``), or reduce_negate (None: the op names its reduction)."""

    def run(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
        op = call.op
        assert isinstance(op, T._ReduceOp)  # noqa: SLF001 - the shared base of the reductions
        dst, name = v["dst"], kind or op.name_prop("reduce")
        red = sem.reduce(name, call.read(v["src"]), op.reduce_axes())
        negate = kind is None
        if op.flag("accum"):
            old = call.read(dst, red.shape)
            red = sem.fold(name, -old if negate else old, red)
        runtime.store(dst, (-red if negate else red).reshape(dst.shape))

    return run


def _reduce_axes(op: TileOp, out: np.ndarray) -> tuple[int, ...]:
    return rules.normalize_axes(op.ints_prop("axes", (-1,)), out.ndim)


def _binary_reduce(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    op = call.op
    assert isinstance(op, T.BinaryReduceOp)
    out, red_out = v["bin_out"], v["red_out"]
    value = sem.BINARY[op.binary.data](call.read(v["lhs"]), call.read(v["rhs"]))
    value = np.broadcast_to(value, out.shape)
    red = sem.reduce(op.reduce.data, value, _reduce_axes(op, out))
    runtime.store(out, value)
    runtime.store(red_out, red.reshape(red_out.shape))


def _unary_reduce(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    op = call.op
    assert isinstance(op, T.UnaryReduceOp)
    out, red_out = v["un_out"], v["red_out"]
    value = _activate(call, v, sem.UNARY[op.unary.data], out)
    red = sem.reduce(op.reduce.data, value, _reduce_axes(op, out))
    if value is not out:
        runtime.store(out, value)
    runtime.store(red_out, red.reshape(red_out.shape))


def _binary_chain(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    op = call.op
    assert isinstance(op, T.BinaryChainOp)
    out = v["out"]
    first = sem.BINARY[op.op0.data](call.read(v["data"], out.shape), call.read(v["operand0"]))
    second = sem.BINARY[op.op1.data]
    operand1 = call.read(v["operand1"])
    runtime.store(out, second(operand1, first) if op.flag("reverse1") else second(first, operand1))


def _compose(call: TileCall, v: dict[str, Any], interp: Interpreter) -> None:
    op = call.op
    assert isinstance(op, T.ComposeOp)
    interp.run_ssacfg_region(op.body, (), "tirx.compose_op")


SEMANTICS: dict[type[TileOp], Semantics] = {
    T.CopyOp: _copy, T.CopyAsyncOp: _copy_async, T.PermuteLayoutOp: _copy,
    T.GemmOp: _gemm, T.GemmAsyncOp: _gemm_async,
    T.ZeroOp: _zero, T.FillOp: _fill, T.MemsetOp: _fill,
    T.ReciprocalOp: _or_rounded(_unary(sem.UNARY["reciprocal"])),
    T.SiluOp: _unary(sem.UNARY["silu"]),
    T.SqrtOp: _or_rounded(_unary(sem.UNARY["sqrt"])), T.ExpOp: _unary(sem.UNARY["exp"]),
    T.Exp2Op: _unary(sem.UNARY["exp2"]), T.Log2Op: _unary(sem.UNARY["log2"]),
    T.CastOp: _cast,
    T.AddOp: _or_rounded(_binary(sem.BINARY["add"])),
    T.SubOp: _or_rounded(_binary(sem.BINARY["sub"])),
    T.MulOp: _or_rounded(_binary(sem.BINARY["mul"])),
    T.FdivOp: _or_rounded(_binary(sem.BINARY["fdiv"])),
    T.MaximumOp: _binary(sem.BINARY["maximum"]), T.MinimumOp: _binary(sem.BINARY["minimum"]),
    T.FmaOp: _or_rounded(_fma), T.SelectOp: _select,
    T.SumOp: _reduce("sum"), T.MaxOp: _reduce("max"), T.MinOp: _reduce("min"),
    T.ReduceNegateOp: _reduce(None),
    T.BinaryReduceOp: _binary_reduce, T.UnaryReduceOp: _unary_reduce,
    T.BinaryChainOp: _binary_chain, T.ComposeOp: _compose,
}
assert set(SEMANTICS) == set(T.TILE_OPS), "every tile primitive needs interpreter semantics"


class TirxTileFunctions(InterpreterFunctions):
    """The tile primitives (combined into `TirxFunctions`): each runs `run_tile`, which looks up
    its numpy meaning in `SEMANTICS`; one `TileCall` is cached per op."""

    def _call(self, op: TileOp) -> TileCall:
        calls: runtime.PerOpCache = self.__dict__.setdefault("_tile_calls", runtime.PerOpCache())
        return calls.get(op, "tile", lambda: _make_call(op))

    def run_tile(self, interp: Interpreter, op: TileOp, args: PythonValues) -> PythonValues:
        call = self._call(op)
        SEMANTICS[type(op)](call, call.values(args), interp)
        return ()

    @staticmethod
    def prepare_tile(interp: Interpreter, op: TileOp) -> Callable[[PythonValues], tuple] | None:
        """`run_tile` for ``op`` with its `TileCall` made once (see `core.BlockPlan`); None for
        an op that is not a tile primitive or a remote ``copy_async`` (cluster.py runs it)."""
        semantics = SEMANTICS.get(type(op))  # type: ignore[call-overload]
        if semantics is None or isinstance(op, T.CopyAsyncOp) and op.remote_cta is not None:
            return None
        call = _make_call(op)

        def run(args: PythonValues) -> tuple:
            semantics(call, call.values(args), interp)
            return ()

        plain = call.scope_error is None and not call.guarded and \
            not any(count for _, count in call.variadic)  # no workspace or symbols passed
        if type(op) is T.CopyOp and plain:
            dst, src = call.names.index("dst"), call.names.index("src")

            def run_copy(args: PythonValues) -> tuple:
                d, s = args[dst], args[src]
                if d.shape == s.shape and (d.dtype is s.dtype or d.dtype == s.dtype):
                    d[...] = s  # what `_copy` stores when nothing converts or reshapes
                    return ()
                return run(args)

            return run_copy
        if type(op) is T.ZeroOp and plain:
            idst = call.names.index("dst")

            def run_zero(args: PythonValues) -> tuple:
                d = args[idst]
                if d.dtype.kind in "fiub":  # numpy's own types: 0 is exact, as `_zero` stores
                    d[...] = 0
                    return ()
                return run(args)

            return run_zero
        if type(op) is T.GemmOp and plain and "c" not in call.names and \
                op.float_prop("alpha", 1.0) == 1.0 and op.float_prop("beta", 0.0) == 1.0:
            return _prepared_accumulate(call, run)
        return run

    # ---- one entry per tile primitive, all running `run_tile` ----
    @impl(T.CopyOp)
    def run_copy(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.CopyAsyncOp)
    def run_copy_async(self, interp: Interpreter, op: TileOp, args: PythonValues):
        assert isinstance(op, T.CopyAsyncOp)
        if op.remote_cta is not None:  # lands in another CTA at the next cluster_sync
            self._call(op).values(args)  # a warp-scope copy in a CTA of several warps: refused
            dst, src, rank = args
            cluster.require_cluster(interp, op).issue(op, dst, src, int(rank))
            return ()
        return self.run_tile(interp, op, args)

    @impl(T.PermuteLayoutOp)
    def run_permute_layout(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.GemmOp)
    def run_gemm(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.GemmAsyncOp)
    def run_gemm_async(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.ZeroOp)
    def run_zero(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.FillOp)
    def run_fill(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.MemsetOp)
    def run_memset(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.ReciprocalOp)
    def run_reciprocal(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.SiluOp)
    def run_silu(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.SqrtOp)
    def run_sqrt(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.ExpOp)
    def run_exp(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.Exp2Op)
    def run_exp2(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.Log2Op)
    def run_log2(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.CastOp)
    def run_cast(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.AddOp)
    def run_add(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.SubOp)
    def run_sub(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.MulOp)
    def run_mul(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.FdivOp)
    def run_fdiv(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.MaximumOp)
    def run_maximum(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.MinimumOp)
    def run_minimum(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.FmaOp)
    def run_fma(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.SelectOp)
    def run_select(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.SumOp)
    def run_sum(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.MaxOp)
    def run_max(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.MinOp)
    def run_min(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.ReduceNegateOp)
    def run_reduce_negate(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.BinaryReduceOp)
    def run_binary_reduce(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.UnaryReduceOp)
    def run_unary_reduce(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.BinaryChainOp)
    def run_binary_chain(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)

    @impl(T.ComposeOp)
    def run_compose_op(self, interp: Interpreter, op: TileOp, args: PythonValues):
        return self.run_tile(interp, op, args)
