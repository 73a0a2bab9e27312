"""Lane implementations of the ``cuda`` math intrinsics (dialects/cuda/math.py).

* ``cuda.fast``: the approximate f32 functions (``ex2.approx``, ``__expf``, ``rcp.approx``...)
  give the double-precision value rounded to f32, which lies within the error bounds the CUDA
  Math API documents for them (a deterministic stand-in for the hardware approximation);
* ``cuda.fdividef``: ``a / b`` rounded to f32, except the documented special case of
  ``__fdividef``: for ``2^126 < |b| < 2^128`` the result is 0, or NaN when ``a`` is infinite;
* ``cuda.pack`` / ``cuda.unpack``: half2 / bfloat162 as ``vector<2 x T>`` lanes (element 0 is
  the low half, ``.x``); f32 halves round to nearest even;
* ``cuda.cvt``: the conversion with its rounding (rn, rz, rd, ru; default rn, rz for float ->
  integer as C's casts): rounding.py; integer -> integer converts as C does (sign or zero
  extension by the source's signedness, wrapping when narrower).
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.math import CvtOp, FastMathOp, FdividefOp, PackOp, \
    UnpackOp
from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.backends.cuda.interpreter.lane_ops import rounding
from tirx_mlir.backends.cuda.interpreter.lane_ops.adapter import lane_fn_impl
from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import (F32, SIGNED, as_unsigned,
                                                                lane_dtype, to_f64)
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.interpreter.runtime import PerOpCache

FAST = {
    "exp2": np.exp2, "exp": np.exp, "log2": np.log2, "log": np.log,
    "rcp": lambda x: 1.0 / x, "rsqrt": lambda x: 1.0 / np.sqrt(x), "sqrt": np.sqrt,
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh,
}
"""cuda.fast function -> its exact function on float64."""

CVT_ROUNDING = {"rn": "rn", "rz": "rz", "rd": "rm", "ru": "rp"}
"""cuda.cvt rounding -> the PTX float rounding of rounding.py."""
CVT_INT_ROUNDING = {"rn": "rni", "rz": "rzi", "rd": "rmi", "ru": "rpi"}

_facts = PerOpCache()


def fast(op, args, mask):
    return (FAST[op.func.data](to_f64(args[0])).astype(F32),)


def fdividef(op, args, mask):
    a, b = to_f64(args[0]), to_f64(args[1])
    q = a / b
    huge = (np.abs(b) > 2.0 ** 126) & (np.abs(b) < 2.0 ** 128)
    q = np.where(huge, np.where(np.isinf(a), np.nan, 0.0), q)
    return (q.astype(F32),)


def pack(op, args, mask):
    dt = lane_dtype(op.result.type)
    halves = [h if h.dtype == dt else rounding.round_float(to_f64(h), dt, "rn") for h in args]
    return (np.stack(halves, axis=-1),)


def unpack(op, args, mask):
    packed = args[0]
    return tuple(packed[..., i].astype(lane_dtype(r.type)) for i, r in enumerate(op.results))


def _is_unsigned(t) -> bool:
    return checks.type_name(t).startswith("ui")


def _cvt_plan(op: CvtOp):
    src_t, dst_t = op.x.type, op.result.type
    rounding_name = op.name_prop("round")
    return (src_t, dst_t, dtypes.is_float(src_t), dtypes.is_float(dst_t), rounding_name,
            lane_dtype(dst_t))


def cvt(op, args, mask):
    src_t, dst_t, src_float, dst_float, rnd, dst_dt = _facts.get(op, "cvt", lambda: _cvt_plan(op))
    x = args[0]
    if src_float and dst_float:
        return (rounding.round_float(to_f64(x), dst_dt, CVT_ROUNDING[rnd or "rn"]),)
    if src_float:
        width = dtypes.bit_width(dst_t)
        return (rounding.float_to_int(to_f64(x), width, not _is_unsigned(dst_t),
                                      CVT_INT_ROUNDING[rnd or "rz"]),)
    width = dtypes.bit_width(src_t)
    if dst_float:
        return (rounding.int_to_float(x, not _is_unsigned(src_t), width, dst_dt,
                                      CVT_ROUNDING[rnd or "rn"]),)
    value = as_unsigned(x, width) if _is_unsigned(src_t) else x
    return (value.astype(SIGNED[dtypes.bit_width(dst_t)]),)


for _op, _fn in ((FastMathOp, fast), (FdividefOp, fdividef), (PackOp, pack), (UnpackOp, unpack),
                 (CvtOp, cvt)):
    lane_impl(_op)(lane_fn_impl(_fn))
