"""The reference interpreter: runs tirx IR (and, through registered implementations, any dialect
a backend adds) on numpy arrays, with the semantics the compiler must preserve.

    y = tirx_mlir.interpret(ir_text, "softmax", x)         # one call
    runner = KernelRunner(module, "gemm"); (c,) = runner(a, b)   # run many times

Modules, one per dialect plus the shared parts:

* `runtime`: run-time values (buffers are numpy arrays, views for slices) and the memory rules
  (NaN/poison fresh memory, compute dtypes, rounding on store, bounds checks, `InterpretError`);
* `tile_semantics`: the numpy meaning of unary/binary/reduce functions and affine predicates;
* `tirx_functions` = `tirx_kernel` + `tirx_tile`: the ``tirx`` dialect's implementation set
  (kernels, scope ids, buffers; tile ops);
* `arith`, `math`: every arith and math op on scalars, rounded to the result type;
* `scf`: ``scf.for`` with its step checked (xDSL's implementations run the other scf ops);
* `core`: `make_interpreter`, the located errors and the bounds on a run (a step budget, a call
  depth); `launch`: `KernelRunner`, `interpret`;
* `physical_memory`: the physical memory model (addressed allocations share one array per
  memory), which checks an allocator.

Implementation sets are registered in `tirx_mlir.registry.interpreter_functions` (owner
``core`` here); a backend registers its dialects' sets the same way from ``register_backend()``.
"""

from __future__ import annotations

from tirx_mlir import registry


def _tirx():
    from tirx_mlir.interpreter.tirx_functions import TirxFunctions

    return TirxFunctions


def _arith():
    from tirx_mlir.interpreter.arith import ArithFunctions

    return ArithFunctions


def _scf():
    from tirx_mlir.interpreter.scf import ScfForFunctions

    return ScfForFunctions


def _math():
    from tirx_mlir.interpreter.math import MathFunctions

    return MathFunctions


_FACTORIES = {"tirx": _tirx, "arith": _arith, "math": _math, "scf": _scf}


def register_core_interpreters() -> None:
    for name, factory in _FACTORIES.items():
        registry.interpreter_functions.register(name, factory, owner="core")


register_core_interpreters()

from tirx_mlir.interpreter.core import TirxInterpreter, make_interpreter  # noqa: E402
from tirx_mlir.interpreter.launch import (KernelRunner, find_kernel, interpret,  # noqa: E402
                                          verify_module)
from tirx_mlir.interpreter.runtime import InterpretError  # noqa: E402

__all__ = ["InterpretError", "KernelRunner", "TirxInterpreter", "find_kernel", "interpret",
           "make_interpreter", "register_core_interpreters", "verify_module"]
