"""Interpreter implementations of the ``nki`` ops: the NKI simulator's semantics in numpy.

Registered as ``nki`` in `tirx_mlir.registry.interpreter_functions`, so `tirx_mlir.interpret`
and ``tirx-run`` execute kernels that hold nki ops (alone or mixed with tirx ops) next to the
core implementations of tirx, arith, math and scf. Values follow the core runtime
(`tirx_mlir.interpreter.runtime`): a tile is a numpy array (a view for ``tirx.slice``), a scalar a
Python float/int/bool; fresh memory is NaN (integers: the core's poison value), so reading
unwritten SBUF/PSUM shows in the output, as with ``nki.simulate``.

Semantics (the NKI ISA reference and the NKI simulator, aws-neuron-sdk `nki/guides/nki_simulator.rst`):

* an HBM operand is a logical view: the runner placed the tensor in a memory of its layout's
  span (`tirx_mlir.dialects.tirx.global_layout`), so a DMA reads and writes where the layout
  puts each element, as the printed kernel does on its flat HBM array;
* every instruction runs eagerly, on whole arrays; an on-chip operand ``[P, F...]`` is read as
  ``P`` rows of its free elements in row-major order, so free shapes may differ;
* arithmetic runs in fp32 (activation functions use exact float64 math, rounded to fp32), the
  result is rounded to the destination on store: round-to-nearest-even, fp32 -> int with RNE and
  saturation (NKI 0.6); bit-vector operators work on the raw integers; ``tensor_tensor`` on
  integer tiles with add/subtract/multiply/maximum/minimum is exact (GpSimd's int path);
* ``matmul``: ``dst (+)= stationary.T @ moving`` with fp32 products and fp32 accumulation;
* DMA and copies between different dtypes convert through fp32; equal dtypes copy bits;
* fused reductions (activation_reduce, tensor_scalar_reduce) reduce the fp32 results before
  the elementwise output is rounded, and write ``reduce_res`` last (it may alias dst).

Run-time checks: each op's verifier runs the first time the op executes (so the hardware limits
hold even for IR that was never verified), and what only a run knows is checked each time: the
start partition of views with dynamic offsets and the PSUM bank of a matmul output. Violations
raise `InterpretError` naming the op and its location.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from xdsl.interpreter import (Interpreter, InterpreterFunctions, PythonValues, impl,
                              register_impls)
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.trn import memory
from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dialects.nki import checks, tables
from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx.access import resolve_access
from tirx_mlir.interpreter import runtime
from tirx_mlir.interpreter.runtime import F32, I64, InterpretError

NkiValues = dict[str, Any]


def rows(x: np.ndarray, dtype: np.dtype = F32) -> np.ndarray:
    """An on-chip tile as [P, free elements] in ``dtype`` (fp32 compute by default)."""
    return np.asarray(x).astype(dtype, copy=False).reshape(x.shape[0], -1)


def vector(value: Any, dtype: np.dtype = F32) -> Any:
    """A per-partition operand: a (P, 1) tile as a [P, 1] array, a scalar as a numpy scalar."""
    if isinstance(value, np.ndarray):
        return value.astype(dtype, copy=False).reshape(value.shape[0], 1)
    return dtype.type(value)


def put(dst: np.ndarray, values: Any) -> None:
    """Store ``values`` (any shape with dst's element count, or broadcastable) into dst, with
    NKI's rounding (RNE, fp32 -> int with RNE and saturation)."""
    arr = np.asarray(values)
    if arr.size == dst.size and arr.shape != dst.shape:
        arr = arr.reshape(dst.shape)
    runtime.store(dst, arr, float_to_int="rne")


def copy_converting(dst: np.ndarray, src: np.ndarray) -> None:
    """``dst = src`` element by element in row-major order: bits when the dtypes match, through
    fp32 otherwise (DMA and engine copies). A one-row source of fewer elements is a partition
    broadcast (`_DmaOp.is_partition_broadcast`): every row of dst receives it."""
    if src.shape == dst.shape and (src.dtype is dst.dtype or src.dtype == dst.dtype):
        dst[...] = src  # the bits, element by element (`np.copyto`'s copy, without its wrapper)
        return
    values = src if src.dtype == dst.dtype else src.astype(F32)
    if values.size != dst.size:
        values = np.broadcast_to(values.reshape((1,) + dst.shape[1:]), dst.shape)
    put(dst, values.reshape(dst.shape))


def ufunc_of(fn: Callable) -> np.ufunc | None:
    """The numpy ufunc a table entry's function applies (`tables._numpy` names it), or None."""
    name = getattr(fn, "numpy_name", None)
    found = getattr(np, name, None) if name else None
    return found if isinstance(found, np.ufunc) else None


ALU_UFUNCS: dict[str, np.ufunc | None] = {name: ufunc_of(alu.fn)
                                          for name, alu in tables.ALU_OPS.items()}
"""ALU operator -> the ufunc it is (called with ``out=`` straight into an fp32 destination)."""

RECIPROCAL = tables.ALU_OPS["reciprocal"].fn
"""VectorE's ``1 / a`` (`nki.reciprocal`)."""

ACTIVATION_UFUNCS: dict[str, tuple[np.ufunc, bool]] = {
    name: (ufunc, getattr(act.fn, "quiet", False))
    for name, act in tables.ACTIVATIONS.items() if (ufunc := ufunc_of(act.fn)) is not None}
"""Activation -> (its ufunc, whether it runs under `tables.QUIET`): computed in float64 and
rounded to fp32 in one pass (``dtype=float64, casting="unsafe"``: the same values as the float64
array rounded by a copy, without the array)."""


def _apply(op: tables.AluOp, x: Any, operand: Any, reverse: bool) -> Any:
    if op.is_unary:
        return op.fn(x)
    return op.fn(operand, x) if reverse else op.fn(x, operand)


def _alu_dtype(op: tables.AluOp) -> np.dtype:
    return I64 if op.kind == tables.BITVEC else F32


def _pattern_values(nparts: int, pattern: tuple[tuple[int, int], ...], offset: int,
                    channel_multiplier: int) -> np.ndarray:
    """``offset + p * channel_multiplier + sum(i_d * step_d)`` as a [P, free] int64 array."""
    grids = np.ogrid[tuple(slice(0, n) for _, n in pattern)]
    value = np.int64(offset) + sum((g.astype(I64) * step for (step, _), g in
                                    zip(pattern, grids)), np.zeros((), I64))
    p = np.arange(nparts, dtype=I64).reshape((nparts,) + (1,) * len(pattern))
    return (p * channel_multiplier + value).reshape(nparts, -1)


Semantics = Callable[["NkiFunctions", Any, NkiValues], None]

_SEMANTICS: dict[type, Semantics] = {}
"""op type -> its semantics on the named operand values (`_nki_impl` registers each)."""


def _nki_impl(op_type: type, semantics: Semantics):
    """The xDSL implementation of ``op_type`` running ``semantics`` (``(functions, op, values)``)
    after `NkiFunctions._start`; `NkiFunctions.prepare_op` runs the same semantics."""
    _SEMANTICS[op_type] = semantics

    @impl(op_type)
    def run(self: NkiFunctions, interp: Interpreter, op: Any, args: PythonValues):
        semantics(self, op, self._start(interp, op, args))
        return ()

    return run


@register_impls
class NkiFunctions(InterpreterFunctions):
    """One implementation per nki op (see the module docstring for the semantics)."""

    def __init__(self) -> None:
        self._calls = runtime.PerOpCache()

    # ---- shared per-call work ----
    def _start(self, interp: Interpreter, op: nki.NkiOp, args: PythonValues) -> NkiValues:
        """Check the op (its verifier once, dynamic view rules every time); name the args."""
        names, dynamic_views = self._calls.get(op, "nki", lambda: self._prepare(op))
        if dynamic_views:
            self._check_dynamic_views(interp, op, dynamic_views)
        return dict(zip(names, args))

    def prepare_op(self, interp: Interpreter, op: nki.NkiOp
                   ) -> Callable[[PythonValues], tuple] | None:
        """``op`` made ready to run (`core.BlockPlan`): what `_start` does once per op (the
        verifier, the operand names, the views to check) done here, so a run only checks the
        dynamic views and runs the semantics. The plan rebuilds this when the op changes."""
        semantics = _SEMANTICS.get(type(op))
        if semantics is None:
            return None
        names, dynamic_views = self._calls.get(op, "nki", lambda: self._prepare(op))
        if dynamic_views:
            def run_checked(args: PythonValues) -> tuple:
                self._check_dynamic_views(interp, op, dynamic_views)
                semantics(self, op, dict(zip(names, args)))
                return ()

            return run_checked
        direct = _DIRECT.get(type(op))
        run_direct = direct(self, op, names) if direct is not None else None
        if run_direct is not None:
            return run_direct

        def run(args: PythonValues) -> tuple:
            semantics(self, op, dict(zip(names, args)))
            return ()

        return run

    def _prepare(self, op: nki.NkiOp) -> tuple[tuple[str, ...], list[tuple[str, SSAValue, Any]]]:
        """Run the verifier (the static limits hold even for unverified IR) and find the views
        whose checked offsets only a run knows (computed once per op, see `PerOpCache`); a view
        whose start partition is static (only its free offset is dynamic) is checked here."""
        try:
            op.verify_()
        except VerifyException as err:
            raise InterpretError(str(err), op, code="nki-limit") from None
        dynamic = []
        for name, value in op.named_operands().items():
            if not checks.is_tile(value) or checks.scope(value) not in memory.ON_CHIP or \
                    checks.is_logical_view(value):
                continue
            access = resolve_access(value)
            if access.static_offset() is None:
                if isinstance(op, nki.MatmulOp) and name == "dst":
                    dynamic.append((name, value, access))  # its PSUM bank: every offset
                elif access.offset[0].terms:  # the start partition: the only rule here
                    dynamic.append((name, value, access))
                else:
                    self._check_view(op, name, value, [access.offset[0].const], access.sizes)
        return tuple(op.named_operands()), dynamic

    def _check_dynamic_views(self, interp: Interpreter, op: nki.NkiOp,
                             views: list[tuple[str, SSAValue, Any]]) -> None:
        env: Callable[[SSAValue], Any] = lambda v: interp.get_values((v,))[0]  # noqa: E731
        for name, value, access in views:
            self._check_view(op, name, value, [o.evaluate(env) for o in access.offset],
                             access.sizes)

    @staticmethod
    def _check_view(op: nki.NkiOp, name: str, value: SSAValue, offset: list[int],
                    sizes: Any) -> None:
        """The start partition of a view at ``offset`` (and a matmul output's PSUM bank)."""
        try:
            checks.check_partition_start(name, offset[0], sizes[0])
            if isinstance(op, nki.MatmulOp) and name == "dst":
                checks.check_psum_bank(name, value, offset, checks.limits_for(op))
        except rules.RuleError as err:
            raise InterpretError(str(err), op, code="nki-limit") from None

    # ---- data movement ----
    def _load(self, op: nki.LoadOp, v: NkiValues) -> None:
        copy_converting(v["dst"], v["src"])

    run_load = _nki_impl(nki.LoadOp, _load)

    def _store(self, op: nki.StoreOp, v: NkiValues) -> None:
        copy_converting(v["dst"], v["src"])

    run_store = _nki_impl(nki.StoreOp, _store)

    def _dma_copy(self, op: nki.DmaCopyOp, v: NkiValues) -> None:
        copy_converting(v["dst"], v["src"])

    run_dma_copy = _nki_impl(nki.DmaCopyOp, _dma_copy)

    def _tensor_copy(self, op: nki.TensorCopyOp, v: NkiValues) -> None:
        dst, src = v["dst"], v["src"]
        scalar_v2 = op.name_prop("engine") == "scalar" and checks.limits_for(op).nc_version <= 2
        values = src.astype(F32) if scalar_v2 or src.dtype != dst.dtype else src
        put(dst, rows(values, values.dtype))

    run_tensor_copy = _nki_impl(nki.TensorCopyOp, _tensor_copy)

    def _memset(self, op: nki.MemsetOp, v: NkiValues) -> None:
        dst, value = v["dst"], v["value"]
        if dst.dtype == F32 and isinstance(value, float):
            dst.fill(value)  # rounded to fp32 (nearest even), as the store rounds
        else:
            put(dst, np.full(dst.shape, value))

    run_memset = _nki_impl(nki.MemsetOp, _memset)

    def _iota(self, op: nki.IotaOp, v: NkiValues) -> None:
        dst = v["dst"]
        offset = op.int_prop("offset") + int(v.get("offset_index", 0))
        values = _pattern_values(dst.shape[0], op.pattern_prop(), offset,
                                 op.int_prop("channel_multiplier"))
        put(dst, runtime.convert(values, np.dtype(np.int32)))  # computed in int32

    run_iota = _nki_impl(nki.IotaOp, _iota)

    def _identity(self, op: nki.IdentityOp, v: NkiValues) -> None:
        put(v["dst"], np.eye(v["dst"].shape[0], dtype=F32))

    run_identity = _nki_impl(nki.IdentityOp, _identity)

    # ---- TensorE ----
    def _matmul(self, op: nki.MatmulOp, v: NkiValues) -> None:
        self._matmul_into(op, v["dst"], v["stationary"], v["moving"],
                          op.flag("accumulate") or bool(v.get("accumulate_if", False)))

    def _matmul_into(self, op: nki.MatmulOp, dst: np.ndarray, stationary: np.ndarray,
                     moving: np.ndarray, accumulate: bool) -> None:
        # fp32 products and accumulation; a contiguous [M, K] operand keeps BLAS on its fast
        # path (a transposed view runs ~20x slower) and the result independent of the view's
        # strides (BLAS sums a transposed operand in another order for some shapes)
        if stationary.dtype != F32 or stationary.ndim != 2:
            stationary = rows(stationary)
        stationary = np.ascontiguousarray(stationary.T)
        if moving.dtype != F32 or moving.ndim != 2:
            moving = rows(moving)
        shape = (stationary.shape[0], moving.shape[1])
        if dst.dtype == F32 and dst.shape == shape and \
                not np.may_share_memory(dst, moving):  # the fp32 result goes straight to dst
            if not accumulate:
                np.matmul(stationary, moving, out=dst)
                return
            product = self._scratch(op, shape)
            np.matmul(stationary, moving, out=product)
            np.add(dst, product, out=dst)
            return
        product = np.matmul(stationary, moving)
        if accumulate:
            product = rows(dst) + product
        put(dst, product)

    run_matmul = _nki_impl(nki.MatmulOp, _matmul)

    def _scratch(self, op: nki.NkiOp, shape: tuple[int, ...], dtype: np.dtype = F32
                 ) -> np.ndarray:
        """A temporary owned by ``op``, reused on each run (values never escape it)."""
        return self._calls.get(op, ("scratch", shape, dtype), lambda: np.empty(shape, dtype))

    def _transpose(self, op: nki.TransposeOp, v: NkiValues) -> None:
        src = v["src"]
        put(v["dst"], rows(src, src.dtype).T)

    run_transpose = _nki_impl(nki.TransposeOp, _transpose)

    # ---- ScalarE ----
    def _activate(self, op: nki.ActivationOp | nki.ActivationReduceOp, func: tables.Activation,
                  src: np.ndarray, scale: Any, bias: Any, dst: np.ndarray | None = None
                  ) -> np.ndarray:
        """fp32 ``func(src * scale + bias)`` as [P, free] (the function in float64, rounded);
        ``scale`` and ``bias`` are None when the op has none.

        With ``dst`` (an fp32 [P, free] array, the op's destination) the values are computed
        in place there, through a float64 scratch array owned by the op, and ``dst`` is
        returned: the same values without the temporaries (which cost page faults at these
        sizes)."""
        x = rows(src)
        if dst is None or dst.shape != x.shape or any(
                isinstance(o, np.ndarray) and np.may_share_memory(dst, o)
                for o in (scale, bias)):  # (dst is written before they are read)
            if scale is not None:
                x = x * vector(scale)
            if bias is not None:
                x = x + vector(bias)
            return func.fn(x.astype(np.float64)).astype(F32)
        if scale is not None:
            x = np.multiply(x, vector(scale), out=dst)
        if bias is not None:
            x = np.add(x, vector(bias), out=dst)
        ufunc = ACTIVATION_UFUNCS.get(func.name)
        if ufunc is not None:
            if ufunc[1]:
                with np.errstate(**tables.QUIET):
                    ufunc[0](x, out=dst, dtype=np.float64, casting="unsafe")
            else:
                ufunc[0](x, out=dst, dtype=np.float64, casting="unsafe")
            return dst
        x64 = self._scratch(op, x.shape, np.dtype(np.float64))
        np.copyto(x64, x)
        np.copyto(dst, func.fn(x64), casting="unsafe")  # float64 -> fp32, nearest even
        return dst

    @staticmethod
    def _fp32_rows(dst: np.ndarray) -> np.ndarray | None:
        """``dst`` itself when it is an fp32 [P, free] array (computed into in place), else
        None."""
        return dst if dst.dtype == F32 and dst.ndim == 2 else None

    def _activation(self, op: nki.ActivationOp, v: NkiValues) -> None:
        self._activation_into(op, tables.ACTIVATIONS[op.func.data], v["dst"], v["src"],
                              v.get("scale"), v.get("bias"))

    def _activation_into(self, op: nki.ActivationOp, func: tables.Activation, dst: np.ndarray,
                         src: np.ndarray, scale: Any, bias: Any) -> None:
        out = self._activate(op, func, src, scale, bias, self._fp32_rows(dst))
        if out is not dst:
            put(dst, out)

    run_activation = _nki_impl(nki.ActivationOp, _activation)

    def _activation_reduce(self, op: nki.ActivationReduceOp, v: NkiValues) -> None:
        self._activation_reduce_into(op, tables.ACTIVATIONS[op.func.data], v["dst"],
                                     v["reduce_res"], v["src"], v.get("scale"), v.get("bias"))

    def _activation_reduce_into(self, op: nki.ActivationReduceOp, func: tables.Activation,
                                dst: np.ndarray, reduce_res: np.ndarray, src: np.ndarray,
                                scale: Any, bias: Any) -> None:
        out = self._activate(op, func, src, scale, bias, self._fp32_rows(dst))
        total = np.add.reduce(out, axis=1, keepdims=True, dtype=F32)
        if out is not dst:
            put(dst, out)
        put(reduce_res, total)

    run_activation_reduce = _nki_impl(nki.ActivationReduceOp, _activation_reduce)

    # ---- VectorE ----
    def _reciprocal(self, op: nki.ReciprocalOp, v: NkiValues) -> None:
        self._reciprocal_into(v["dst"], v["src"])

    @staticmethod
    def _reciprocal_into(dst: np.ndarray, src: np.ndarray) -> None:
        put(dst, RECIPROCAL(rows(src)))

    run_reciprocal = _nki_impl(nki.ReciprocalOp, _reciprocal)

    def _tensor_reduce(self, op: nki.TensorReduceOp, v: NkiValues) -> None:
        self._tensor_reduce_into(tables.ALU_OPS[op.op.data], op.normalized_axes(),
                                 op.flag("negate"), v["dst"], v["src"])

    @staticmethod
    def _tensor_reduce_into(alu: tables.AluOp, axes: tuple[int, ...], negate: bool,
                            dst: np.ndarray, src: np.ndarray) -> None:
        src = np.asarray(src).astype(_alu_dtype(alu), copy=False)
        out = tables.reduce(alu.name, src, axes)
        if negate:
            out = -out
        put(dst, out)

    run_tensor_reduce = _nki_impl(nki.TensorReduceOp, _tensor_reduce)

    def _tensor_tensor(self, op: nki.TensorTensorOp, v: NkiValues) -> None:
        self._tensor_tensor_into(tables.ALU_OPS[op.op.data], v["dst"], v["lhs"], v["rhs"])

    @staticmethod
    def _tensor_tensor_into(alu: tables.AluOp, dst: np.ndarray, lhs: np.ndarray,
                            rhs: np.ndarray) -> None:
        exact_int = alu.name in ("add", "subtract", "multiply", "maximum", "minimum") and \
            all(not runtime.is_float_dtype(t.dtype) for t in (dst, lhs, rhs))
        dtype = I64 if exact_int else _alu_dtype(alu)
        lhs, rhs = rows(lhs, dtype), rows(rhs, dtype)
        ufunc = ALU_UFUNCS[alu.name]
        if dtype == F32 and dst.dtype == F32 and dst.ndim == 2 and \
                ufunc is not None and lhs.shape == rhs.shape == dst.shape:
            ufunc(lhs, rhs, out=dst)  # fp32 straight into dst (ufuncs handle the overlap)
            return
        put(dst, alu.fn(lhs, rhs))

    run_tensor_tensor = _nki_impl(nki.TensorTensorOp, _tensor_tensor)

    def _tensor_scalar(self, op: nki.TensorScalarOp, v: NkiValues) -> None:
        op1 = None if op.op1 is None else tables.ALU_OPS[op.op1.data]
        self._tensor_scalar_into(tables.ALU_OPS[op.op0.data], op.flag("reverse0"), op1,
                                 op.flag("reverse1"), v["dst"], v["data"], v["operand0"],
                                 v.get("operand1"))

    @staticmethod
    def _tensor_scalar_into(op0: tables.AluOp, reverse0: bool, op1: tables.AluOp | None,
                            reverse1: bool, dst: np.ndarray, data: np.ndarray, operand0: Any,
                            operand1: Any) -> None:
        """``dst = (data op0 operand0) op1 operand1`` (see the op); ``op1`` None: no second
        operator."""
        dtype = _alu_dtype(op0)
        data = rows(data, dtype)
        ufunc = ALU_UFUNCS[op0.name]
        if op1 is None and dtype == F32 and dst.dtype == F32 and dst.ndim == 2 and \
                data.shape == dst.shape and ufunc is not None and not op0.is_unary:
            operand = vector(operand0, dtype)  # one ufunc straight into dst (overlap-safe)
            ufunc(*((operand, data) if reverse0 else (data, operand)), out=dst)
            return
        out = _apply(op0, data, vector(operand0, dtype), reverse0)
        if op1 is not None:
            out = _apply(op1, np.asarray(out, dtype), vector(operand1, dtype), reverse1)
        put(dst, out)

    run_tensor_scalar = _nki_impl(nki.TensorScalarOp, _tensor_scalar)

    def _tensor_scalar_reduce(self, op: nki.TensorScalarReduceOp, v: NkiValues) -> None:
        op0 = tables.ALU_OPS[op.op0.data]
        out = _apply(op0, rows(v["data"]), vector(v["operand0"]), op.flag("reverse0"))
        out = np.asarray(out, F32)
        total = tables.reduce(op.reduce.data, out, (1,))
        put(v["dst"], out)
        put(v["reduce_res"], total)

    run_tensor_scalar_reduce = _nki_impl(nki.TensorScalarReduceOp, _tensor_scalar_reduce)

    def _scalar_tensor_tensor(self, op: nki.ScalarTensorTensorOp, v: NkiValues) -> None:
        op0, op1 = tables.ALU_OPS[op.op0.data], tables.ALU_OPS[op.op1.data]
        t = np.asarray(_apply(op0, rows(v["data"]), vector(v["operand0"]),
                              op.flag("reverse0")), F32)
        put(v["dst"], _apply(op1, t, rows(v["operand1"]), op.flag("reverse1")))

    run_scalar_tensor_tensor = _nki_impl(nki.ScalarTensorTensorOp, _scalar_tensor_tensor)

    def _select(self, op: nki.SelectOp, v: NkiValues) -> None:
        on_true, on_false = v["on_true"], v["on_false"]
        floats = runtime.is_float_dtype(v["dst"].dtype) or runtime.is_float_dtype(on_true.dtype)
        dtype = F32 if floats else I64
        false_values = rows(on_false, dtype) if isinstance(on_false, np.ndarray) \
            else dtype.type(on_false)
        put(v["dst"], np.where(rows(v["predicate"], I64) != 0, rows(on_true, dtype),
                               false_values))

    run_select = _nki_impl(nki.SelectOp, _select)

    # ---- GpSimd ----
    def _affine_select(self, op: nki.AffineSelectOp, v: NkiValues) -> None:
        dst = v["dst"]
        offset = op.int_prop("offset") + int(v.get("offset_index", 0))
        values = _pattern_values(dst.shape[0], op.pattern_prop(), offset,
                                 op.int_prop("channel_multiplier"))
        mask = tables.AFFINE_SELECT_CMPS[op.cmp.data](values, 0)
        put(dst, np.where(mask, rows(v["on_true"]), F32.type(op.float_prop("on_false"))))

    run_affine_select = _nki_impl(nki.AffineSelectOp, _affine_select)


# ---- direct runs: the semantics above with the op's properties decoded once ----------------
#
# `NkiFunctions.prepare_op` runs an op through its entry here (when it has one and no view of
# it needs a run-time check): a callable on the positional operand values, calling the same
# semantics function as the op's implementation, without naming the operands in a dict or
# decoding the op's properties on each run. The block plan rebuilds it when the op changes.


def _direct_dma(functions: NkiFunctions, op: Any, names: tuple[str, ...]):
    dst, src = names.index("dst"), names.index("src")

    def run(args: PythonValues) -> tuple:
        copy_converting(args[dst], args[src])
        return ()

    return run


def _direct_matmul(functions: NkiFunctions, op: nki.MatmulOp, names: tuple[str, ...]):
    if "accumulate_if" in names:  # a run-time flag
        return None
    dst, stationary, moving = (names.index(n) for n in ("dst", "stationary", "moving"))
    accumulate, matmul_into = op.flag("accumulate"), functions._matmul_into

    def run(args: PythonValues) -> tuple:
        matmul_into(op, args[dst], args[stationary], args[moving], accumulate)
        return ()

    return run


def _direct_tensor_tensor(functions: NkiFunctions, op: nki.TensorTensorOp,
                          names: tuple[str, ...]):
    dst, lhs, rhs = (names.index(n) for n in ("dst", "lhs", "rhs"))
    alu, into = tables.ALU_OPS[op.op.data], NkiFunctions._tensor_tensor_into
    ufunc = ALU_UFUNCS[alu.name]
    if ufunc is None or _alu_dtype(alu) != F32:
        def run(args: PythonValues) -> tuple:
            into(alu, args[dst], args[lhs], args[rhs])
            return ()

        return run

    def run_fp32(args: PythonValues) -> tuple:
        d, a, b = args[dst], args[lhs], args[rhs]
        if d.dtype == a.dtype == b.dtype == F32 and d.ndim == a.ndim == b.ndim == 2 and \
                d.shape == a.shape == b.shape:
            ufunc(a, b, out=d)  # `_tensor_tensor_into`'s fp32 path, its checks already known
        else:
            into(alu, d, a, b)
        return ()

    return run_fp32


def _optional(names: tuple[str, ...], name: str) -> Callable[[PythonValues], Any]:
    """The value of operand ``name`` from the positional values (None when the op has none)."""
    if name not in names:
        return lambda args: None
    k = names.index(name)
    return lambda args: args[k]


def _direct_activation(functions: NkiFunctions, op: nki.ActivationOp, names: tuple[str, ...]):
    dst, src = names.index("dst"), names.index("src")
    scale, bias = _optional(names, "scale"), _optional(names, "bias")
    func, into = tables.ACTIVATIONS[op.func.data], functions._activation_into

    def run(args: PythonValues) -> tuple:
        into(op, func, args[dst], args[src], scale(args), bias(args))
        return ()

    return run


def _direct_activation_reduce(functions: NkiFunctions, op: nki.ActivationReduceOp,
                              names: tuple[str, ...]):
    dst, res, src = (names.index(n) for n in ("dst", "reduce_res", "src"))
    scale, bias = _optional(names, "scale"), _optional(names, "bias")
    func, into = tables.ACTIVATIONS[op.func.data], functions._activation_reduce_into

    def run(args: PythonValues) -> tuple:
        into(op, func, args[dst], args[res], args[src], scale(args), bias(args))
        return ()

    return run


def _direct_reciprocal(functions: NkiFunctions, op: nki.ReciprocalOp, names: tuple[str, ...]):
    dst, src = names.index("dst"), names.index("src")
    into = NkiFunctions._reciprocal_into

    def run(args: PythonValues) -> tuple:
        into(args[dst], args[src])
        return ()

    return run


def _direct_tensor_reduce(functions: NkiFunctions, op: nki.TensorReduceOp,
                          names: tuple[str, ...]):
    dst, src = names.index("dst"), names.index("src")
    alu, axes, negate = tables.ALU_OPS[op.op.data], op.normalized_axes(), op.flag("negate")
    into = NkiFunctions._tensor_reduce_into

    def run(args: PythonValues) -> tuple:
        into(alu, axes, negate, args[dst], args[src])
        return ()

    return run


def _direct_tensor_scalar(functions: NkiFunctions, op: nki.TensorScalarOp,
                          names: tuple[str, ...]):
    dst, data, operand0 = (names.index(n) for n in ("dst", "data", "operand0"))
    operand1 = _optional(names, "operand1")
    op0, reverse0 = tables.ALU_OPS[op.op0.data], op.flag("reverse0")
    op1 = None if op.op1 is None else tables.ALU_OPS[op.op1.data]
    reverse1, into = op.flag("reverse1"), NkiFunctions._tensor_scalar_into

    def run(args: PythonValues) -> tuple:
        into(op0, reverse0, op1, reverse1, args[dst], args[data], args[operand0],
             operand1(args))
        return ()

    return run


_DIRECT: dict[type, Callable[[NkiFunctions, Any, tuple[str, ...]], Any]] = {
    nki.LoadOp: _direct_dma, nki.StoreOp: _direct_dma, nki.DmaCopyOp: _direct_dma,
    nki.MatmulOp: _direct_matmul, nki.TensorTensorOp: _direct_tensor_tensor,
    nki.ActivationOp: _direct_activation, nki.ActivationReduceOp: _direct_activation_reduce,
    nki.ReciprocalOp: _direct_reciprocal, nki.TensorReduceOp: _direct_tensor_reduce,
    nki.TensorScalarOp: _direct_tensor_scalar,
}
"""op type -> the builder of its direct run (None: through its semantics)."""
