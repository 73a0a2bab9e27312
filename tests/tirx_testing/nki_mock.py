"""A numpy stand-in for the NKI Python APIs, to *run* what the printers emit.

The Neuron compiler is not available here, so the printers' output is executed against these
mock modules (``nki``/``nki.language``/``nki.isa`` for the current API, ``neuronxcc.nki.*`` for
the legacy one) and compared with the interpreter on the IR. Each mock call does what NKI
documents for it (the NKI ISA reference), eagerly on numpy arrays, so a wrong argument order,
a wrong view, a missed reverse flag or a wrong accumulate shows as a numeric difference.

    with mock_nki("current"):
        namespace = run_source(text)
    out = namespace["kernel"](a, b)
"""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Any

import ml_dtypes
import numpy as np

from tirx_mlir.backends.trn.dialects.nki import tables

F32 = np.float32
DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
          "float8_e4m3fn": ml_dtypes.float8_e4m3fn, "float8_e5m2": ml_dtypes.float8_e5m2,
          "int8": np.int8, "int16": np.int16, "int32": np.int32, "uint8": np.uint8,
          "uint16": np.uint16, "uint32": np.uint32, "bool_": np.bool_}


class Tensor(np.ndarray):
    """An on-chip or HBM tensor: a numpy array with NKI's ``.ap()`` view (current API)."""

    def ap(self, pattern, offset=0, **_):
        base = self
        while isinstance(base.base, np.ndarray):
            base = base.base
        flat = base.reshape(-1)
        shape = [n for _, n in pattern]
        strides = [s * flat.itemsize for s, _ in pattern]
        return np.lib.stride_tricks.as_strided(flat[offset:], shape, strides).view(Tensor)


def fresh(shape, dtype) -> Tensor:
    """New memory as the simulator fills it: NaN for floats, 4 for integers."""
    dt = np.dtype(dtype)
    fill = 4 if dt.kind in "iub" else np.nan
    return np.full(tuple(shape), fill, dtype=dt).view(Tensor)


def _f32(x):
    return np.asarray(x).astype(F32)


def _rows(x):
    return _f32(x).reshape(np.shape(x)[0], -1)


def _vector(x):
    return _f32(x).reshape(-1, 1) if isinstance(x, np.ndarray) else F32(x)


def _store(dst, values):
    values = np.asarray(values)
    if np.dtype(dst.dtype).kind in "iu" and values.dtype.kind == "f":
        info = np.iinfo(dst.dtype)
        values = np.clip(np.nan_to_num(np.rint(values)), info.min, info.max)
    dst[...] = values.reshape(dst.shape).astype(dst.dtype)


def _alu(name, x, operand, reverse=False):
    op = tables.ALU_OPS[name]
    if op.kind == tables.BITVEC:
        x = np.asarray(x).astype(np.int64)
        operand = np.asarray(operand).astype(np.int64)
    if op.is_unary:
        return op.fn(x)
    return op.fn(operand, x) if reverse else op.fn(x, operand)


def _activation(name, data, bias=None, scale=1.0):
    x = _rows(data) * (_vector(scale) if scale is not None else F32(1))
    if bias is not None:
        x = x + _vector(bias)
    return tables.ACTIVATIONS[name].fn(x.astype(np.float64)).astype(F32)


def _pattern(nparts, pattern, offset, channel_multiplier):
    grids = np.ogrid[tuple(slice(0, n) for _, n in pattern)]
    value = offset + sum(g * s for (s, _), g in zip(pattern, grids))
    p = np.arange(nparts).reshape((nparts,) + (1,) * len(pattern))
    return (p * channel_multiplier + value).reshape(nparts, -1)


def _module(name: str, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    return module


def _names(*names: str) -> dict[str, str]:
    """ALU operators and activation functions are passed as their names."""
    return {n: n for n in names}


_OP_NAMES = _names(*tables.ALU_OPS, *tables.ACTIVATIONS)


# --- current API --------------------------------------------------------------------------------


def _current_isa() -> types.ModuleType:
    def dma_copy(dst, src, **_):
        _store(dst, np.asarray(src) if src.dtype == dst.dtype else _f32(src))

    def tensor_copy(dst, src, engine=None, **_):
        _store(dst, _rows(src) if src.dtype != dst.dtype else np.asarray(src).reshape(
            src.shape[0], -1))

    def tensor_copy_predicated(dst, src, predicate, reverse_pred=False, **_):
        mask = np.asarray(predicate).reshape(dst.shape) != 0
        dst[mask ^ reverse_pred] = np.asarray(src).astype(dst.dtype)[mask ^ reverse_pred]

    def memset(dst, value, engine=None, **_):
        dst[...] = value

    def iota(dst, pattern, offset=0, channel_multiplier=0, **_):
        _store(dst, _pattern(dst.shape[0], pattern, offset, channel_multiplier))

    def affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value,
                      cmp_op="equal", offset=0, **_):
        values = _pattern(dst.shape[0], pattern, offset, channel_multiplier)
        mask = tables.AFFINE_SELECT_CMPS[cmp_op](values, 0)
        _store(dst, np.where(mask, _rows(on_true_tile), F32(on_false_value)))

    def nc_matmul(dst, stationary, moving, accumulate=None, **_):
        out = np.ascontiguousarray(_rows(stationary).T) @ _rows(moving)
        _store(dst, _rows(dst) + out if accumulate else out)

    def nc_transpose(dst, data, engine=None, **_):
        _store(dst, np.asarray(data).reshape(data.shape[0], -1).T)

    def activation(dst, op, data, bias=None, scale=1.0, **_):
        _store(dst, _activation(op, data, bias, scale))

    def activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, **_):
        out = _activation(op, data, bias, scale)
        _store(dst, out)
        _store(reduce_res, out.sum(axis=1, keepdims=True, dtype=F32))

    def reciprocal(dst, data, **_):
        _store(dst, 1 / _rows(data))

    def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, **_):
        kind = tables.ALU_OPS[op].kind
        x = np.asarray(data).astype(np.int64 if kind == tables.BITVEC else F32)
        out = tables.reduce(op, x, tuple(axis))
        _store(dst, -out if negate else out)

    def tensor_tensor(dst, data1, data2, op, **_):
        ints = all(np.dtype(t.dtype).kind in "iu" for t in (dst, data1, data2))
        a, b = (np.asarray(t).reshape(t.shape[0], -1) for t in (data1, data2))
        if not ints or tables.ALU_OPS[op].kind == tables.ARITH and op not in (
                "add", "subtract", "multiply", "maximum", "minimum"):
            a, b = a.astype(F32), b.astype(F32)
        else:
            a, b = a.astype(np.int64), b.astype(np.int64)
        _store(dst, _alu(op, a, b))

    def tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None,
                      reverse1=False, **_):
        out = _alu(op0, _rows(data), _vector(operand0), reverse0)
        if op1 is not None:
            out = _alu(op1, out, _vector(operand1), reverse1)
        _store(dst, out)

    def tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res, reverse0=False,
                             **_):
        out = _f32(_alu(op0, _rows(data), _vector(operand0), reverse0))
        _store(dst, out)
        _store(reduce_res, tables.reduce(reduce_op, out, (1,)))

    def scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False,
                             reverse1=False, **_):
        t = _f32(_alu(op0, _rows(data), _vector(operand0), reverse0))
        _store(dst, _alu(op1, t, _rows(operand1), reverse1))

    engine = types.SimpleNamespace(vector="vector", scalar="scalar", gpsimd="gpsimd",
                                   tensor="tensor")
    return _module("nki.isa", **{k: v for k, v in locals().items() if not k.startswith("_")})


def current_modules() -> dict[str, types.ModuleType]:
    language = _module(
        "nki.language", **_OP_NAMES, **DTYPES, sbuf="sbuf", psum="psum", hbm="hbm",
        shared_hbm="shared_hbm",
        ndarray=lambda shape, dtype, buffer=None, name="", address=None: fresh(shape, dtype),
        ds=lambda start, size: slice(start, start + size),
        program_id=lambda axis: 0, affine_range=range, sequential_range=range,
        static_range=range)
    isa = _current_isa()
    nki = _module("nki", jit=lambda f=None, **_: f, language=language, isa=isa)
    return {"nki": nki, "nki.language": language, "nki.isa": isa}


# --- legacy API ---------------------------------------------------------------------------------


_MASK: list = []
"""The ``mask=`` of the legacy call being run (empty: none): its tiles are read and written only
where the mask holds (NKI: "the instruction runs only over the index region where the predicate
holds"; elements read outside it may lie outside the tensor)."""


class Masked:
    """An instruction's result under a mask: assigning it writes where the mask holds."""

    def __init__(self, value, mask):
        self.value, self.mask = np.asarray(value), mask


def _masked_index(index, mask):
    """(broadcast index arrays, broadcast mask) of a masked access."""
    parts = index if isinstance(index, tuple) else (index,)
    *arrays, m = np.broadcast_arrays(*[np.asarray(p) for p in parts], np.asarray(mask))
    return arrays, m


class Indexed:
    """``tensor[index]`` in legacy NKI: read where an instruction takes a tile, written by
    ``nl.store``/``nisa.dma_copy``/assignment."""

    def __init__(self, base: np.ndarray, index):
        self.base, self.index = base, index

    def read(self) -> np.ndarray:
        if not _MASK:
            return np.asarray(self.base)[self.index]
        arrays, m = _masked_index(self.index, _MASK[-1])
        base = np.asarray(self.base)
        out = np.full(m.shape, np.nan if base.dtype.kind == "f" else 0, base.dtype)
        out[m] = base[tuple(a[m] for a in arrays)]
        return out

    def write(self, value, mask=None) -> None:
        mask = mask if mask is not None else (_MASK[-1] if _MASK else None)
        if isinstance(value, Masked):
            value, mask = value.value, value.mask
        if mask is None:
            self.base.view(np.ndarray)[self.index] = np.asarray(value).astype(self.base.dtype)
            return
        arrays, m = _masked_index(self.index, mask)
        values = np.broadcast_to(np.asarray(value), m.shape)
        self.base.view(np.ndarray)[tuple(a[m] for a in arrays)] = \
            values[m].astype(self.base.dtype)

    def __iadd__(self, value):
        return self.read().astype(F32) + value


class LegacyTensor(np.ndarray):
    def __getitem__(self, index):
        return Indexed(self, index)

    def __setitem__(self, index, value):
        mask = None
        if isinstance(value, Masked):
            value, mask = value.value, value.mask
        if isinstance(value, Indexed):
            value = value.read()
        value = np.asarray(value)
        if np.dtype(self.dtype).kind in "iu" and value.dtype.kind == "f":
            info = np.iinfo(self.dtype)
            value = np.clip(np.nan_to_num(np.rint(value)), info.min, info.max)
        if mask is not None:
            Indexed(self, index).write(value, mask)
            return
        self.view(np.ndarray)[index] = value.astype(self.dtype)

    def reshape(self, *shape):
        return np.asarray(self).reshape(*shape).view(LegacyTensor)


_IDENTITY = {"add": 0.0, "maximum": -np.inf, "minimum": np.inf, "multiply": 1.0}


def _unmasked(x, identity):
    """``x`` with its masked-off elements (under the running call's mask) set to ``identity``:
    in a masked reduction they take no part."""
    if not _MASK:
        return x
    keep = np.broadcast_to(np.asarray(_MASK[-1]), x.shape)
    return np.where(keep, x, np.asarray(identity).astype(x.dtype))


def _within_mask(x, axes):
    """``x`` cut, along the reduced ``axes``, to the running mask's extent there (a mask of
    ``i < bound`` terms is a box), so a masked reduction sums what the unmasked one over the
    guarded view sums, in the same order."""
    if not _MASK:
        return x
    keep = np.broadcast_to(np.asarray(_MASK[-1]), x.shape)
    for ax in axes:
        others = tuple(a for a in range(x.ndim) if a != ax)
        n = int(keep.any(axis=others).sum())
        x, keep = x.take(range(n), axis=ax), keep.take(range(n), axis=ax)
    return x


def _tile(x):
    return x.read() if isinstance(x, Indexed) else np.asarray(x)


def _legacy_isa() -> types.ModuleType:
    def dma_copy(*, src, dst, **_):
        dst.write(_tile(src))

    def tensor_copy(src, **_):
        return _tile(src)

    def nc_matmul(stationary, moving, **_):
        s, m = _within_mask(_tile(stationary), (0,)), _within_mask(_tile(moving), (0,))
        return np.ascontiguousarray(_f32(s).reshape(s.shape[0], -1).T) @ _f32(m).reshape(
            m.shape[0], -1)

    nc_matmul.mask_reads_only = True  # a mask bounds the contraction; the whole result is
    # written (its rows are the stationary's free dim, not the masked partitions)

    def nc_transpose(data, **_):
        return _tile(data).T

    def activation(op, data, bias=None, scale=1.0, **_):
        d = _tile(data)
        return _activation(op, d, None if bias is None else _tile(bias),
                           _tile(scale) if isinstance(scale, Indexed) else scale).reshape(d.shape)

    def activation_reduce(op, data, *, reduce_op, reduce_res, bias=None, scale=1.0, **_):
        out = activation(op, data, bias, scale)
        reduce_res.write(_unmasked(out, 0.0).reshape(out.shape[0], -1).sum(
            axis=1, keepdims=True, dtype=F32))
        return out

    def reciprocal(data, **_):
        return 1 / _f32(_tile(data))

    def tensor_reduce(op, data, axis, negate=False, keepdims=False, **_):
        kind = tables.ALU_OPS[op].kind
        x = _tile(data).astype(np.int64 if kind == tables.BITVEC else F32)
        x = _within_mask(x, tuple(axis))
        out = tables.reduce(op, x, tuple(axis))
        out = out if keepdims else out.squeeze(tuple(axis))
        return -out if negate else out

    def tensor_tensor(data1, data2, op, **_):
        a, b = _tile(data1), _tile(data2)
        ints = all(np.dtype(t.dtype).kind in "iu" for t in (a, b))
        cast = np.int64 if ints and op in ("add", "subtract", "multiply", "maximum",
                                           "minimum") else F32
        return _alu(op, a.astype(cast), b.astype(cast))

    def _operand(x):
        return _f32(_tile(x)) if isinstance(x, Indexed) else F32(x)

    def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None,
                      reverse1=False, **_):
        out = _alu(op0, _f32(_tile(data)), _operand(operand0), reverse0)
        if op1 is not None:
            out = _alu(op1, out, _operand(operand1), reverse1)
        return out

    def tensor_scalar_reduce(*, data, op0, operand0, reduce_op, reduce_res, reverse0=False, **_):
        out = _f32(_alu(op0, _f32(_tile(data)), _operand(operand0), reverse0))
        reduce_res.write(tables.reduce(reduce_op, out.reshape(out.shape[0], -1), (1,)))
        return out

    def scalar_tensor_tensor(*, data, op0, operand0, op1, operand1, reverse0=False,
                             reverse1=False, **_):
        t = _f32(_alu(op0, _f32(_tile(data)), _operand(operand0), reverse0))
        return _alu(op1, t, _f32(_tile(operand1)), reverse1)

    def iota(expr, dtype, **_):
        return np.asarray(expr).astype(dtype)

    def memset(shape, value, dtype, **_):
        return np.full(shape, value, dtype=dtype)

    def affine_select(pred, on_true_tile, on_false_value, **_):
        return np.where(pred, _f32(_tile(on_true_tile)), F32(on_false_value))

    return _module("neuronxcc.nki.isa", **{k: _honour_mask(v) for k, v in locals().items()
                                           if not k.startswith("_")},
                   vector_engine="vector", scalar_engine="scalar", gpsimd_engine="gpsimd",
                   tensor_engine="tensor")


def _honour_mask(fn):
    """``fn`` taking legacy NKI's ``mask=``: its tiles are read under the mask (`_MASK`), a
    reduction's masked-off elements take no part, its result is `Masked`."""
    def call(*args, mask=None, **kwargs):
        if mask is None:
            return fn(*args, **kwargs)
        _MASK.append(mask)
        try:
            out = fn(*args, **kwargs)
        finally:
            _MASK.pop()
        if out is None or getattr(fn, "mask_reads_only", False):
            return out
        return Masked(out, mask)

    return call


def legacy_modules() -> dict[str, types.ModuleType]:
    def ndarray(shape, dtype, buffer=None, name="", **_):
        return fresh(shape, dtype).view(LegacyTensor)

    def store(dst, value, **_):
        dst.write(_tile(value))

    language = _module(
        "neuronxcc.nki.language", **_OP_NAMES, **DTYPES, float8_e4m3=None, sbuf="sbuf",
        psum="psum", hbm="hbm", shared_hbm="shared_hbm", ndarray=ndarray,
        load=_honour_mask(lambda src, **_: _tile(src).copy()), store=_honour_mask(store),
        arange=np.arange,
        sequential_range=lambda *a, **_: range(*a), affine_range=lambda *a, **_: range(*a),
        static_range=range, program_id=lambda axis: 0,
        where=lambda c, x, y, **_: np.where(_tile(c) != 0, _tile(x), _tile(y)),
        shared_constant=lambda c, dtype=None, **_: np.asarray(c).astype(dtype).view(
            LegacyTensor))
    isa = _legacy_isa()
    identity = lambda f=None, **_: f  # noqa: E731
    compiler = _module("neuronxcc.nki.compiler", enable_stack_allocator=identity,
                       skip_middle_end_transformations=identity,
                       sbuf=types.SimpleNamespace(mod_alloc=lambda **_: "sbuf"),
                       psum=types.SimpleNamespace(mod_alloc=lambda **_: "psum"))
    typing = _module("neuronxcc.nki.typing", mutable_tensor=object)
    nki = _module("neuronxcc.nki", language=language, isa=isa, compiler=compiler,
                  typing=typing, baremetal=lambda **_: identity, benchmark=identity,
                  simulate_kernel=identity, trace=identity)
    return {"neuronxcc": _module("neuronxcc", nki=nki), "neuronxcc.nki": nki,
            "neuronxcc.nki.language": language, "neuronxcc.nki.isa": isa,
            "neuronxcc.nki.compiler": compiler, "neuronxcc.nki.typing": typing}


@contextlib.contextmanager
def mock_nki(api: str):
    modules = current_modules() if api == "current" else legacy_modules()
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old


def run_kernel(source: str, api: str, name: str, inputs: list[np.ndarray],
               output_shapes: list[tuple[tuple[int, ...], Any]]) -> list[np.ndarray]:
    """Execute the printed ``source`` and call kernel ``name`` on copies of ``inputs``."""
    with mock_nki(api):
        namespace: dict[str, Any] = {}
        exec(compile(source, f"<{api} nki>", "exec"), namespace)  # noqa: S102
        kernel = namespace[name]
        if api == "current":
            result = kernel(*[np.array(a).view(Tensor) for a in inputs])
        else:
            outs = [fresh(shape, dt).view(LegacyTensor) for shape, dt in output_shapes]
            result = kernel(*[np.array(a).view(LegacyTensor) for a in inputs], *outs)
    result = result if isinstance(result, tuple) else (result,)
    return [np.asarray(r) for r in result]


def run_kernel_logical(source: str, api: str, kernel, inputs: list[np.ndarray]
                       ) -> list[np.ndarray]:
    """Call the printed kernel as its caller does, on logical arrays: an HBM parameter with a
    layout is passed as the flat array the layout fills (`GlobalPlacement.place`; padding as
    fresh memory: NaN)
    and each output is read back through its layout (`logical_view`)."""
    from tirx_mlir.dialects.tirx import dtypes
    from tirx_mlir.dialects.tirx.global_layout import global_placement

    types_ = [arg.type for arg in kernel.body.block.args]
    placements = [global_placement(t) for t in types_]
    placed = [p.is_row_major() for p in placements]
    n = kernel.n_inputs
    args = [a if plain else p.place(a, fresh((p.span,), np.asarray(a).dtype).view(np.ndarray))
            for a, p, plain in zip(inputs, placements, placed)]
    outputs = [(t.get_shape() if plain else (p.span,), dtypes.numpy_dtype(t.element_type))
               for t, p, plain in zip(types_[n:], placements[n:], placed[n:])]
    got = run_kernel(source, api, kernel.kernel_name, args, outputs)
    return [g if plain else p.logical_view(g)
            for g, p, plain in zip(got, placements[n:], placed[n:])]
