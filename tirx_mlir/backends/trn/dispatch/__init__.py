"""Trainium tile dispatch: one module per primitive family, each registering its variants
for target kind ``trn`` when imported. `register_trn_dispatch` (called from the backend's
``register_backend()``) declares the modules; the dispatcher imports them the first time it
dispatches for ``trn``, so loading the backend stays cheap.

Modules: ``plan`` (instruction tiling shared by all), ``common`` (Trainium predicates, NKI scalars,
elementwise plans), ``copy`` (copy, cast), ``elementwise`` (binary, unary, fills, fma),
``reduction`` (sum/max/min, reduce_negate, unary_reduce, binary_reduce), ``gemm``,
``fused`` (binary_chain, compose_op), ``select``, ``ragged`` (an op cut into its regular part
and its remainder); ``partition_broadcast`` (a row put on every partition: used by ``common``'s
plans and by ``copy``), ``scratch`` (scratch tiles, f32 constants) and ``rounding`` (which
``rounding_mode`` configs NKI honours) register nothing.
"""

from __future__ import annotations

VARIANT_MODULES = ("copy", "elementwise", "reduction", "gemm", "fused", "select",
                   "ragged")


def register_trn_dispatch() -> None:
    from tirx_mlir.dispatch import register_dispatch_module

    for name in VARIANT_MODULES:
        register_dispatch_module("trn", f"tirx_mlir.backends.trn.dispatch.{name}")
