"""Lane implementations of the ``ptx`` move and conversion rows (dialects/ptx/table.py): mov,
mov_pack, mov_unpack, cvt, cvt_pack, cvt_fp8x2, cvt_fp8x2_f16x2, cvt_tf32, prmt. The rules are
the PTX ISA's, stated in rounding.py and packing.py. A register operand may be an SSA value of
any type of its width (a b32 holding an f32, a b16 an f16): values are read and written by
their bits.

``cvt``: float -> float rounds by ``.rn/.rz/.rm/.rp`` (exact conversions take none), float ->
integer by ``.rni/.rzi/.rmi/.rpi`` and saturates (NaN -> 0), integer -> float by the float
roundings; ``.ftz`` flushes f32 subnormal inputs and results to signed zero; ``.sat`` on a float
destination clamps to [0.0, 1.0] (NaN -> +0.0).
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.lane_ops import packing, rounding
from tirx_mlir.backends.cuda.interpreter.lane_ops.adapter import lane_fn_impl
from tirx_mlir.backends.cuda.interpreter.lane_ops.lanes import F32, lane_dtype, to_f64
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.interpreter import rounded_arith

PTX_FLOATS = {"f16": np.dtype(np.float16), "bf16": packing.BF16, "f32": F32,
              "f64": np.dtype(np.float64)}
PTX_INT_WIDTH = {"s32": 32, "u32": 32, "s64": 64, "u64": 64}


def as_result(op, i: int, value: np.ndarray) -> np.ndarray:
    """``value`` as result ``i``'s lane dtype: the same bits when the dtypes differ."""
    dt = lane_dtype(op.results[i].type)
    if value.dtype == dt:
        return value
    return np.ascontiguousarray(value).view(dt)


def mov(op, args, mask):
    return (as_result(op, 0, row_view(op, args).one("src").copy()),)


def mov_pack(op, args, mask):
    view = row_view(op, args)
    lo, hi = view.reads["src"]
    width = 32 if view.mods["type"] == "b32" else 64
    return (as_result(op, 0, packing.pack_halves(lo, hi, width)),)


def mov_unpack(op, args, mask):
    halves = packing.unpack_halves(row_view(op, args).one("src"))
    return tuple(as_result(op, i, h) for i, h in enumerate(halves))


def _read_float(x: np.ndarray, ptx_type: str) -> np.ndarray:
    """A float source register's value (by its bits, whatever its SSA type) as float64."""
    dt = PTX_FLOATS[ptx_type]
    return to_f64(x if x.dtype == dt else np.ascontiguousarray(x).view(dt))


def cvt(op, args, mask):
    view = row_view(op, args)
    m = view.mods
    dtype, atype, rnd = m["dtype"], m["atype"], m.get("rnd")
    ftz, sat = bool(m.get("ftz")), bool(m.get("sat"))
    x = view.one("src")
    if atype in PTX_FLOATS:
        value = _read_float(x, atype)
        if ftz and atype == "f32":
            value = rounding.flush_subnormal(value)
        if dtype in PTX_INT_WIDTH:
            out = rounding.float_to_int(value, PTX_INT_WIDTH[dtype], dtype[0] == "s", rnd)
            return (as_result(op, 0, out),)
    else:
        signed, width = atype[0] == "s", PTX_INT_WIDTH[atype]
        value = rounding.int_to_float(x, signed, width, np.dtype(np.float64))
    if sat:
        value = rounding.saturate_unit(value)
    out = rounding.round_float(value, PTX_FLOATS[dtype], rnd or "rn")
    if ftz and dtype == "f32":
        out = rounding.flush_subnormal(out)
    return (as_result(op, 0, out),)


def _pack_two(convert):
    """``cvt_pack`` / ``cvt_fp8x2``: two f32 sources (the first to the upper half) packed by
    ``convert`` (packing.cvt_pack_half / cvt_pack_fp8) in the row's format."""
    def run(op, args, mask):
        view = row_view(op, args)
        d = convert(_read_float(view.one("hi"), "f32"), _read_float(view.one("lo"), "f32"),
                    view.mods["dtype"], bool(view.mods.get("relu")))
        return (as_result(op, 0, d),)
    return run


cvt_pack = _pack_two(packing.cvt_pack_half)
cvt_fp8x2 = _pack_two(packing.cvt_pack_fp8)


def cvt_fp8x2_f16x2(op, args, mask):
    view = row_view(op, args)
    d = packing.cvt_fp8x2_to_f16x2(view.one("src"), view.mods["atype"],
                                   bool(view.mods.get("relu")))
    return (as_result(op, 0, d),)


def cvt_tf32(op, args, mask):
    view = row_view(op, args)
    return (as_result(op, 0, packing.cvt_tf32(_read_float(view.one("src"), "f32"),
                                              view.mods["rnd"])),)


def prmt(op, args, mask):
    view = row_view(op, args)
    d = packing.prmt(view.one("a"), view.one("b"), view.one("selector"), view.mods.get("mode"))
    return (as_result(op, 0, d),)


def rounded_f32(op, args, mask):
    """``<op>.<rnd>.f32`` (add, sub, mul, div, fma, rcp, sqrt): the core's rounded f32
    arithmetic (`tirx_mlir.interpreter.rounded_arith`, the tile level's rounding_mode too)."""
    view = row_view(op, args)
    kind = op.ENTRY.family
    values = [_read_float(x[0], "f32") for x in view.reads.values()]
    return (as_result(op, 0, rounded_arith.rounded(kind, values, view.mods["rnd"])),)


for _row, _fn in (("mov", mov), ("mov_pack", mov_pack), ("mov_unpack", mov_unpack),
                  ("cvt", cvt), ("cvt_pack", cvt_pack), ("cvt_fp8x2", cvt_fp8x2),
                  ("cvt_fp8x2_f16x2", cvt_fp8x2_f16x2), ("cvt_tf32", cvt_tf32), ("prmt", prmt)):
    ptx_row(_row)(lane_fn_impl(_fn))
ptx_row(*(f"{k}_rnd" for k in rounded_arith.KINDS))(lane_fn_impl(rounded_f32))


