"""Tile kernels of one reduction each, for the tests of the CUDA reduction variants: the source
copied from global memory into a tile (``local`` or ``shared``), reduced into a destination tile
(with its old value loaded first for ``accum``), the result copied out; and their numpy
meaning."""

from __future__ import annotations

import numpy as np

NP_REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum}


def _t(shape, dtype: str, scope: str, layout: str | None = None) -> str:
    dims = "x".join(map(str, shape))
    return f"!tirx.buffer<{dims}x{dtype}, {scope}{', ' + layout if layout else ''}>"


def reduce_kernel(op: str, shape, axes, dst_shape, *, mem: str = "shared", dtype: str = "f32",
                  accum: bool = False, reduce: str | None = None, scope: str = "cta",
                  threads: int = 128, src_layout: str | None = None,
                  dst_layout: str | None = None, arch: str = "sm_80") -> str:
    """``op`` is sum/max/min, or reduce_negate with ``reduce`` naming its reduction."""
    g_src, g_dst = _t(shape, dtype, "global"), _t(dst_shape, dtype, "global")
    src = _t(shape, dtype, mem, src_layout)
    dst = _t(dst_shape, dtype, mem, dst_layout)
    copy_scope = "cta" if mem == "shared" else scope
    params = f"%X: {g_src}" + (f", %D: {g_dst}" if accum else "")
    keywords = f" axes [{', '.join(map(str, axes))}]" + (" accum" if accum else "") + \
        (f" reduce {reduce}" if reduce else "")
    lines = [f"tirx.kernel @k({params}) -> (%Y: {g_dst}) grid [1] threads [{threads}] "
             f"target \"cuda -arch={arch}\" {{",
             f"  %s = tirx.alloc : {src}", f"  %d = tirx.alloc : {dst}",
             f"  tirx.copy {copy_scope} %s, %X : {src}, {g_src}"]
    if accum:
        lines.append(f"  tirx.copy {copy_scope} %d, %D : {dst}, {g_dst}")
    lines += [f"  tirx.{op} {scope} %d, %s{keywords} : {dst}, {src}",
              f"  tirx.copy {copy_scope} %Y, %d : {g_dst}, {dst}", "  tirx.return", "}"]
    return "\n".join(lines) + "\n"


def reference(op: str, axes, dst_shape, *, accum: bool = False, reduce: str | None = None):
    """The numpy meaning of `reduce_kernel` (NaN propagates through max/min, as the tile
    interpreter's)."""
    name = reduce or op
    ufunc = NP_REDUCE[name]

    def ref(x, *old):
        red = ufunc.reduce(x.astype(np.float64), axis=tuple(axes), keepdims=True)
        red = red.reshape(dst_shape)
        negate = op == "reduce_negate"
        if accum:
            prev = old[0].astype(np.float64)
            red = ufunc(-prev if negate else prev, red)
        out = -red if negate else red
        return [out.astype(x.dtype)]

    return ref
