"""The NKI operator tables: ALU operators and ScalarE activation functions (aws-neuron-sdk `nki/api/nki/language/__init__.py`).

One table each, read by the verifiers (which names exist, which class an operator belongs to,
which may reduce), by the interpreter (the numpy meaning of each entry) and by the printers (the
``nl.<name>`` spelling, which is the table key). The numpy functions take and return float32
arrays (arithmetic) or int64 arrays (bit-vector operators) and work on whole arrays.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    import numpy as np


class _LazyNumpy:
    """numpy, imported on first use: the verifiers and printers read only the tables' names
    and kinds, so compiling imports no numpy; the interpreter's first call imports it."""

    def __getattr__(self, name: str) -> object:
        import numpy

        globals()["np"] = numpy
        return getattr(numpy, name)


np = _LazyNumpy()  # type: ignore[no-redef]  # noqa: F811


def _numpy(name: str) -> Callable:
    """The numpy function ``name``, looked up when first called (``numpy_name`` names it, so
    the interpreter can call the ufunc itself with ``out=``)."""
    def call(*args: object, **kwargs: object) -> object:
        return getattr(np, name)(*args, **kwargs)
    call.__name__ = name
    call.numpy_name = name  # type: ignore[attr-defined]
    return call


ARITH = "arith"
BITVEC = "bitvec"


@dataclass(frozen=True)
class AluOp:
    """One ALU operator: ``fn(a, b)`` (``fn(a)`` when unary)."""

    name: str
    kind: str  # ARITH (fp32 compute) or BITVEC (raw integer bits)
    arity: int
    reducible: bool
    fn: Callable[..., np.ndarray]
    doc: str

    @property
    def is_unary(self) -> bool:
        return self.arity == 1


def _f(x: bool | np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def _logical(fn: Callable) -> Callable:
    return lambda a, b: _f(fn(a != 0, b != 0))


def _shift_left(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.left_shift(a, b & 63)


def _shift_right(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    # logical shift: on the unsigned 32-bit pattern (arithmetic right shift is unsupported)
    return np.right_shift(a & 0xFFFFFFFF, b & 63)


def _rsqrt(a: np.ndarray, _b: object = None) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.float32(1) / np.sqrt(a)).astype(np.float32)


def _reciprocal(a: np.ndarray, _b: object = None) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return (np.float32(1) / a).astype(np.float32)


def _divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return a / b


def _power(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.power(a, b)


_ALU_LIST = [
    AluOp("add", ARITH, 2, True, _numpy("add"), "a + b"),
    AluOp("subtract", ARITH, 2, True, _numpy("subtract"), "a - b"),
    AluOp("multiply", ARITH, 2, True, _numpy("multiply"), "a * b"),
    AluOp("divide", ARITH, 2, False, _divide, "a / b (ISA only; slow)"),
    AluOp("maximum", ARITH, 2, True, _numpy("maximum"), "max(a, b)"),
    AluOp("minimum", ARITH, 2, True, _numpy("minimum"), "min(a, b)"),
    AluOp("power", ARITH, 2, False, _power, "a ** b (GpSimd, SBUF only)"),
    AluOp("equal", ARITH, 2, False, lambda a, b: _f(a == b), "1 if a == b else 0"),
    AluOp("not_equal", ARITH, 2, False, lambda a, b: _f(a != b), "1 if a != b else 0"),
    AluOp("greater", ARITH, 2, False, lambda a, b: _f(a > b), "1 if a > b else 0"),
    AluOp("greater_equal", ARITH, 2, False, lambda a, b: _f(a >= b), "1 if a >= b else 0"),
    AluOp("less", ARITH, 2, False, lambda a, b: _f(a < b), "1 if a < b else 0"),
    AluOp("less_equal", ARITH, 2, False, lambda a, b: _f(a <= b), "1 if a <= b else 0"),
    AluOp("logical_and", ARITH, 2, True, _logical(_numpy("logical_and")),
          "(a != 0) and (b != 0)"),
    AluOp("logical_or", ARITH, 2, True, _logical(_numpy("logical_or")), "(a != 0) or (b != 0)"),
    AluOp("logical_xor", ARITH, 2, True, _logical(_numpy("logical_xor")),
          "(a != 0) xor (b != 0)"),
    AluOp("abs", ARITH, 1, False, lambda a, _b=None: np.abs(a), "|a| (unary)"),
    AluOp("rsqrt", ARITH, 1, False, _rsqrt, "1 / sqrt(a) (unary)"),
    AluOp("reciprocal", ARITH, 1, False, _reciprocal, "1 / a (unary)"),
    AluOp("logical_not", ARITH, 1, False, lambda a, _b=None: _f(a == 0), "1 if a == 0 (unary)"),
    AluOp("bitwise_and", BITVEC, 2, True, _numpy("bitwise_and"), "a & b on the raw bits"),
    AluOp("bitwise_or", BITVEC, 2, True, _numpy("bitwise_or"), "a | b on the raw bits"),
    AluOp("bitwise_xor", BITVEC, 2, True, _numpy("bitwise_xor"), "a ^ b on the raw bits"),
    AluOp("left_shift", BITVEC, 2, False, _shift_left, "a << b (logical)"),
    AluOp("right_shift", BITVEC, 2, False, _shift_right, "a >> b (logical)"),
    AluOp("invert", BITVEC, 1, False, lambda a, _b=None: np.invert(a), "~a (unary)"),
]

ALU_OPS: dict[str, AluOp] = {op.name: op for op in _ALU_LIST}
REDUCE_OPS = tuple(op.name for op in _ALU_LIST if op.reducible)
GPSIMD_ALU_OPS = ("power",)
"""ALU operators that run on GpSimd only (so all their operands must be in SBUF)."""

REDUCE_IDENTITY = {"add": 0.0, "multiply": 1.0, "maximum": -math.inf, "minimum": math.inf}
"""The reductions tensor_scalar_reduce accepts, with the value a reset accumulator holds."""

_REDUCE_UFUNCS = ("add", "subtract", "multiply", "maximum", "minimum", "bitwise_and",
                  "bitwise_or", "bitwise_xor")
_LOGICAL_UFUNCS = ("logical_and", "logical_or", "logical_xor")
"""numpy ufuncs by name, whose ``reduce`` the reductions call."""


def reduce(name: str, x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Reduce ``x`` over ``axes`` with the reducible ALU operator ``name`` (dims kept)."""
    if name in _LOGICAL_UFUNCS:
        return _f(getattr(np, name).reduce(x != 0, axis=axes, keepdims=True))
    assert name in _REDUCE_UFUNCS, name
    return getattr(np, name).reduce(x, axis=axes, keepdims=True)


assert set(_REDUCE_UFUNCS) | set(_LOGICAL_UFUNCS) == set(REDUCE_OPS), "reduce table mismatch"


# --- activation functions -----------------------------------------------------------------------


def _sigmoid(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-x))


_SQRT1_2 = 1.0 / math.sqrt(2.0)
_ERF_TAYLOR = [2.0 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1))
               for n in range(48)]
_ERFC_CHEB = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
              -1.13520398, 1.48851587, -0.82215223, 0.17087277)


def erf(x: np.ndarray) -> np.ndarray:
    """Whole-array erf in float64: the Taylor series below |x| = 2 (converged to ~1e-15) and
    Numerical Recipes' erfc approximation (relative error < 1.2e-7 on erfc) above it."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    small = np.minimum(ax, 2.0)
    x2 = small * small
    series = np.zeros_like(small)
    for coeff in reversed(_ERF_TAYLOR):
        series = series * x2 + coeff
    series *= small
    t = 1.0 / (1.0 + 0.5 * ax)
    poly = np.zeros_like(ax)
    for coeff in reversed(_ERFC_CHEB):
        poly = poly * t + coeff
    with np.errstate(over="ignore", under="ignore"):
        large = 1.0 - t * np.exp(-ax * ax + poly)
    out = np.where(ax < 2.0, series, large)
    return np.where(np.isnan(x), np.nan, np.sign(x) * out)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + erf(x * _SQRT1_2))


def _gelu_dx(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + erf(x * _SQRT1_2)) + x * np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _gelu_sigmoid_dx(x: np.ndarray) -> np.ndarray:
    s = _sigmoid(1.702 * x)
    return s * (1.0 + 1.702 * x * (1.0 - s))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(0.0, x)


def _silu_dx(x: np.ndarray) -> np.ndarray:
    s = _sigmoid(x)
    return s * (1.0 + x * (1.0 - s))


QUIET = {"divide": "ignore", "invalid": "ignore", "over": "ignore"}
"""The floating-point warnings `_safe` functions silence (inf and NaN are their results)."""


def _safe(fn: Callable) -> Callable:
    def run(x: np.ndarray) -> np.ndarray:
        with np.errstate(**QUIET):
            return fn(x)
    run.numpy_name = getattr(fn, "numpy_name", None)  # type: ignore[attr-defined]
    run.quiet = True  # type: ignore[attr-defined]
    return run


@dataclass(frozen=True)
class Activation:
    """A ScalarE activation function: exact math (float64) and the documented valid range."""

    name: str
    fn: Callable[[np.ndarray], np.ndarray]
    valid: tuple[float, float] | None = None


ACTIVATIONS: dict[str, Activation] = {a.name: a for a in [
    Activation("copy", lambda x: x),
    Activation("square", lambda x: x * x),
    Activation("sigmoid", _sigmoid),
    Activation("relu", lambda x: np.maximum(x, 0.0)),
    Activation("gelu", _gelu),
    Activation("gelu_dx", _gelu_dx),
    Activation("gelu_apprx_tanh", _gelu_tanh),
    Activation("gelu_apprx_sigmoid", lambda x: x * _sigmoid(1.702 * x)),
    Activation("gelu_apprx_sigmoid_dx", _gelu_sigmoid_dx),
    Activation("silu", lambda x: x * _sigmoid(x)),
    Activation("silu_dx", _silu_dx),
    Activation("tanh", _numpy("tanh")),
    Activation("softplus", _softplus),
    Activation("mish", lambda x: x * np.tanh(_softplus(x))),
    Activation("erf", erf),
    Activation("erf_dx", lambda x: 2.0 / math.sqrt(math.pi) * np.exp(-x * x)),
    Activation("exp", _safe(_numpy("exp"))),
    Activation("log", _safe(_numpy("log")), (2.0**-64, 2.0**64)),
    Activation("sin", _numpy("sin"), (-math.pi, math.pi)),
    Activation("arctan", _numpy("arctan"), (-math.pi / 2, math.pi / 2)),
    Activation("sqrt", _safe(_numpy("sqrt")), (2.0**-116, 2.0**118)),
    Activation("rsqrt", _safe(lambda x: 1.0 / np.sqrt(x)), (2.0**-87, 2.0**97)),
    Activation("reciprocal", _safe(lambda x: 1.0 / x), (2.0**-42, 2.0**42)),
    Activation("sign", _numpy("sign")),
    Activation("abs", _numpy("abs")),
]}

AFFINE_SELECT_CMPS = {"greater": _numpy("greater"), "greater_equal": _numpy("greater_equal"),
                      "equal": _numpy("equal"), "not_equal": _numpy("not_equal")}
"""Comparisons against 0 that affine_select's ISA supports (>, >=, ==, !=)."""
