"""Warp-level data exchange and reductions: the ``__shfl_*_sync`` family, votes, the active
mask, warp reductions (``__reduce_*_sync`` / a shuffle tree) and block reductions through a
shared-memory scratch.

Masks are i32 lane sets; every lane named in a mask must execute the op (CUDA C++ Programming
Guide, "Warp Shuffle Functions" and "Warp Vote Functions").
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.irdl import AnyAttr, operand_def, opt_prop_def, prop_def, result_def

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp, spelled_type
from tirx_mlir.backends.cuda.memory import SHARED_SCOPES
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.rules import RuleError

REDUCTIONS = ("sum", "max", "min", "and", "or", "xor")
BITWISE = ("and", "or", "xor")
REDUCE_TYPES = ("i32", "ui32", "f32")


def _check_width(op: CudaOp) -> None:
    checks.check_power_of_two("width", op.int_prop("width", checks.WARP_SIZE), 1,
                              checks.WARP_SIZE)


@irdl_op_definition
class ShflSyncOp(CudaOp):
    """``__shfl_<mode>_sync(mask, value, lane, width)``: read ``value`` from another lane of the
    same ``width``-lane segment. ``idx`` reads lane ``lane``; ``up``/``down`` the lane ``lane``
    below/above; ``xor`` lane ``self ^ lane``. Moves i32, ui32, i64, f32, f64, f16 or bf16;
    ``width`` is a power of two up to 32 (default 32).

    ``%y = cuda.shfl_sync xor %mask, %x, %c16 width 32 : i32, f32, i32 -> f32``
    """

    name = "cuda.shfl_sync"
    HEAD: ClassVar = ("mode", ("idx", "up", "down", "xor"))
    KEYWORDS: ClassVar = {"width": "int"}
    RESULT_LIKE: ClassVar = "value"
    mode = prop_def(StringAttr)
    mask = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    lane = operand_def(AnyAttr())
    width = opt_prop_def(IntegerAttr)
    result = result_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_i32("mask", self.mask, "the lanes that take part")
        checks.check_type("value", self.value, checks.SHUFFLE_TYPES,
                          "pack narrower values into 32 bits")
        checks.check_type("lane", self.lane, ("i32",),
                          "it is a lane, a delta or a lane mask")
        _check_width(self)


@irdl_op_definition
class VoteOp(CudaOp):
    """``__all_sync`` / ``__any_sync`` / ``__uni_sync`` (i1 result) and ``__ballot_sync`` (i32
    result: bit i is lane i's predicate) over the lanes of ``mask``.

    ``%bits = cuda.vote ballot %mask, %p : i32, i1 -> i32``
    """

    name = "cuda.vote"
    HEAD: ClassVar = ("mode", ("all", "any", "uni", "ballot"))
    mode = prop_def(StringAttr)
    mask = operand_def(AnyAttr())
    pred = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_i32("mask", self.mask, "the lanes that take part")
        checks.check_type("pred", self.pred, ("i1",), "it is the lane's predicate")
        want = "i32" if self.head == "ballot" else "i1"
        checks.check_same_type("the result", spelled_type(want), self.result.type,
                               f"vote {self.head} gives {want}")


@irdl_op_definition
class ActiveMaskOp(CudaOp):
    """``__activemask()``: the lanes of the warp executing this op now (i32).

    ``%m = cuda.activemask : i32``
    """

    name = "cuda.activemask"
    RESULTS: ClassVar = ("i32",)
    result = result_def(AnyAttr())


@irdl_op_definition
class WarpReduceOp(CudaOp):
    """Reduce ``value`` over the lanes of each ``width``-lane segment; every lane gets the
    result. i32/ui32 lower to ``redux.sync`` on sm_80+ (``__reduce_add_sync``...), f32 to a
    ``__shfl_xor_sync`` butterfly; ``and``/``or``/``xor`` take integers.

    ``%s = cuda.warp_reduce sum %mask, %x : i32, f32 -> f32``
    """

    name = "cuda.warp_reduce"
    HEAD: ClassVar = ("op", REDUCTIONS)
    KEYWORDS: ClassVar = {"width": "int"}
    RESULT_LIKE: ClassVar = "value"
    op = prop_def(StringAttr)
    mask = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    width = opt_prop_def(IntegerAttr)
    result = result_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_i32("mask", self.mask, "the lanes that take part")
        got = checks.check_type("value", self.value, REDUCE_TYPES)
        if self.head in BITWISE and got == "f32":
            raise RuleError(f"a bitwise '{self.head}' reduction takes i32 or ui32, got f32; "
                            f"bitcast the value or reduce with sum/max/min")
        _check_width(self)


@irdl_op_definition
class CtaReduceOp(CudaOp):
    """Reduce ``value`` over every thread of the block; every thread gets the result. Warps
    reduce first, then warp 0 combines the per-warp partials it finds in ``scratch`` (shared
    memory of the value's type, one element per warp). Ends with a block barrier. The block
    must hold whole warps.

    ``%s = cuda.cta_reduce max %x, %scratch : f32, !tirx.buffer<32xf32, shared> -> f32``
    """

    name = "cuda.cta_reduce"
    HEAD: ClassVar = ("op", ("sum", "max", "min"))
    RESULT_LIKE: ClassVar = "value"
    op = prop_def(StringAttr)
    value = operand_def(AnyAttr())
    scratch = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    def verify_cuda(self, launch: checks.Launch) -> None:
        checks.check_type("value", self.value, REDUCE_TYPES)
        scratch = checks.buffer("scratch", self.scratch, SHARED_SCOPES)
        checks.check_same_type("the scratch's element type", self.value.type,
                               scratch.element_type, "it holds one partial per warp")
        checks.require_threads_multiple(launch, checks.WARP_SIZE, "block reductions")
        warps = 1 if launch.threads is None else launch.threads // checks.WARP_SIZE
        if scratch.numel < warps:
            raise RuleError(f"operand 'scratch' holds {scratch.numel} elements, but the block's "
                            f"{warps} warps need one each; allocate at least {warps}")


WARP_OPS = (ShflSyncOp, VoteOp, ActiveMaskOp, WarpReduceOp, CtaReduceOp)
