"""The Trainium backend: the ``nki`` dialect, its interpreter, the NKI printers, the ``trn``
target kind and tags, and the ``nki`` script namespace.

`register_backend()` is the single place that registers all of it; everything is registered as
a zero-argument factory, so ``import tirx_mlir`` imports none of the heavy modules (dialect,
interpreter, printers) until they are used.

Layout: ``target_tags.py`` (kind ``trn``, tags, `TrnLimits`), ``memory.py`` (the SBUF/PSUM
scopes, their axes, the address attribute, partitions), ``dialects/nki/`` (the ``nki``
ops and their hardware-limit verifiers), ``interpreter.py`` (NKI simulator semantics in numpy),
``printers/`` (``-t nki`` and ``-t nki-legacy``), ``script.py`` (the ``nki`` namespace);
``dispatch/``, ``transforms/`` and ``pipeline.py`` hold the tile-primitive lowering.
"""

from __future__ import annotations

BACKEND_NAME = "trn"
_PKG = "tirx_mlir.backends.trn"


def register_backend() -> None:
    """Register the trn target kind and tags, the SBUF/PSUM scopes and their layout axes, the
    nki dialect, its interpreter, the NKI printers, the ``nki`` script namespace and the
    tile-primitive lowering."""
    from tirx_mlir import registry
    from tirx_mlir.registry import Lazy
    from tirx_mlir.backends.trn.memory import register_trn_memory
    from tirx_mlir.backends.trn.script import NKI  # imports no xDSL: builders are made on use
    from tirx_mlir.backends.trn.target_tags import register_trn_target

    register_trn_target()
    register_trn_memory()
    registry.register_dialect("nki", Lazy(f"{_PKG}.dialects.nki", "NKI"))
    registry.register_interpreter_functions("nki", Lazy(f"{_PKG}.interpreter", "NkiFunctions"))
    registry.register_printer("nki", Lazy(f"{_PKG}.printers.targets", "NkiTarget"))
    registry.register_printer("nki-legacy", Lazy(f"{_PKG}.printers.targets", "NkiLegacyTarget"))
    registry.register_script_namespace("nki", NKI)
    _register_lowering(registry)


_TRN_PASSES = {
    "trn-default-layout": ("default_layout", "TrnDefaultLayoutPass"),
    "trn-max-inst-size": ("inst_size", "TrnMaxInstSizePass"),
    "trn-lower-layout": ("lower_layout", "TrnLowerLayoutPass"),
    "trn-allocate": ("allocate", "TrnAllocatePass"),
}


def _register_lowering(registry) -> None:
    """The tile-primitive lowering: dispatch variants (imported on first use), the trn
    transforms and the ``trn`` pipeline."""
    from tirx_mlir.backends.trn.dispatch import register_trn_dispatch
    from tirx_mlir.backends.trn.pipeline import register_trn_pipeline

    from tirx_mlir.registry import Lazy

    register_trn_dispatch()
    from tirx_mlir.dispatch.registry import register_dispatch_precondition

    register_dispatch_precondition(BACKEND_NAME, Lazy(f"{_PKG}.pass_order", "require_layouts"))
    for name, (module, cls) in _TRN_PASSES.items():
        registry.register_pass(name, Lazy(f"{_PKG}.transforms.{module}", cls))
    register_trn_pipeline()
