"""Run-time values and memory rules of the tirx interpreters (public: backend interpreters use it).

Representation of values at run time:

* a buffer, or a view of one, is a ``numpy.ndarray`` whose dtype is the buffer's element type
  (`tirx_mlir.dialects.tirx.dtypes.numpy_dtype`: bf16 and fp8 through ``ml_dtypes``); a view made
  by ``tirx.slice`` is a numpy view (strides included), so writing through it writes the buffer;
* an ``index`` or integer scalar is a Python ``int`` (signed form, as xDSL's interpreter keeps
  them), an ``i1`` a Python ``bool``, a float scalar a Python ``float`` already rounded to its type.

Memory rules (`alloc`, `convert`, `store`):

* fresh memory reads as NaN for floats and as `poison_value` for integers (the minimum of a signed
  type, the maximum of an unsigned one, ``True`` for i1), so a read before a write shows in the
  output; `poisoned` finds such values again;
* arithmetic runs in `compute_dtype` of the operands (f64 if any operand is f64, else f32 for any
  float, else int64);
* every store rounds to the destination's dtype: float to float rounds to nearest even (a value
  past the largest finite one becomes inf, or NaN for f8E4M3FN, which has no inf, as ml_dtypes
  does); float to integer truncates toward zero and saturates, NaN becomes 0 (``float_to_int=
  "rne"`` rounds to nearest even instead, as NKI does); integer to integer wraps (two's
  complement); anything to i1 is ``value != 0``.

Size limit: every array the interpreter allocates (outputs, on-chip buffers, random inputs,
``.npy`` inputs read by tirx-run) is checked first by `check_allocation`, so a shape numpy cannot
hold (more than 64 dims) or one larger than `max_buffer_bytes` (default 4 GiB; the environment
variable ``TIRX_MLIR_MAX_BUFFER_BYTES`` changes it) is an error saying what and how big, instead
of a ``MemoryError`` or the host running out of memory.

Errors found while running are `InterpretError`s. Helpers may raise one without an op; the
interpreter attaches the op it was running, so the message always names an op and its location.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from tirx_mlir.diagnostics import TirxError, format_location

F64 = np.dtype(np.float64)
F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)


class InterpretError(TirxError, InterpretationError):
    """A run-time error in the interpreted program, located at the op that raised it.

    ``str(err)`` reads ``file:line:col: error: <op name>: <message>`` (then ``hint: ...``).
    """

    def render(self) -> str:
        text = self.message if self.op is None else f"{self.op.name}: {self.message}"
        if self.code:
            text = f"[{self.code}] {text}"
        if self.hint:
            text += f"\nhint: {self.hint}"
        return text

    @property
    def location(self) -> str:
        return format_location(self.op)

    def add_context(self, text: str) -> None:
        """Say where it happened, e.g. ``in CTA (1, 0, 0) of @k`` (appended to the message)."""
        self.message += f" ({text})"

    def __str__(self) -> str:
        return f"{self.location}: error: {self.render()}"


class PerOpCache:
    """Facts computed once per op (widths, dtypes, static slice bounds...), for the hot path.

    Keyed by the op's id, because xDSL's Python-level ``__hash__`` costs more than the lookup;
    each entry keeps its op, so a recycled id is never mistaken for it, and what the facts are
    computed from: the op's operand list (xDSL assigns a new tuple when a rewrite replaces an
    operand), its properties and its attributes (compared by value: a pass may set one in
    place). A fact whose op changed is computed again.
    """

    def __init__(self):
        self._entries: dict[tuple[int, Any], tuple[Any, ...]] = {}

    def get(self, op: Operation, key: Any, compute) -> Any:
        entry = self._entries.get((id(op), key))
        if entry is not None and entry[0] is op and entry[1] is op._operands and \
                entry[2] == op.properties and entry[3] == op.attributes:  # noqa: SLF001
            return entry[4]
        value = compute()
        self._entries[(id(op), key)] = (op, op._operands, dict(op.properties),  # noqa: SLF001
                                        dict(op.attributes), value)
        return value


# --- dtypes -------------------------------------------------------------------------------------


_ML_FLOATS = frozenset(np.dtype(t) for t in (ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                                              ml_dtypes.float8_e5m2))


def is_float_dtype(dt: np.dtype) -> bool:
    """True for numpy and ml_dtypes floating types (bf16, fp8 included)."""
    return dt.kind == "f" or dt in _ML_FLOATS


def compute_dtype(*dts: np.dtype | None) -> np.dtype:
    """The dtype arithmetic over operands of these dtypes runs in (None: an index scalar)."""
    floats = [d for d in dts if d is not None and is_float_dtype(d)]
    if not floats:
        return I64
    return F64 if any(d == F64 for d in floats) else F32


def poison_value(dt: np.dtype) -> Any:
    """What fresh integer memory holds: min of signed, max of unsigned types, True for bool."""
    if dt == BOOL:
        return True
    info = np.iinfo(dt)
    return info.min if dt.kind == "i" else info.max


def fresh_fill(dt: np.dtype) -> Any:
    """The value fresh memory of dtype ``dt`` holds (NaN, or `poison_value`)."""
    return np.nan if is_float_dtype(dt) else poison_value(dt)


MAX_BUFFER_BYTES_ENV = "TIRX_MLIR_MAX_BUFFER_BYTES"
DEFAULT_MAX_BUFFER_BYTES = 4 << 30
MAX_NUMPY_DIMS = 64
"""numpy's limit on the rank of an array (NPY_MAXDIMS in numpy 2)."""


def max_buffer_bytes() -> int:
    """The largest array the interpreter allocates: ``TIRX_MLIR_MAX_BUFFER_BYTES`` or 4 GiB."""
    text = os.environ.get(MAX_BUFFER_BYTES_ENV, "")
    if not text:
        return DEFAULT_MAX_BUFFER_BYTES
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = -1
    if value <= 0:
        raise TirxError(f"{MAX_BUFFER_BYTES_ENV}={text!r} is not a positive number of bytes")
    return value


def format_bytes(n: int) -> str:
    """``n`` bytes for a message: ``3.64 TiB (4,000,000,000,000 bytes)``."""
    for unit, size in (("EiB", 1 << 60), ("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", 1 << 30),
                       ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.3g} {unit} ({n:,} bytes)"
    return f"{n:,} bytes"


def check_allocation(shape: Sequence[int], dt: np.dtype, what: str = "a buffer") -> None:
    """Raise `InterpretError` (without an op) when an array of ``shape`` and ``dt`` cannot or
    may not be allocated: more dims than numpy holds, or more bytes than `max_buffer_bytes`."""
    if len(shape) > MAX_NUMPY_DIMS:
        raise InterpretError(
            f"cannot allocate {what}: it has {len(shape):,} dims and numpy arrays hold at most "
            f"{MAX_NUMPY_DIMS}", hint="merge unit dims (tirx.reshape) or use fewer dims")
    elements = math.prod(int(n) for n in shape)
    size = elements * dt.itemsize
    limit = max_buffer_bytes()
    if size > limit:
        dims = "x".join(str(int(n)) for n in shape)
        raise InterpretError(
            f"cannot allocate {what}: {dims} {dtype_name(dt)} is {elements:,} elements, "
            f"{format_bytes(size)}, over the interpreter's limit of {format_bytes(limit)}",
            hint=f"run a smaller problem, or raise the limit with {MAX_BUFFER_BYTES_ENV}=<bytes> "
                 f"if the host has the memory")


def alloc(shape: Sequence[int], dt: np.dtype, what: str = "a buffer") -> np.ndarray:
    """Fresh memory: NaN-filled for floats, `poison_value` for integers (checked first by
    `check_allocation`; ``what`` names it in the error)."""
    check_allocation(shape, dt, what)
    try:
        return np.full(tuple(shape), fresh_fill(dt), dtype=dt)
    except (MemoryError, ValueError, OverflowError):  # under the limit, but not on this host
        size = math.prod(int(n) for n in shape) * dt.itemsize
        raise InterpretError(f"the host could not allocate {what} ({format_bytes(size)})",
                             hint=f"free memory, or lower {MAX_BUFFER_BYTES_ENV} so such a "
                                  f"buffer is refused up front") from None


class BufferPool:
    """Fresh memory for on-chip buffers, reusing the storage of dead ones.

    A large fresh numpy array costs page faults on first touch; re-filling a dead buffer's
    warm storage with NaN/poison gives the same fresh-memory semantics faster. `release` returns
    the buffers allocated since the last release (e.g. when a CTA ends) to the pool, except those
    something still references (a view, a value kept by another interpreter), which are left
    alone, so reuse can never alias live data.

    An allocation that runs again (a ``tirx.alloc`` in a loop body) names where its last buffer
    is held (``previous``: the frame and the key of the op's result): when nothing but that
    frame refers to the buffer any more, it is dead and is re-filled and returned, so a loop
    reuses one buffer instead of holding a new one per iteration until the CTA ends.
    """

    _DEAD_REFS = 4
    """References to a dead previous buffer while `alloc` looks at it: the frame's, the live
    list's, `alloc`'s local name and ``sys.getrefcount``'s argument."""

    def __init__(self):
        self._free: dict[tuple[tuple[int, ...], np.dtype], list[np.ndarray]] = {}
        self._live: list[np.ndarray] = []

    def alloc(self, shape: Sequence[int], dt: np.dtype,
              previous: tuple[dict, Any] | None = None, fill: Any = None) -> np.ndarray:
        """Fresh memory of ``shape`` and ``dt`` (``fill``: `fresh_fill` of ``dt``, if the
        caller has it)."""
        shape = shape if shape.__class__ is tuple else tuple(shape)
        if fill is None:
            fill = fresh_fill(dt)
        if previous is not None:
            arr = previous[0].get(previous[1])
            if arr.__class__ is np.ndarray and arr.base is None and arr.shape == shape and \
                    arr.dtype == dt and sys.getrefcount(arr) <= self._DEAD_REFS:
                arr.fill(fill)
                return arr
            arr = None
        free = self._free.get((shape, dt))
        if free:
            arr = free.pop()
            arr.fill(fill)
        else:
            arr = alloc(shape, dt)
        self._live.append(arr)
        return arr

    def release(self) -> None:
        live, self._live = self._live, []
        while live:
            arr = live.pop()
            if sys.getrefcount(arr) <= 2:  # only `arr` and getrefcount's argument
                self._free.setdefault((arr.shape, arr.dtype), []).append(arr)


def poisoned(arr: np.ndarray) -> np.ndarray:
    """Mask of elements that still hold the fresh-memory value (NaN for floats)."""
    if is_float_dtype(arr.dtype):
        return np.isnan(arr.astype(F32, copy=False) if arr.dtype.itemsize < 4 else arr)
    return arr == poison_value(arr.dtype)


# --- conversion and stores ----------------------------------------------------------------------


def _float_to_int(values: np.ndarray, dt: np.dtype, rounding: str) -> np.ndarray:
    info = np.iinfo(dt)
    x = np.asarray(values, dtype=F64)
    x = np.trunc(x) if rounding == "trunc" else np.rint(x)
    x = np.nan_to_num(x, nan=0.0, posinf=float(info.max), neginf=float(info.min))
    # clip in float64, then saturate exactly (int64 max is not representable in float64)
    x = np.clip(x, float(info.min), float(info.max))
    with np.errstate(invalid="ignore"):
        out = x.astype(dt)
    if dt.itemsize == 8:
        out = np.where(x >= 2.0 ** 63 if dt.kind == "i" else x >= 2.0 ** 64, info.max, out)
    return out.astype(dt, copy=False)


def convert(value: Any, dt: np.dtype, *, float_to_int: str = "trunc") -> np.ndarray:
    """``value`` (array or scalar) as an array of dtype ``dt`` under the store rules."""
    arr = np.asarray(value)
    if arr.dtype == dt:
        return arr
    if dt == BOOL:
        return arr != 0
    if dt.kind in "iu" and is_float_dtype(arr.dtype):
        return _float_to_int(arr, dt, float_to_int)
    if dt.kind in "iu" and arr.dtype.kind in "iu" and arr.dtype != I64:
        arr = arr.astype(I64)  # wrap through int64 (numpy refuses some direct narrowing casts)
    return arr.astype(dt)


def store(dst: np.ndarray, value: Any, *, float_to_int: str = "trunc") -> None:
    """Write ``value`` (broadcast to ``dst``'s shape) into ``dst``, rounding to its dtype."""
    arr = np.asarray(value)
    if arr.dtype != dst.dtype and not is_float_dtype(dst.dtype):
        arr = convert(arr, dst.dtype, float_to_int=float_to_int)
    np.copyto(dst, arr, casting="unsafe")  # to a float dtype: round to nearest even


def round_scalar(value: Any, dt: np.dtype) -> Any:
    """A Python scalar rounded to ``dt`` under the store rules (float, int or bool)."""
    out = convert(value, dt)
    if dt == BOOL:
        return bool(out)
    return float(out) if is_float_dtype(dt) else int(out)


def to_python(value: Any) -> Any:
    """A numpy scalar as the Python scalar the interpreter passes around."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    return float(value)


# --- views and element access -------------------------------------------------------------------


def view(base: np.ndarray, offsets: Sequence[int], sizes: Sequence[int],
         strides: Sequence[int] | None = None) -> np.ndarray:
    """The strided box ``base[o : o + (n-1)*s + 1 : s]`` per dim, as a view; raises
    `InterpretError` (without an op) when it leaves ``base``."""
    return base[view_index(base.shape, offsets, sizes, strides)]


def view_index(shape: Sequence[int], offsets: Sequence[int], sizes: Sequence[int],
               strides: Sequence[int] | None = None) -> tuple[slice, ...]:
    """The index of `view` into an array of ``shape`` (checked against it)."""
    strides = strides or (1,) * len(sizes)
    index = []
    for d, (o, n, s, extent) in enumerate(zip(offsets, sizes, strides, shape)):
        last = o + (n - 1) * s
        if o < 0 or last >= extent:
            raise InterpretError(
                f"dim {d}: elements [{o}, {last}] are out of bounds for extent {extent}",
                hint="check the (dynamic) offsets of the slice against the buffer's shape")
        index.append(slice(o, last + 1, s))
    return tuple(index)


def check_index(arr: np.ndarray, indices: Sequence[int]) -> tuple[int, ...]:
    """``indices`` as a tuple after checking each lies in ``[0, extent)`` (numpy would wrap a
    negative index)."""
    for d, (i, extent) in enumerate(zip(indices, arr.shape)):
        if not 0 <= i < extent:
            raise InterpretError(f"index {i} in dim {d} is out of bounds for extent {extent}")
    return tuple(indices)


def dtype_name(dt: np.dtype) -> str:
    """MLIR spelling of a numpy dtype, for messages."""
    names = {np.dtype(ml_dtypes.bfloat16): "bf16", np.dtype(ml_dtypes.float8_e4m3fn): "f8E4M3FN",
             np.dtype(ml_dtypes.float8_e5m2): "f8E5M2", F32: "f32", F64: "f64",
             np.dtype(np.float16): "f16", BOOL: "i1"}
    if dt in names:
        return names[dt]
    if dt.kind in "iu":
        return ("ui" if dt.kind == "u" else "i") + str(dt.itemsize * 8)
    return str(dt)
