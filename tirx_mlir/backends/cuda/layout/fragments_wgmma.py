"""The register layout of a wgmma accumulator, as a tile layout over the warpgroup's threads.

``wgmma.mma_async.sync.aligned.m64nNk16`` (PTX ISA "Register Fragments and Shared Memory Matrix
Layouts" of Asynchronous Warpgroup Level Matrix Multiply-Accumulate, "Matrix fragment for
wgmma.m64nNk16") leaves the 64 x N f32 result D in the 128 threads of a warpgroup: warp ``w``
holds rows ``16w .. 16w+15``; lane ``4g + t`` holds, in register ``i`` (``N / 2`` per thread),
row ``16w + g + 8 * ((i // 2) % 2)``, column ``8 * (i // 4) + 2t + i % 2`` (the m16n8 C fragment
repeated over the N / 8 column blocks). The SIMT interpreter states the same map in
``interpreter/tensor_core/wgmma_fragments.py`` (`accumulator_map`); the tests check one against
the other.

As a layout of a ``[64 * mt, N]`` accumulator tile (``mt`` m64 tiles held by the same
warpgroup, one after the other in the registers)::

    S[(mt, 4, 2, 8, N/8, 4, 2):(N/2, 1@wid_in_wg, 2, 4@laneid, 4, 1@laneid, 1)]

rows split as (m64 tile, warp, half, group), columns as (8-column block, thread in the quad,
pair); the memory axis ``m`` is the register index. A CTA-wide accumulator of ``g`` consumer
warpgroups adds an outer ``g:4@warpid`` and names the warp by ``1@warpid``: warpgroup ``c``
holds m64 tiles ``c * mt/g ..``.
"""

from __future__ import annotations

from tirx_mlir.dialects.tirx.layout import Iter, TileLayout

M = 64
"""Rows of one wgmma (the warpgroup's 4 warps x 16)."""
K_F16 = 16
"""K of one f16/bf16 wgmma."""
MAX_N = 256
THREADS = 128


def instruction_n(n: int) -> int | None:
    """The widest wgmma N (a multiple of 8, at most 256) that divides a tile's ``n`` columns,
    or None when ``n`` is not a multiple of 8."""
    if n <= 0 or n % 8:
        return None
    return max(d for d in range(8, min(n, MAX_N) + 1, 8) if n % d == 0)


def accumulator_layout(rows: int, cols: int, warpgroups: int | None = None) -> TileLayout:
    """The registers of a ``[rows, cols]`` f32 accumulator (rows a multiple of 64, cols of 8)
    in one warpgroup (module docstring), or, with ``warpgroups``, split by rows over
    warpgroups ``0 .. warpgroups-1`` of the CTA, each holding ``rows / warpgroups`` rows (a
    multiple of 64); the warps are then named by the CTA's ``warpid`` (``4 * wgid +
    wid_in_wg``), so the threads of other warpgroups visibly hold nothing."""
    if rows % M or cols % 8 or rows <= 0 or cols <= 0:
        raise ValueError(f"a wgmma accumulator is [64 * k, 8 * j], not [{rows}, {cols}]")
    groups = warpgroups or 1
    if (rows // M) % groups:
        raise ValueError(f"{rows} accumulator rows do not split into m64 tiles over "
                         f"{groups} warpgroups")
    warp = "wid_in_wg" if warpgroups is None else "warpid"
    outer = (Iter(groups, 4, "warpid"),) if warpgroups is not None else ()
    shard = (*outer, Iter(rows // M // groups, cols // 2), Iter(4, 1, warp), Iter(2, 2),
             Iter(8, 4, "laneid"), Iter(cols // 8, 4), Iter(4, 1, "laneid"), Iter(2, 1))
    return TileLayout(shard)


def accumulator_registers(rows: int, cols: int, warpgroups: int = 1) -> int:
    """f32 registers per thread of a ``[rows, cols]`` accumulator split over ``warpgroups``."""
    return rows * cols // THREADS // warpgroups


def is_accumulator_layout(layout: TileLayout | None, shape: tuple[int, ...],
                          warpgroups: int | None = None) -> bool:
    """Whether ``layout`` is `accumulator_layout` of the 2-D ``shape``."""
    try:
        return len(shape) == 2 and layout == accumulator_layout(*shape, warpgroups)
    except ValueError:
        return False
