"""CUDA tile dispatch: one module per primitive family, each registering its variants for target
kind ``cuda`` when imported. `register_cuda_dispatch` (called from the backend's
``register_backend()``) declares the modules; the dispatcher imports them the first time it
dispatches for ``cuda``, so loading the backend stays cheap.

Before any variant sees a kernel, ``arch_floor`` refuses an arch below the oldest PTX target
CUDA 13's ptxas has (sm_75: ``sm_70`` is refused). Shared: ``common`` (predicates, thread ids,
physical addressing, register arrays, the barriers of the tile-level order), ``pointwise`` (the
elementwise engine). Variants, one module per family:

* ``copy`` (copy, cast: ``vec_auto``, ``fallback``), ``copy_vec_forced`` (``vec_128b`` ..
  ``vec_16b``; both take ``copy_hints``, TIRx's
  cache configs), ``copy_ldstmatrix`` (``ldstmatrix``), ``copy_async`` (``ldgsts``),
  ``copy_async_tma`` (``tma_auto``; with ``tma_ring``, the mbarrier protocol between TMA
  producers and wgmma consumers, ``tma_multicast`` and ``cluster_masks``, multicast to the
  CTAs of a mask), ``copy_async_dsmem`` (``dsmem``, and tirx.cluster_sync's
  ``barrier_cluster``: the inbox protocol of remote copies);
* ``gemm`` (``mma.m16n8k*``; fragments in ``layout/fragments``, with ``fragment_io`` and
  ``warp_blocks``), ``gemm_async`` (``wgmma``; layouts in ``layout/fragments_wgmma``,
  ``layout/wgmma_operand``, ``layout/swizzle``);
* ``elementwise`` (the unary/binary ops and fills: ``reg``, ``smem``, ``gmem``; with
  ``rounded_arith``, TIRx's ``rounding_mode`` on arithmetic), ``select``
  (``default``: the affine predicate on the coordinate);
* ``reduction`` (sum/max/min/reduce_negate: ``local``, ``shared``; its plan in
  ``layout/reduction_plan``), ``fused`` (unary_reduce, binary_reduce, binary_chain:
  ``decompose``), ``permute_layout`` (``warp_xor_swizzle``, ``fallback``).
"""

from __future__ import annotations

VARIANT_MODULES = ("copy", "copy_async", "copy_async_tma", "copy_async_dsmem", "copy_ldstmatrix",
                   "copy_vec_forced",
                   "elementwise", "gemm", "gemm_async", "select", "reduction", "fused",
                   "permute_layout")


def register_cuda_dispatch() -> None:
    from tirx_mlir.dispatch import register_dispatch_module
    from tirx_mlir.dispatch.registry import register_dispatch_precondition
    from tirx_mlir.registry import Lazy

    for name in VARIANT_MODULES:
        register_dispatch_module("cuda", f"tirx_mlir.backends.cuda.dispatch.{name}")
    register_dispatch_precondition("cuda", Lazy("tirx_mlir.backends.cuda.dispatch.arch_floor",
                                                "require_supported_arch"))
