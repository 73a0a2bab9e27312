"""The Trainium backend: the ``nki`` dialect, its interpreter, the NKI printers, the ``trn``
target kind and tags, and the ``nki`` script namespace.

`register_backend()` is the single place that registers all of it; everything is registered as
a zero-argument factory, so ``import tirx_mlir`` imports none of the heavy modules (dialect,
interpreter, printers) until they are used.

Layout: ``target_tags.py`` (kind ``trn``, tags, `TrnLimits`), ``dialects/nki/`` (the ``nki``
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


def register_backend() -> None:
    """Register the trn target kind and tags, the nki dialect and its interpreter."""
    from tirx_mlir import registry
    from tirx_mlir.backends.trn.target_tags import register_trn_target

    register_trn_target()
    registry.register_dialect("nki", _nki_dialect)
    registry.register_interpreter_functions("nki", _nki_interpreter)
