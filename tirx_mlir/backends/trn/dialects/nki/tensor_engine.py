"""TensorE instructions: matmul and transpose (NKI ISA ``nc_matmul``, ``nc_transpose``: aws-neuron-sdk `nki/api/nki/isa/__init__.py`)."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerType, StringAttr, UnitAttr
from xdsl.irdl import (AttrSizedOperandSegments, operand_def,
                       opt_operand_def, opt_prop_def)

from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.backends.trn.dialects.nki.base import NkiOp
from tirx_mlir.backends.trn.memory import ADDR_ATTR, ON_CHIP, PSUM, SBUF
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.access import resolve_access


@irdl_op_definition
class MatmulOp(NkiOp):
    """TensorE matmul ``dst[M, N] (+)= stationary[K, M].T @ moving[K, N]`` with fp32
    accumulation. K (the contraction) is the partition dim of both SBUF operands; the free dims
    of each are flattened (M <= 128, N <= 512, K <= 128). The PSUM output is [M, N] fp32 and
    stays inside one 2 KiB bank.

    Accumulation: without a flag the result overwrites dst; ``accumulate`` always adds to dst;
    ``accumulate_if %c`` (an i1) adds when %c holds, so a K loop writes
    ``accumulate_if (k > 0)``: the first step overwrites, later steps accumulate.

    ``nki.matmul %acc, %lhsT, %rhs accumulate_if %not_first : !tirx.buffer<128x512xf32,
    trn.psum>, !tirx.buffer<128x128xbf16, trn.sbuf>, !tirx.buffer<128x512xbf16, trn.sbuf>, i1``
    """

    name = "nki.matmul"
    ENGINE: ClassVar[str] = "tensor"
    KEYWORDS: ClassVar = {"accumulate": "flag"}
    SCALARS: ClassVar = ("accumulate_if",)
    VERIFY_ALLOC_ATTRS: ClassVar = (ADDR_ATTR,)  # the PSUM bank check reads the address
    VERIFY_VIEW_FACTS: ClassVar = staticmethod(checks.psum_view_facts)  # and the offsets
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    dst = operand_def(BufferType)
    stationary = operand_def(BufferType)
    moving = operand_def(BufferType)
    accumulate_if = opt_operand_def(IntegerType)
    accumulate = opt_prop_def(UnitAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        tensor_engine = "TensorE reads SBUF and writes PSUM"
        checks.check_scope("stationary", self.stationary, (SBUF,), tensor_engine)
        checks.check_scope("moving", self.moving, (SBUF,), tensor_engine)
        checks.check_scope("dst", self.dst, (PSUM,), tensor_engine)
        if self.accumulate_if is not None:
            if self.accumulate is not None:
                raise rules.RuleError("give either `accumulate` or `accumulate_if %cond`, not "
                                      "both")
            if self.accumulate_if.type != IntegerType(1):
                raise rules.RuleError(f"accumulate_if takes an i1 condition, got "
                                      f"{self.accumulate_if.type}")
        k, m, n = self.dims()
        if checks.partitions(self.moving) != k:
            raise rules.RuleError(f"stationary and moving contract over their partition dim, "
                                  f"but they span {k} and {checks.partitions(self.moving)} "
                                  f"partitions")
        for what, value, limit in (("contraction K", k, limits.matmul_k_max),
                                   ("stationary free size M", m, limits.matmul_stationary_fmax),
                                   ("moving free size N", n, limits.matmul_moving_fmax)):
            if value > limit:
                raise rules.RuleError(f"{what} is {value}; TensorE allows at most {limit} "
                                      f"({limits.source}): tile the matmul")
        dst_p, dst_f = checks.partitions(self.dst), checks.free_size(self.dst)
        if (dst_p, dst_f) != (m, n):
            raise rules.RuleError(f"the output must be [M={m} partitions, N={n} free] "
                                  f"(stationary.T @ moving), but dst spans {dst_p} partitions "
                                  f"x {dst_f} free elements")
        self._verify_dtypes(limits)

    def verify_nki_views(self, limits: TrnLimits) -> None:
        offset = resolve_access(self.dst).static_offset()
        if offset is not None:
            checks.check_psum_bank("dst", self.dst, offset, limits)

    def dims(self) -> tuple[int, int, int]:
        """(K, M, N)."""
        return (checks.partitions(self.stationary), checks.free_size(self.stationary),
                checks.free_size(self.moving))

    def _verify_dtypes(self, limits: TrnLimits) -> None:
        names = {n: checks.dtype_name(v) for n, v in
                 (("stationary", self.stationary), ("moving", self.moving))}
        for name, dt in names.items():
            if dt not in checks.TENSOR_ENGINE_DTYPES:
                raise rules.RuleError(f"TensorE multiplies {', '.join(checks.TENSOR_ENGINE_DTYPES)}"
                                      f"; operand '{name}' holds {dt}: convert it first")
        if "f32" in names.values() and set(names.values()) != {"f32"}:
            raise rules.RuleError(f"an f32 matmul operand needs an f32 partner, got stationary "
                                  f"{names['stationary']} and moving {names['moving']}")
        out = checks.dtype_name(self.dst)
        allowed = ("f32", "bf16") if limits.nc_version >= 4 else ("f32",)
        if out not in allowed:
            raise rules.RuleError(f"the PSUM output holds {out}; matmul writes "
                                  f"{' or '.join(allowed)} on NeuronCore-v{limits.nc_version}")


@irdl_op_definition
class TransposeOp(NkiOp):
    """``dst = src.T`` for a [P, F] tile (free dims flattened first): dst is [F, P].

    ``engine tensor`` (the default when dst is in PSUM and src in SBUF) runs on TensorE, up to
    128 x 128; ``engine vector`` transposes up to 32 x 32, SBUF or PSUM either way. dst keeps
    src's dtype (TensorE may also write f32).

    ``nki.transpose %vT, %v : !tirx.buffer<64x128xf32, trn.psum>,
    !tirx.buffer<128x64xf32, trn.sbuf>``
    """

    name = "nki.transpose"
    KEYWORDS: ClassVar = {"engine": "name"}
    dst = operand_def(BufferType)
    src = operand_def(BufferType)
    engine = opt_prop_def(StringAttr)

    def engine_name(self) -> str:
        if self.engine is not None:
            return self.engine.data
        tensor = checks.scope(self.dst) == PSUM and checks.scope(self.src) == SBUF
        return "tensor" if tensor else "vector"

    def verify_nki(self, limits: TrnLimits) -> None:
        engine = self.engine_name()
        rules.check_func("transpose engine", engine, ("tensor", "vector"))
        if engine == "tensor":
            checks.check_scope("src", self.src, (SBUF,), "TensorE reads SBUF")
            checks.check_scope("dst", self.dst, (PSUM,), "TensorE writes PSUM")
            limit = min(limits.matmul_k_max, limits.matmul_stationary_fmax)
        else:
            checks.check_scope("src", self.src, ON_CHIP, "transpose works on chip")
            checks.check_scope("dst", self.dst, ON_CHIP, "transpose works on chip")
            limit = limits.vector_transpose_max
        p, f = checks.partitions(self.src), checks.free_size(self.src)
        if p > limit or f > limit:
            raise rules.RuleError(f"a {engine}-engine transpose handles at most {limit} x "
                                  f"{limit}, got [{p}, {f}]: tile it")
        if (checks.partitions(self.dst), checks.free_size(self.dst)) != (f, p):
            raise rules.RuleError(f"transposing [{p}, {f}] gives [{f}, {p}], but dst is "
                                  f"{list(checks.buffer_type(self.dst).get_shape())}")
        src_t, dst_t = checks.dtype_name(self.src), checks.dtype_name(self.dst)
        if dst_t != src_t and not (engine == "tensor" and dst_t == "f32"):
            raise rules.RuleError(f"dst holds {dst_t} but src holds {src_t}; a transpose keeps "
                                  f"the dtype")


TENSOR_ENGINE_OPS = (MatmulOp, TransposeOp)
