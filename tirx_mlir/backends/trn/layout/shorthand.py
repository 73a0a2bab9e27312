"""TIRx's Trainium layout shorthands: ``"PF"``, ``"FP"``, ``"FPF"``, ... (apache/tvm
`python/tvm/backend/trn/layout.py`, ``trainium_layout`` and ``to_psum_layout``).

A shorthand names, for each dim of the buffer, the axis it goes on: ``P`` (partitions) or ``F``
(the free axis). In a buffer type it is quoted and expands, for the buffer's shape, to the full
layout the IR then holds and prints::

    !tirx.buffer<256x2048xf32, trn.sbuf, "PF">  ->  S[(2,128,2048):(2048@F,1@P,1@F)]
    !tirx.buffer<64x128xf32, trn.sbuf, "FP">    ->  S[(64,128):(1@F,1@P)]
    !tirx.buffer<128x2048xf32, trn.psum, "PF">  ->  S[(128,4,512):(1@P,1@Bank,1@F)]

* one ``P`` dim of at most 128 rows goes on the partitions whole; a larger one must be a multiple
  of 128 and is split, its high part becoming an ``F`` iterator at its place among the F dims;
* several ``P`` dims share the partitions (their product at most 128);
* strides are row-major within each axis: the P dims among themselves, the F dims (and split
  high parts) among themselves, in dim order;
* in PSUM (``to_psum_layout``) an F iterator whose stride is a whole number of banks (2 KiB of
  the element type, 512 f32) moves to the ``Bank`` axis, and one that covers several banks
  splits into a Bank iterator and an F iterator inside the bank.
"""

from __future__ import annotations

import math
from typing import Sequence

from tirx_mlir.backends.trn.memory import PARTITIONS, PSUM_BANK_BYTES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.layout import Iter, LayoutError, TileLayout, row_major_strides


def _check_annotation(annotation: str, shape: Sequence[int]) -> list[int]:
    if len(annotation) != len(shape) or set(annotation) - {"P", "F"}:
        raise LayoutError(f"layout shorthand \"{annotation}\" must give each of the "
                          f"{len(shape)} dims of {list(shape)} one axis, P or F (e.g. "
                          f"\"{'P' + 'F' * (len(shape) - 1)}\")")
    p_dims = [i for i, c in enumerate(annotation) if c == "P"]
    if not p_dims:
        raise LayoutError(f"layout shorthand \"{annotation}\" puts no dim on the partitions; "
                          f"mark one P")
    return p_dims


def trainium_layout(annotation: str, shape: Sequence[int],
                    partitions: int = PARTITIONS) -> TileLayout:
    """The SBUF layout of a ``"PF..."`` annotation for ``shape``."""
    p_dims = _check_annotation(annotation, shape)
    split: int | None = None
    if len(p_dims) == 1 and shape[p_dims[0]] > partitions:
        rows = shape[p_dims[0]]
        if rows % partitions:
            raise LayoutError(f"layout shorthand \"{annotation}\": the P dim has {rows} rows, "
                              f"neither at most {partitions} nor a multiple of it; pad it or "
                              f"write the layout")
        split = p_dims[0]
    elif math.prod(shape[i] for i in p_dims) > partitions:
        raise LayoutError(f"layout shorthand \"{annotation}\": the P dims "
                          f"{[shape[i] for i in p_dims]} need "
                          f"{math.prod(shape[i] for i in p_dims)} partitions, more than "
                          f"{partitions}")
    p_ext = [partitions if i == split else shape[i] for i in p_dims]
    f_dims = [(i, shape[i] // partitions if i == split else shape[i])
              for i, c in enumerate(annotation) if c == "F" or i == split]
    p_stride = dict(zip(p_dims, row_major_strides(p_ext)))
    f_stride = dict(zip((i for i, _ in f_dims), row_major_strides([n for _, n in f_dims])))
    iters: list[Iter] = []
    for i, n in enumerate(shape):
        if i == split:
            iters += [Iter(n // partitions, f_stride[i], "F"), Iter(partitions, p_stride[i], "P")]
        elif annotation[i] == "P":
            iters.append(Iter(n, p_stride[i], "P"))
        else:
            iters.append(Iter(n, f_stride[i], "F"))
    return TileLayout(tuple(iters))


def to_psum(layout: TileLayout, bank: int) -> TileLayout:
    """Free iterators in whole banks of ``bank`` elements on the ``Bank`` axis (TIRx's
    ``to_psum_layout``)."""
    iters: list[Iter] = []
    for it in layout.shard:
        if it.axis != "F" or it.extent == 1:
            iters.append(it)
        elif it.stride % bank == 0:
            iters.append(Iter(it.extent, it.stride // bank, "Bank"))
        elif bank % it.stride == 0 and it.extent * it.stride > bank and \
                it.extent % (bank // it.stride) == 0:
            inner = bank // it.stride
            iters += [Iter(it.extent // inner, 1, "Bank"), Iter(inner, it.stride, "F")]
        else:
            iters.append(it)
    return TileLayout(tuple(iters), layout.replica, layout.offset, layout.swizzle)


def sbuf_shorthand(annotation: str, shape: Sequence[int], element_type=None) -> TileLayout:
    return trainium_layout(annotation, shape)


def psum_shorthand(annotation: str, shape: Sequence[int], element_type=None) -> TileLayout:
    itemsize = 4 if element_type is None else dtypes.itemsize(element_type)
    return to_psum(trainium_layout(annotation, shape), PSUM_BANK_BYTES // itemsize)
