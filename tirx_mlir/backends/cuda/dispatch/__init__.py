"""CUDA tile dispatch: one module per primitive family, each registering its variants for target
kind ``cuda`` when imported. `register_cuda_dispatch` (called from the backend's
``register_backend()``) declares the modules; the dispatcher imports them the first time it
dispatches for ``cuda``, so loading the backend stays cheap.

Shared: ``common`` (predicates, thread ids, physical addressing, register arrays, the barriers of
the tile-level order), ``pointwise`` (the elementwise engine). Variants: ``copy`` (copy, cast:
``vec_auto``, ``fallback``), ``copy_vec_forced`` (``vec_128b`` .. ``vec_16b``), ``elementwise``
(the unary/binary ops and fills: ``reg``, ``smem``, ``gmem``), ``select`` (``default``: the affine
predicate on the coordinate), ``copy_async_tma`` (copy_async: ``tma_auto``), ``gemm_async``
(``wgmma``), with ``tma_ring`` (the mbarrier protocol between their producer and consumer
warpgroups).
"""

from __future__ import annotations

VARIANT_MODULES = ("copy", "copy_vec_forced", "elementwise", "select", "copy_async_tma",
                   "gemm_async")


def register_cuda_dispatch() -> None:
    from tirx_mlir.dispatch import register_dispatch_module

    for name in VARIANT_MODULES:
        register_dispatch_module("cuda", f"tirx_mlir.backends.cuda.dispatch.{name}")
