"""tirx_mlir: TVM's TIRx tile IR as xDSL dialects, with CUDA and Trainium backends.

Public entry points (imported lazily to keep start-up fast):

* ``tirx_mlir.interpret(module, kernel_name, *arrays)``: run a kernel with reference semantics;
* ``tirx_mlir.compile(module_or_kernel, target=..., pipeline=None, **options)``: lower, print and
  build a kernel (disk-cached) into an artifact that ``.run(*arrays, device=None)`` runs
  (docs/runtime.md; devices: ``tirx_mlir.runtime.get_device``);
* ``tirx_mlir.parse_module(text, name)``: parse IR with source locations;
* ``tirx_mlir.emit(module, target)``: the source a backend's ``-t`` printer emits;
* ``tirx_mlir.get_pipeline(name, **options)`` / ``list_pipelines()``: named pass pipelines;
* ``tirx_mlir.backends.load(name)`` / ``is_loaded(name)``: the backend loader.

``import tirx_mlir`` autoloads the builtin backends unless ``TIRX_MLIR_BACKEND_AUTOLOAD=0``.
"""

from __future__ import annotations

__version__ = "0.1.0"

_LAZY = {
    "interpret": ("tirx_mlir.interpreter", "interpret"),
    "compile": ("tirx_mlir.runtime.compiler", "compile"),
    "parse_module": ("tirx_mlir.located_parser", "parse_module"),
    "emit": ("tirx_mlir.printers.emit", "emit"),
    "make_context": ("tirx_mlir.located_parser", "make_context"),
    "get_pipeline": ("tirx_mlir.pipelines", "get_pipeline"),
    "list_pipelines": ("tirx_mlir.pipelines", "list_pipelines"),
    "register_pipeline": ("tirx_mlir.pipelines", "register_pipeline"),
    "Target": ("tirx_mlir.target", "Target"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'tirx_mlir' has no attribute '{name}'")


def _autoload() -> None:
    from tirx_mlir.backends import _autoload_backends

    _autoload_backends()


_autoload()
