"""Atomics on lane values: ``cuda.atomic`` / ``cuda.atomic_cas`` and the ``ptx`` rows ``atom``,
``atom_cas``, ``red`` and ``red_vec``.

Every atomic goes through `memory.Memory.atomic`: checked (bounds, alignment, observers see an
``atomic`` shared access) and performed in lane order, so lanes that hit one address see each
other's updates in that order and a float sum over many lanes rounds the same on every run
(lane 0's value is added first). Each returns the old value (``red`` discards it). Scopes
(``cta``/``gpu``/``sys``) and orderings (``.relaxed``/``.acquire``/``.release``) change nothing
here: every atomic is atomic for the whole wave and ops run in program order.

Semantics (CUDA C++ Programming Guide, "Atomic Functions"; PTX ISA, ``atom``): ``add`` wraps for
integers and rounds to the element type for floats (``.f16x2``/``.bf16x2`` add each half);
``max``/``min`` compare unsigned for ``ui32``/``.u32``/``.u64``; ``exch`` stores the value;
``inc``: ``old >= v ? 0 : old + 1``, ``dec``: ``old == 0 || old > v ? v : old - 1`` (unsigned);
``cas``: ``old == compare ? value : old``. ``red.global.add.v2/.v4.f32`` adds a vector, one
8/16-byte access (aligned to its size) whose elements each add atomically.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tirx_mlir.backends.cuda.dialects.cuda import atomics
from tirx_mlir.backends.cuda.dialects.cuda.checks import type_name
from tirx_mlir.backends.cuda.interpreter import memory
from tirx_mlir.backends.cuda.interpreter.cuda_ops import element_addresses
from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.backends.cuda.interpreter.lane_math import combine, unsigned_view
from tirx_mlir.backends.cuda.interpreter.ptx_memory_ops import space_of
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.backends.cuda.interpreter.values import lane_dtype

PACKED = {"f16x2": np.dtype(np.float16), "bf16x2": np.dtype(ml_dtypes.bfloat16)}
"""The halves of a packed ``.f16x2``/``.bf16x2`` register (low half: the first element)."""


def rmw(kind: str, unsigned: bool = False, packed: np.dtype | None = None):
    """``new(old, v)`` of the atomic ``kind`` on arrays of the memory's dtype."""
    if packed is not None:  # .f16x2 / .bf16x2: add each half
        def add_halves(old: np.ndarray, v: np.ndarray) -> np.ndarray:
            return (old.view(packed) + v.view(packed)).astype(packed).view(old.dtype)
        return add_halves
    if kind == "exch":
        return lambda old, v: v.copy()
    if kind in ("inc", "dec"):
        def wrap(old: np.ndarray, v: np.ndarray) -> np.ndarray:
            u_old, u_v = unsigned_view(old), unsigned_view(v)
            with np.errstate(all="ignore"):
                new = np.where(u_old >= u_v, 0, u_old + 1) if kind == "inc" else \
                    np.where((u_old == 0) | (u_old > u_v), u_v, u_old - 1)
            return new.astype(u_old.dtype).view(old.dtype)
        return wrap
    return combine(kind, unsigned)


def cas(old: np.ndarray, compare: np.ndarray, v: np.ndarray) -> np.ndarray:
    return np.where(old == compare, v, old)


def perform(ctx, space: str, addr: np.ndarray, dtype: np.dtype, new, *values: np.ndarray):
    """Run ``new(old, *values)`` atomically per active lane, in lane order (``values`` of
    ``dtype``); the old values."""
    lanes = ctx.lanes
    mine = [v[lanes] for v in values]
    return ctx.mem.atomic(ctx, space, addr.astype(np.int64), dtype,
                          lambda old, sel: new(old, *(m[sel] for m in mine)), lanes)


# ---- cuda ----

@lane_impl(atomics.AtomicOp)
def run_atomic(ctx, op, args):
    buf, index, value = args
    space, addr = element_addresses(ctx, buf, index, 1)
    unsigned = type_name(op.memory.type.element_type).startswith("ui")
    return (perform(ctx, space, addr, buf.dtype, rmw(op.head, unsigned),
                    value.astype(buf.dtype, copy=False)),)


@lane_impl(atomics.AtomicCasOp)
def run_atomic_cas(ctx, op, args):
    buf, index, compare, value = args
    space, addr = element_addresses(ctx, buf, index, 1)
    return (perform(ctx, space, addr, buf.dtype, cas, compare.astype(buf.dtype, copy=False),
                    value.astype(buf.dtype, copy=False)),)


# ---- ptx ----

_PTX_DTYPES = {"b32": np.int32, "u32": np.int32, "s32": np.int32, "b64": np.int64,
               "u64": np.int64, "s64": np.int64, "f32": np.float32, "f64": np.float64,
               "f16x2": np.int32, "bf16x2": np.int32}


def _ptx_rmw(mods):
    ptx_type = str(mods["type"])
    return np.dtype(_PTX_DTYPES[ptx_type]), rmw(str(mods["op"]), ptx_type[0] == "u",
                                                PACKED.get(ptx_type))


def _bits_as(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A register's value as the memory's dtype: the same bits (a b32 register may hold f32)."""
    return values if values.dtype == dtype else values.view(dtype)


@ptx_row("atom")
def run_ptx_atom(ctx, op, args):
    view = row_view(op, args)
    dtype, new = _ptx_rmw(view.mods)
    old = perform(ctx, space_of(ctx, view.mods), view.one("addr"), dtype, new,
                  _bits_as(view.one("value"), dtype))
    return (old.view(lane_dtype(op.results[0].type)),)


@ptx_row("red")
def run_ptx_red(ctx, op, args):
    view = row_view(op, args)
    dtype, new = _ptx_rmw(view.mods)
    perform(ctx, space_of(ctx, view.mods), view.one("addr"), dtype, new,
            _bits_as(view.one("value"), dtype))
    return ()


@ptx_row("atom_cas")
def run_ptx_atom_cas(ctx, op, args):
    view = row_view(op, args)
    dtype = np.dtype(_PTX_DTYPES[str(view.mods["type"])])
    old = perform(ctx, space_of(ctx, view.mods), view.one("addr"), dtype, cas,
                  _bits_as(view.one("compare"), dtype), _bits_as(view.one("value"), dtype))
    return (old.view(lane_dtype(op.results[0].type)),)


@ptx_row("red_vec")
def run_ptx_red_vec(ctx, op, args):
    view = row_view(op, args)
    parts = view.reads["value"]
    n = len(parts)
    whole = np.dtype(f"V{4 * n}")
    vector = np.stack([p.astype(np.float32, copy=False) for p in parts], axis=1)

    def add(old: np.ndarray, v: np.ndarray) -> np.ndarray:
        total = old.view(np.float32).reshape(-1, n) + v.view(np.float32).reshape(-1, n)
        return total.astype(np.float32).view(whole).reshape(-1)

    perform(ctx, memory.GLOBAL, view.one("addr"), whole, add,
            np.ascontiguousarray(vector).view(whole).reshape(-1))
    return ()
