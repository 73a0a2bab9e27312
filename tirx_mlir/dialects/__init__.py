"""Dialects of tirx_mlir, registered lazily.

`register_core_dialects` puts factories for the core ``tirx`` dialect and the upstream xDSL
dialects kernels use into `tirx_mlir.registry.dialects`; a dialect module is imported only when a
parsed file (or a pass) first needs it. Backends add their own dialects to the same registry.
"""

from __future__ import annotations

from typing import Callable

from tirx_mlir import registry
from tirx_mlir.lazy_op_definitions import after_each_definition


def _once(make: Callable[[], object]) -> Callable[[], object]:
    """``make`` run by the first context that loads the dialect; later contexts get the same
    dialect object (a module-level value, as xDSL's own factories return) without redoing the
    class set-up or rebuilding xDSL's table of dialect factories."""
    made: list[object] = []

    def factory():
        if not made:
            made.append(make())
        return made[0]

    return factory


@_once
def _tirx():
    from tirx_mlir.dialects.def_check import install_def_check
    from tirx_mlir.dialects.fast_accessors import install_fast_accessors
    from tirx_mlir.dialects.tirx import TIRX
    from tirx_mlir.lazy_op_definitions import when_defined

    for op in TIRX.operations:  # the same verdicts, cheaper (def_check.py)
        when_defined(op, install_def_check)
        when_defined(op, install_fast_accessors)  # the same answers, cheaper
    return TIRX


def _upstream(name: str) -> Callable[[], object]:
    def make():
        from xdsl.dialects import get_all_dialects

        from tirx_mlir.dialects.def_check import install_def_check
        from tirx_mlir.dialects.fast_accessors import install_fast_accessors
        from tirx_mlir.lazy_op_definitions import when_defined

        dialect = get_all_dialects()[name]()
        for op in dialect.operations:  # the same verdicts, cheaper (def_check.py)
            when_defined(op, install_def_check)
            when_defined(op, install_fast_accessors)  # the same answers, cheaper
        return dialect

    return _once(make)


def _fast_accessors(cls: type) -> None:
    """`fast_accessors.install_fast_accessors` (imported on the first class completed)."""
    from tirx_mlir.dialects.fast_accessors import install_fast_accessors

    install_fast_accessors(cls)


# every op class completed lazily (an upstream op built by a pass in a dialect no parse loaded,
# e.g. scf.for made by dispatch) reads its named constructs by position; the factories above
# cover the classes completed before `lazy_op_definitions.install`
after_each_definition(_fast_accessors)

UPSTREAM_DIALECTS = ("builtin", "func", "scf", "arith", "math", "memref", "affine", "test")


def register_core_dialects() -> None:
    registry.dialects.register("tirx", _tirx, owner="core")
    for name in UPSTREAM_DIALECTS:
        registry.dialects.register(name, _upstream(name), owner="core")


register_core_dialects()
