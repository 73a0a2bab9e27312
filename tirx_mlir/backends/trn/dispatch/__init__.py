"""Trainium tile dispatch: one module per primitive family, each registering its variants
for target kind ``trn`` when imported. `register_trn_dispatch` (called from the backend's
``register_backend()``) declares the modules with the ops they register; the dispatcher imports
a module the first time it dispatches one of its ops for ``trn``, so loading the backend stays
cheap and a kernel without gemms or reductions does not import their variants.

Modules: ``plan`` (instruction tiling shared by all), ``common`` (Trainium predicates, NKI scalars,
elementwise plans), ``copy`` (copy, cast), ``elementwise`` (binary, unary, fills, fma),
``reduction`` (sum/max/min, reduce_negate, unary_reduce, binary_reduce), ``gemm``,
``fused`` (binary_chain, compose_op), ``select``, ``ragged`` (an op cut into its regular part
and its remainder); ``partition_broadcast`` (a row put on every partition: used by ``common``'s
plans and by ``copy``), ``scratch`` (scratch tiles, f32 constants) and ``rounding`` (which
``rounding_mode`` configs NKI honours) register nothing.
"""

from __future__ import annotations

VARIANT_MODULES: dict[str, tuple[str, ...] | None] = {
    "copy": ("cast", "copy", "copy_async", "permute_layout"),
    "elementwise": ("add", "exp", "exp2", "fdiv", "fill", "fma", "log2", "maximum", "memset",
                    "minimum", "mul", "reciprocal", "silu", "sqrt", "sub", "zero"),
    "reduction": ("binary_reduce", "max", "min", "reduce_negate", "sum", "unary_reduce"),
    "gemm": ("gemm", "gemm_async"),
    "fused": ("binary_chain", "compose_op"),
    "select": ("select",),
    "ragged": None,
}
"""Variant module -> the tile ops it registers variants of (None: imported for every op; the
ragged variant covers nearly all). A module is imported the first time one of its ops is
dispatched: a compile imports only what its kernel's ops (and the ops their variants build)
need; the registry rejects a variant registered for an op its module does not list."""


def register_trn_dispatch() -> None:
    from tirx_mlir.dispatch import register_dispatch_module

    for name, ops in VARIANT_MODULES.items():
        register_dispatch_module("trn", f"tirx_mlir.backends.trn.dispatch.{name}", ops)
