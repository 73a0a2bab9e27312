"""``tirx_mlir.tirx``: the public face of loaded backends.

Loading a backend (`tirx_mlir.backends.load`) publishes it here: ``tirx_mlir.tirx.cuda`` *is*
the module ``tirx_mlir.backends.cuda``, and ``import tirx_mlir.tirx.cuda.target_tags`` (or
``from tirx_mlir.tirx.trn import target_tags``) yields the very same module object as
``tirx_mlir.backends.cuda.target_tags``, through a meta-path finder installed by the loader.
A backend that is not loaded is not visible here (its import raises ModuleNotFoundError).

The package holds nothing else: the code of a backend lives in ``tirx_mlir/backends/<name>/``.
"""
