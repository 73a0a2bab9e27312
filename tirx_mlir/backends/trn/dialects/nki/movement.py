"""nki ops that move or fill data: DMA (load, store, dma_copy), tensor_copy, memset, iota,
identity. Semantics: the NKI ISA reference (aws-neuron-sdk `nki/api/nki/isa/__init__.py`); the interpreter (backends/trn/interpreter.py) is the
executable definition."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, StringAttr
from xdsl.irdl import AnyAttr, operand_def, opt_prop_def

from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.backends.trn.dialects.nki.base import NkiOp
from tirx_mlir.backends.trn.memory import HBM, ON_CHIP, SBUF
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx.attributes import BufferType

ENGINE_CHOICES = ("vector", "scalar", "gpsimd")


class _DmaOp(NkiOp):
    """A DMA transfer ``dst = cast(src)``: both tiles hold the same elements (shapes equal once
    unit dims are dropped); a dtype change converts through fp32. An HBM source of one row
    ``[1, F...]`` into an on-chip ``[P, F...]`` is a partition broadcast: every partition
    receives the row (the DMA reads HBM with a stride-0 partition access pattern)."""

    ENGINE: ClassVar[str] = "dma"
    DST_SCOPES: ClassVar[tuple[str, ...]] = (HBM, SBUF)
    SRC_SCOPES: ClassVar[tuple[str, ...]] = (HBM, SBUF)
    dst = operand_def(BufferType)
    src = operand_def(BufferType)

    def verify_nki(self, limits: TrnLimits) -> None:
        checks.check_scope("dst", self.dst, self.DST_SCOPES, self._scope_hint())
        checks.check_scope("src", self.src, self.SRC_SCOPES, self._scope_hint())
        if self.is_partition_broadcast():
            return
        rules.check_same_elements("the DMA endpoints", checks.buffer_type(self.dst).get_shape(),
                                  checks.buffer_type(self.src).get_shape())

    def is_partition_broadcast(self) -> bool:
        """An HBM row ``[1, F...]`` copied to every partition of an on-chip ``[P, F...]``."""
        dst, src = checks.buffer_type(self.dst), checks.buffer_type(self.src)
        d, s = dst.get_shape(), src.get_shape()
        return (src.scope_name == HBM and dst.scope_name in ON_CHIP and len(d) == len(s) >= 2
                and s[0] == 1 < d[0] and rules.squeeze(s[1:]) == rules.squeeze(d[1:]))

    def _scope_hint(self) -> str:
        return (f"{self.name} moves {' or '.join(self.SRC_SCOPES)} -> "
                f"{' or '.join(self.DST_SCOPES)} (DMA cannot read or write PSUM: tensor_copy "
                f"PSUM to SBUF first)")


@irdl_op_definition
class LoadOp(_DmaOp):
    """HBM -> SBUF DMA: ``dst = src``.

    ``nki.load %tile, %A_view : !tirx.buffer<128x512xf32, trn.sbuf>,
    !tirx.buffer<128x512xf32, global>``
    (legacy ``dst[...] = nl.load(src)``; current ``nisa.dma_copy(dst, src)``)
    """

    name = "nki.load"
    DST_SCOPES: ClassVar = (SBUF,)
    SRC_SCOPES: ClassVar = (HBM,)


@irdl_op_definition
class StoreOp(_DmaOp):
    """SBUF -> HBM DMA: ``dst = src``.

    ``nki.store %B_view, %tile : !tirx.buffer<128x512xf32, global>,
    !tirx.buffer<128x512xf32, trn.sbuf>``
    (legacy ``nl.store(dst, src)``; current ``nisa.dma_copy(dst, src)``)
    """

    name = "nki.store"
    DST_SCOPES: ClassVar = (HBM,)
    SRC_SCOPES: ClassVar = (SBUF,)


@irdl_op_definition
class DmaCopyOp(_DmaOp):
    """Any DMA between HBM and SBUF (HBM<->SBUF, SBUF<->SBUF, HBM<->HBM): ``dst = src``.

    ``nki.dma_copy %dst, %src : !tirx.buffer<64x512xbf16, trn.sbuf>,
    !tirx.buffer<64x512xbf16, trn.sbuf>``
    """

    name = "nki.dma_copy"


@irdl_op_definition
class TensorCopyOp(NkiOp):
    """On-chip copy ``F(dst) = cast(F(src))`` between SBUF and PSUM (either direction): same
    partitions, same free-element count. ``engine`` picks vector (default), scalar or gpsimd
    (GpSimd cannot touch PSUM).

    ``nki.tensor_copy %out, %acc : !tirx.buffer<128x512xbf16, trn.sbuf>,
    !tirx.buffer<128x512xf32, trn.psum>``
    """

    name = "nki.tensor_copy"
    KEYWORDS: ClassVar = {"engine": "name"}
    dst = operand_def(BufferType)
    src = operand_def(BufferType)
    engine = opt_prop_def(StringAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        engine = self.name_prop("engine", "vector")
        rules.check_func("tensor_copy engine", engine, ENGINE_CHOICES)
        allowed = (SBUF,) if engine == "gpsimd" else ON_CHIP
        why = "GpSimd cannot access PSUM" if engine == "gpsimd" else \
            "tensor_copy moves data on chip (use nki.load/store/dma_copy for HBM)"
        checks.check_scope("dst", self.dst, allowed, why)
        checks.check_scope("src", self.src, allowed, why)
        checks.check_same_partitions_and_free([("dst", self.dst), ("src", self.src)])


@irdl_op_definition
class MemsetOp(NkiOp):
    """Fill a tile with a scalar, cast to its element type: ``dst = value``. The value is an
    f32 scalar for a float tile and an integer scalar for an integer tile.

    ``nki.memset %acc, %zero : !tirx.buffer<128x512xf32, trn.psum>, f32``
    """

    name = "nki.memset"
    SCALARS: ClassVar = ("value",)
    KEYWORDS: ClassVar = {"engine": "name"}
    dst = operand_def(BufferType)
    value = operand_def(AnyAttr())
    engine = opt_prop_def(StringAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        engine = self.name_prop("engine", "vector")
        rules.check_func("memset engine", engine, ("vector", "gpsimd"))
        checks.check_scope("dst", self.dst, (SBUF,) if engine == "gpsimd" else ON_CHIP,
                           "memset fills an on-chip tile" if engine != "gpsimd" else
                           "GpSimd cannot access PSUM")
        if checks.is_tile(self.value):
            raise rules.RuleError("the memset value must be a scalar, not a tile")
        dst_int = dtypes.is_integer(checks.buffer_type(self.dst).element_type)
        value_t = self.value.type
        value_int = not (dtypes.is_supported(value_t) and dtypes.is_float(value_t))
        if dst_int != value_int:
            raise rules.RuleError(
                f"the value's type {value_t} must match the tile's element kind "
                f"({'integer' if dst_int else 'float'}); NKI requires memset values of the "
                f"tile's dtype")


@irdl_op_definition
class IotaOp(NkiOp):
    """GpSimd index generator, SBUF only: for partition p and pattern indices (i_1..i_k),
    ``dst[p, flat(i)] = offset + p * channel_multiplier + sum(i_d * step_d)`` computed in int32
    and cast. The pattern's element count equals dst's free count.

    ``nki.iota %idx pattern [[1, 512]] channel_multiplier 512 : !tirx.buffer<128x512xi32,
    trn.sbuf>``
    """

    name = "nki.iota"
    ENGINE: ClassVar[str] = "gpsimd"
    KEYWORDS: ClassVar = {"pattern": "pattern", "offset": "int", "channel_multiplier": "int"}
    dst = operand_def(BufferType)
    pattern = opt_prop_def(DenseArrayBase)
    offset = opt_prop_def(IntegerAttr)
    channel_multiplier = opt_prop_def(IntegerAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        checks.check_scope("dst", self.dst, (SBUF,), "iota runs on GpSimd, which uses SBUF only")
        checks.check_pattern("iota pattern", self.pattern_prop(), checks.free_size(self.dst))


@irdl_op_definition
class IdentityOp(NkiOp):
    """An identity matrix in SBUF: ``dst = I_n`` for a ``[n, n]`` tile (the moving operand of
    transpose-by-matmul).

    ``nki.identity %eye : !tirx.buffer<128x128xbf16, trn.sbuf>``
    """

    name = "nki.identity"
    dst = operand_def(BufferType)

    def verify_nki(self, limits: TrnLimits) -> None:
        checks.check_scope("dst", self.dst, (SBUF,), "identity builds an SBUF tile")
        shape = checks.buffer_type(self.dst).get_shape()
        if len(shape) != 2 or shape[0] != shape[1]:
            raise rules.RuleError(f"identity needs a square [n, n] tile, got {list(shape)}")


MOVEMENT_OPS = (LoadOp, StoreOp, DmaCopyOp, TensorCopyOp, MemsetOp, IotaOp, IdentityOp)
