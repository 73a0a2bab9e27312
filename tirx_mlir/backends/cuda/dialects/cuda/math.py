"""Math intrinsics: fast approximate f32 functions, ``__fdividef``, packing two values into a
``half2``/``bfloat162`` and back, and scalar conversions with a rounding mode.

A ``half2`` is ``vector<2xf16>`` and a ``bfloat162`` ``vector<2xbf16>``: lane 0 is the low half
(``.x``), lane 1 the high half (``.y``).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr, VectorType
from xdsl.irdl import (
    AnyAttr,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.rules import RuleError

FAST_FUNCS = ("exp2", "exp", "log2", "log", "rcp", "rsqrt", "sqrt", "sin", "cos", "tanh")
"""``ex2.approx.f32``, ``__expf``, ``lg2.approx.f32``, ``__logf``, ``rcp.approx.f32``,
``rsqrt.approx.f32``, ``sqrt.approx.f32``, ``__sinf``, ``__cosf``, ``tanh.approx.f32``."""
PACKED = ("f16", "bf16")
ROUNDING = ("rn", "rz", "rd", "ru")
CONVERTIBLE = ("f16", "bf16", "f32", "f64", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32")


@irdl_op_definition
class FastMathOp(CudaOp):
    """A fast approximate f32 function (the ``--use_fast_math`` intrinsics): exp2, exp, log2,
    log, rcp, rsqrt, sqrt, sin, cos, tanh.

    ``%y = cuda.fast exp2 %x : f32 -> f32``
    """

    name = "cuda.fast"
    HEAD: ClassVar = ("func", FAST_FUNCS)
    RESULT_LIKE: ClassVar = "x"
    func = prop_def(StringAttr)
    x = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_type("x", self.x, ("f32",), "the approximate intrinsics work on f32: "
                          "convert with cuda.cvt first")


@irdl_op_definition
class FdividefOp(CudaOp):
    """``__fdividef(a, b)``: fast approximate f32 division.

    ``%q = cuda.fdividef %a, %b : f32, f32 -> f32``
    """

    name = "cuda.fdividef"
    RESULT_LIKE: ClassVar = "lhs"
    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_type("lhs", self.lhs, ("f32",))
        checks.check_type("rhs", self.rhs, ("f32",))


def _packed_element(what: str, t) -> object:
    """The element type of a ``vector<2 x f16|bf16>``."""
    if not isinstance(t, VectorType) or t.get_shape() != (2,) or \
            checks.type_name(t.element_type) not in PACKED:
        raise RuleError(f"{what} must be vector<2xf16> (half2) or vector<2xbf16> (bfloat162), "
                        f"got {t}")
    return t.element_type


@irdl_op_definition
class PackOp(CudaOp):
    """Pack two values into a half2 / bfloat162: ``result = {lo, hi}``. The halves are f32
    (rounded to nearest even: ``__floats2half2_rn``, ``__floats2bfloat162_rn``) or already of
    the packed element type (``make_half2``). f32 -> bf16x2 needs sm_80.

    ``%h2 = cuda.pack %lo, %hi : f32, f32 -> vector<2xbf16>``
    """

    name = "cuda.pack"
    lo = operand_def(AnyAttr())
    hi = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_cuda(self, launch: checks.Launch) -> None:
        elem = _packed_element("the result", self.result.type)
        allowed = ("f32", checks.type_name(elem))
        checks.check_type("lo", self.lo, allowed)
        checks.check_same_type("operand 'hi'", self.lo.type, self.hi.type,
                               "both halves have one type")
        if checks.type_name(elem) == "bf16":
            checks.require_sm(launch, 80, "bfloat162 packing")


@irdl_op_definition
class UnpackOp(CudaOp):
    """Split a half2 / bfloat162 into its halves, as f32 (``__half22float2``,
    ``__bfloat1622float2``) or as the element type (``__low2half``/``__high2half``).

    ``%lo, %hi = cuda.unpack %h2 : vector<2xf16> -> f32, f32``
    """

    name = "cuda.unpack"
    packed = operand_def(AnyAttr())
    lo_half = result_def(AnyAttr())
    hi_half = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_cuda(self, launch: checks.Launch) -> None:
        elem = _packed_element("operand 'packed'", self.packed.type)
        types = list(self.result_types)
        if types[0] != types[1]:
            raise RuleError(f"the halves have one type, got {types[0]} and {types[1]}")
        if checks.type_name(types[0]) not in ("f32", checks.type_name(elem)):
            raise RuleError(f"the halves must be f32 or {elem}, got {types[0]}")


@irdl_op_definition
class CvtOp(CudaOp):
    """Convert a scalar between float and integer types (``__float2half_rn``,
    ``__float2bfloat16_rz``, ``__float2int_rd``...). ``round`` (rn, rz, rd, ru) is the rounding
    of a conversion that can be inexact (to a narrower float, float -> int, int -> float); it
    defaults to rn (rz for float -> int, as C's casts) and is an error on an exact conversion.
    bf16 conversions need sm_80.

    ``%h = cuda.cvt %x round rz : f32 -> bf16``
    """

    name = "cuda.cvt"
    KEYWORDS: ClassVar = {"round": "name"}
    x = operand_def(AnyAttr())
    round = opt_prop_def(StringAttr)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())

    def verify_cuda(self, launch: checks.Launch) -> None:
        src = checks.check_type("x", self.x, CONVERTIBLE)
        dst = checks.type_name(self.result.type)
        if dst not in CONVERTIBLE:
            raise RuleError(f"the result must be one of {', '.join(CONVERTIBLE)}, got "
                            f"{self.result.type}")
        if src == dst:
            raise RuleError(f"converting {src} to itself; drop the cuda.cvt")
        rounding = self.name_prop("round")
        if rounding is not None:
            checks.check_choice("rounding", rounding, ROUNDING)
            if not self.may_round():
                raise RuleError(f"{src} -> {dst} is exact; drop 'round {rounding}'")
        if "bf16" in (src, dst):
            checks.require_sm(launch, 80, "bf16 conversions")

    def may_round(self) -> bool:
        """Whether the conversion can be inexact (so a rounding mode applies)."""
        src, dst = self.x.type, self.result.type
        if dtypes.is_float(src) != dtypes.is_float(dst):
            return True
        if dtypes.is_float(src):
            return dtypes.bit_width(dst) < dtypes.bit_width(src) or \
                {checks.type_name(src), checks.type_name(dst)} == {"f16", "bf16"}
        return False


MATH_OPS = (FastMathOp, FdividefOp, PackOp, UnpackOp, CvtOp)
