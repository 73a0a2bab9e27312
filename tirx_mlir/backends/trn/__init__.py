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


def _nki_dialect():
    from tirx_mlir.backends.trn.dialects.nki import NKI

    return NKI


def _nki_interpreter():
    from tirx_mlir.backends.trn.interpreter import NkiFunctions

    return NkiFunctions


def _nki_target():
    from tirx_mlir.backends.trn.printers.targets import NkiTarget

    return NkiTarget


def _nki_legacy_target():
    from tirx_mlir.backends.trn.printers.targets import NkiLegacyTarget

    return NkiLegacyTarget


def register_backend() -> None:
    """Register the trn target kind and tags, the SBUF/PSUM scopes and their layout axes, the
    nki dialect, its interpreter, the NKI printers, the ``nki`` script namespace and the
    tile-primitive lowering."""
    from tirx_mlir import registry
    from tirx_mlir.backends.trn.memory import register_trn_memory
    from tirx_mlir.backends.trn.script import NKI  # imports no xDSL: builders are made on use
    from tirx_mlir.backends.trn.target_tags import register_trn_target

    register_trn_target()
    register_trn_memory()
    registry.register_dialect("nki", _nki_dialect)
    registry.register_interpreter_functions("nki", _nki_interpreter)
    registry.register_printer("nki", _nki_target)
    registry.register_printer("nki-legacy", _nki_legacy_target)
    registry.register_script_namespace("nki", NKI)
    _register_lowering(registry)


_TRN_PASSES = {
    "trn-default-layout": ("default_layout", "TrnDefaultLayoutPass"),
    "trn-max-inst-size": ("inst_size", "TrnMaxInstSizePass"),
    "trn-lower-layout": ("lower_layout", "TrnLowerLayoutPass"),
    "trn-allocate": ("allocate", "TrnAllocatePass"),
}


def _pass_factory(module: str, cls: str):
    def factory():
        import importlib

        return getattr(importlib.import_module(f"tirx_mlir.backends.trn.transforms.{module}"), cls)

    return factory


def _register_lowering(registry) -> None:
    """The tile-primitive lowering: dispatch variants (imported on first use), the trn
    transforms and the ``trn`` pipeline."""
    from tirx_mlir.backends.trn.dispatch import register_trn_dispatch
    from tirx_mlir.backends.trn.pipeline import register_trn_pipeline

    register_trn_dispatch()
    for name, (module, cls) in _TRN_PASSES.items():
        registry.register_pass(name, _pass_factory(module, cls))
    register_trn_pipeline()
