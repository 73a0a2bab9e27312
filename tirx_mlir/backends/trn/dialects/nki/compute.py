"""VectorE / ScalarE / GpSimd compute instructions (NKI ISA reference: aws-neuron-sdk `nki/api/nki/isa/__init__.py`).

Common rules (checked here, defined in checks.py): operands in SBUF or PSUM, partition dim
first; dst and every full-tile input have equal partitions and equal free-element counts; at
most one tensor input in PSUM; per-partition operands (bias, scale, operand0...) are f32
scalars or (P, 1) tiles; arithmetic runs in fp32 and rounds to dst's dtype.
"""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.dialects.builtin import (DenseArrayBase, FloatAttr, IndexType, IntegerAttr, StringAttr,
                                   UnitAttr)
from xdsl.ir import SSAValue
from xdsl.irdl import (AnyAttr, AttrSizedOperandSegments, operand_def,
                       opt_operand_def, opt_prop_def, prop_def)

from tirx_mlir.backends.trn.dialects.nki import checks, tables
from tirx_mlir.backends.trn.dialects.nki.base import NkiOp
from tirx_mlir.backends.trn.memory import ON_CHIP, SBUF
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx.attributes import BufferType

ANY = AnyAttr()
ON_CHIP_WHY = "compute instructions read and write SBUF or PSUM (DMA HBM tiles in first)"


def alu(what: str, name: str | None, *, binary: bool = False, reducible: bool = False,
        arith_only: bool = False) -> tables.AluOp:
    """The ALU operator ``name`` after checking it suits ``what``."""
    if name is None:
        raise rules.RuleError(f"{what} is required")
    rules.check_func(what, name, tuple(tables.ALU_OPS))
    op = tables.ALU_OPS[name]
    if binary and op.is_unary:
        raise rules.RuleError(f"{what} '{name}' is unary; this operand slot needs a binary "
                              f"operator")
    if reducible and not op.reducible:
        raise rules.RuleError(f"{what} '{name}' cannot reduce; use one of "
                              f"{', '.join(tables.REDUCE_OPS)}")
    if arith_only and op.kind != tables.ARITH:
        raise rules.RuleError(f"{what} '{name}' is a bit-vector operator; this instruction "
                              f"does arithmetic only")
    return op


def _on_chip(op: NkiOp, *names: str) -> None:
    for name in names:
        value = getattr(op, name)
        if checks.is_tile(value):
            checks.check_scope(name, value, ON_CHIP, ON_CHIP_WHY)


def _gpsimd_sbuf(op: NkiOp, why: str) -> None:
    for name, value in op.named_operands().items():
        if checks.is_tile(value):
            checks.check_scope(name, value, (SBUF,), why)


def _full_tiles(op: NkiOp, *names: str) -> None:
    checks.check_same_partitions_and_free([(n, getattr(op, n)) for n in names])


# --- ScalarE ------------------------------------------------------------------------------------


class _ActivationBase(NkiOp):
    ENGINE: ClassVar[str] = "scalar"
    KEYWORDS: ClassVar = {"func": "name"}
    SCALARS: ClassVar = ("bias", "scale")
    SYNTAX_ORDER: ClassVar = ("func", "bias", "scale")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    func = prop_def(StringAttr)

    def verify_activation(self, limits: TrnLimits) -> None:
        func = self.func.data
        rules.check_func("activation function", func, tuple(tables.ACTIVATIONS))
        nparts = checks.partitions(self.dst)  # type: ignore[attr-defined]
        bias: SSAValue | None = self.bias  # type: ignore[attr-defined]
        if bias is not None and not checks.is_tile(bias) and not limits.act_bias_scalar_ok:
            raise rules.RuleError(f"a scalar bias needs NeuronCore-v3 or later ({limits.source});"
                                  f" pass a ({nparts}, 1) bias tile")
        checks.check_vector_operand("bias", bias, nparts, fp32=False)
        checks.check_vector_operand("scale", self.scale, nparts)  # type: ignore[attr-defined]
        if func == "reciprocal" and bias is not None and limits.nc_version <= 2:
            raise rules.RuleError("activation reciprocal takes no bias on NeuronCore-v2")


@irdl_op_definition
class ActivationOp(_ActivationBase):
    """ScalarE ``dst = func(src * scale + bias)`` in fp32, cast to dst. ``func`` is one of the
    activation table (tables.ACTIVATIONS: exp, sqrt, gelu, silu, ...); ``scale`` (default 1) is
    an f32 scalar or an f32 (P, 1) tile; ``bias`` (default 0) a (P, 1) tile, or a scalar on
    NeuronCore-v3+.

    ``nki.activation %y, %x func exp bias %negmax scale %s : !tirx.buffer<128x512xf32,
    trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>, !tirx.buffer<128x1xf32, trn.sbuf>, f32``
    """

    name = "nki.activation"
    dst = operand_def(BufferType)
    src = operand_def(BufferType)
    bias = opt_operand_def(ANY)
    scale = opt_operand_def(ANY)

    def verify_nki(self, limits: TrnLimits) -> None:
        _on_chip(self, "dst", "src", "bias", "scale")
        _full_tiles(self, "dst", "src")
        self.verify_activation(limits)


@irdl_op_definition
class ActivationReduceOp(_ActivationBase):
    """``dst = func(src * scale + bias)`` and ``reduce_res[p, 0] = sum(dst[p, :])`` (the sum of
    the fp32 results, before the cast), one instruction.

    ``nki.activation_reduce %e, %rowsum, %x func exp bias %negmax : ...``
    """

    name = "nki.activation_reduce"
    DSTS: ClassVar = ("dst", "reduce_res")
    dst = operand_def(BufferType)
    reduce_res = operand_def(BufferType)
    src = operand_def(BufferType)
    bias = opt_operand_def(ANY)
    scale = opt_operand_def(ANY)

    def verify_nki(self, limits: TrnLimits) -> None:
        _on_chip(self, "dst", "reduce_res", "src", "bias", "scale")
        _full_tiles(self, "dst", "src")
        _check_reduce_res(self.reduce_res, checks.partitions(self.dst))
        self.verify_activation(limits)


def _check_reduce_res(value: SSAValue, nparts: int) -> None:
    if checks.partitions(value) != nparts or checks.free_size(value) != 1:
        raise rules.RuleError(f"reduce_res must be a ({nparts}, 1) tile (one value per "
                              f"partition), got {list(checks.buffer_type(value).get_shape())}")


# --- VectorE ------------------------------------------------------------------------------------


@irdl_op_definition
class ReciprocalOp(NkiOp):
    """VectorE ``dst = 1 / src`` in fp32, cast to dst (more exact than activation reciprocal).

    ``nki.reciprocal %r, %s : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32,
    trn.sbuf>``
    """

    name = "nki.reciprocal"
    dst = operand_def(BufferType)
    src = operand_def(BufferType)

    def verify_nki(self, limits: TrnLimits) -> None:
        _on_chip(self, "dst", "src")
        _full_tiles(self, "dst", "src")


@irdl_op_definition
class TensorReduceOp(NkiOp):
    """Reduce trailing free axes: ``dst = [-]op-reduce(src, axes)`` (fp32 for arithmetic
    operators). ``axes`` are the last contiguous free dims of src (negative axes count from the
    end); dst has src's partitions and as many free elements as the kept dims (``keepdims``
    tells the printers to keep the reduced dims as 1, which the (P, 1) result usually wants).
    ``negate`` (arithmetic operators only) negates the result.

    ``nki.tensor_reduce %m, %x op maximum axes [1] negate keepdims :
    !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>``
    """

    name = "nki.tensor_reduce"
    KEYWORDS: ClassVar = {"op": "name", "axes": "ints", "negate": "flag", "keepdims": "flag"}
    dst = operand_def(BufferType)
    src = operand_def(BufferType)
    op = prop_def(StringAttr)
    axes = prop_def(DenseArrayBase)
    negate = opt_prop_def(UnitAttr)
    keepdims = opt_prop_def(UnitAttr)

    def normalized_axes(self) -> tuple[int, ...]:
        return rules.normalize_axes(self.ints_prop("axes"),
                                    checks.buffer_type(self.src).rank)

    def verify_nki(self, limits: TrnLimits) -> None:
        _on_chip(self, "dst", "src")
        op = alu("tensor_reduce op", self.op.data, reducible=True)
        if self.negate is not None and op.kind != tables.ARITH:
            raise rules.RuleError(f"negate applies to arithmetic operators, not '{op.name}'")
        if op.kind == tables.BITVEC:
            checks.check_integer_tiles(f"'{op.name}'", ("dst", self.dst), ("src", self.src))
        src = checks.buffer_type(self.src).get_shape()
        axes = self.normalized_axes()
        if 0 in axes:
            raise rules.RuleError("tensor_reduce reduces free axes only; axis 0 is the "
                                  "partition dim (transpose, or matmul with a ones vector, to "
                                  "reduce across partitions)")
        if axes != tuple(range(len(src) - len(axes), len(src))):
            raise rules.RuleError(f"axes {list(self.ints_prop('axes'))} must be the trailing "
                                  f"free dims of the rank-{len(src)} source (e.g. "
                                  f"[{len(src) - 1}]); permute the view first")
        kept = rules.reduced_shape(src, axes, keepdims=False)
        have = checks.buffer_type(self.dst).get_shape()
        if have[0] != src[0] or math.prod(have[1:]) != math.prod(kept[1:]):
            raise rules.RuleError(f"reducing {list(src)} over axes {list(axes)} leaves "
                                  f"{list(kept)}: dst needs {src[0]} partitions and "
                                  f"{math.prod(kept[1:])} free elements, but it is "
                                  f"{list(have)}")


@irdl_op_definition
class TensorTensorOp(NkiOp):
    """Elementwise ``F(dst) = op(F(lhs), F(rhs))`` over equal partitions and free counts (no
    broadcasting: use tensor_scalar for (P, 1) operands). Arithmetic in fp32; bit-vector
    operators on integer tiles; ``power`` runs on GpSimd (SBUF only). At most one input in PSUM.

    ``nki.tensor_tensor %acc, %acc, %part op add : !tirx.buffer<128x512xf32, trn.sbuf>,
    !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.psum>``
    """

    name = "nki.tensor_tensor"
    KEYWORDS: ClassVar = {"op": "name"}
    dst = operand_def(BufferType)
    lhs = operand_def(BufferType)
    rhs = operand_def(BufferType)
    op = prop_def(StringAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        op = alu("tensor_tensor op", self.op.data, binary=True)
        _on_chip(self, "dst", "lhs", "rhs")
        _full_tiles(self, "dst", "lhs", "rhs")
        checks.check_not_both_psum(("lhs", self.lhs), ("rhs", self.rhs))
        if op.name in tables.GPSIMD_ALU_OPS:
            _gpsimd_sbuf(self, f"'{op.name}' runs on GpSimd, which uses SBUF only")
        if op.kind == tables.BITVEC:
            checks.check_integer_tiles(f"'{op.name}'", ("dst", self.dst), ("lhs", self.lhs),
                                       ("rhs", self.rhs))


@irdl_op_definition
class TensorScalarOp(NkiOp):
    """``t = data op0 operand0`` (``operand0 op0 data`` with ``reverse0``), then optionally
    ``dst = t op1 operand1`` (``operand1 op1 t`` with ``reverse1``), in one instruction. The
    operands are f32 scalars or f32 (P, 1) tiles broadcast along the free elements; op0 and op1
    are both arithmetic or both bit-vector (then integers). A unary operator ignores its
    operand.

    ``nki.tensor_scalar %y, %x, %mean op0 subtract operand1 %rstd op1 multiply :
    !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>,
    !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x1xf32, trn.sbuf>``
    """

    name = "nki.tensor_scalar"
    KEYWORDS: ClassVar = {"op0": "name", "reverse0": "flag", "op1": "name", "reverse1": "flag"}
    SCALARS: ClassVar = ("operand0", "operand1")
    SYNTAX_ORDER: ClassVar = ("op0", "reverse0", "operand1", "op1", "reverse1")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    dst = operand_def(BufferType)
    data = operand_def(BufferType)
    operand0 = operand_def(ANY)
    operand1 = opt_operand_def(ANY)
    op0 = prop_def(StringAttr)
    reverse0 = opt_prop_def(UnitAttr)
    op1 = opt_prop_def(StringAttr)
    reverse1 = opt_prop_def(UnitAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        _on_chip(self, "dst", "data", "operand0", "operand1")
        _full_tiles(self, "dst", "data")
        op0 = alu("tensor_scalar op0", self.op0.data)
        if (self.op1 is None) != (self.operand1 is None):
            raise rules.RuleError("op1 and operand1 come together: give both or neither")
        if self.reverse1 is not None and self.op1 is None:
            raise rules.RuleError("reverse1 needs op1")
        kinds = {op0.kind}
        if self.op1 is not None:
            kinds.add(alu("tensor_scalar op1", self.op1.data).kind)
        if len(kinds) > 1:
            raise rules.RuleError("op0 and op1 must both be arithmetic or both bit-vector")
        bitvec = kinds == {tables.BITVEC}
        nparts = checks.partitions(self.dst)
        checks.check_vector_operand("operand0", self.operand0, nparts, integer=bitvec)
        checks.check_vector_operand("operand1", self.operand1, nparts, integer=bitvec)
        if bitvec:
            checks.check_integer_tiles("a bit-vector tensor_scalar", ("dst", self.dst),
                                       ("data", self.data))


@irdl_op_definition
class TensorScalarReduceOp(NkiOp):
    """``dst = data op0 operand0`` (``reverse0``: ``operand0 op0 data``) and
    ``reduce_res[p, 0] = reduce-op over dst[p, :]`` (of the fp32 results). Arithmetic only;
    ``reduce`` is add, multiply, maximum or minimum. (Hardware documents reverse0 as not yet
    supported; the interpreter implements it.)

    ``nki.tensor_scalar_reduce %y, %s, %x, %c op0 multiply reduce add : ...``
    """

    name = "nki.tensor_scalar_reduce"
    DSTS: ClassVar = ("dst", "reduce_res")
    KEYWORDS: ClassVar = {"op0": "name", "reduce": "name", "reverse0": "flag"}
    SCALARS: ClassVar = ("operand0",)
    dst = operand_def(BufferType)
    reduce_res = operand_def(BufferType)
    data = operand_def(BufferType)
    operand0 = operand_def(ANY)
    op0 = prop_def(StringAttr)
    reduce = prop_def(StringAttr)
    reverse0 = opt_prop_def(UnitAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        _on_chip(self, "dst", "reduce_res", "data", "operand0")
        _full_tiles(self, "dst", "data")
        alu("tensor_scalar_reduce op0", self.op0.data, binary=True, arith_only=True)
        rules.check_func("tensor_scalar_reduce reduce", self.reduce.data,
                         tuple(tables.REDUCE_IDENTITY))
        nparts = checks.partitions(self.dst)
        checks.check_vector_operand("operand0", self.operand0, nparts)
        _check_reduce_res(self.reduce_res, nparts)


@irdl_op_definition
class ScalarTensorTensorOp(NkiOp):
    """``t = data op0 operand0`` (operand0 an f32 scalar or (P, 1) tile), then
    ``dst = t op1 operand1`` (operand1 a full tile); ``reverse0``/``reverse1`` swap each step's
    sides. Arithmetic only; data and operand1 are not both in PSUM.

    ``nki.scalar_tensor_tensor %o, %x, %a, %b op0 subtract op1 multiply : ...``
    """

    name = "nki.scalar_tensor_tensor"
    KEYWORDS: ClassVar = {"op0": "name", "op1": "name", "reverse0": "flag", "reverse1": "flag"}
    SCALARS: ClassVar = ("operand0",)
    dst = operand_def(BufferType)
    data = operand_def(BufferType)
    operand0 = operand_def(ANY)
    operand1 = operand_def(BufferType)
    op0 = prop_def(StringAttr)
    op1 = prop_def(StringAttr)
    reverse0 = opt_prop_def(UnitAttr)
    reverse1 = opt_prop_def(UnitAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        _on_chip(self, "dst", "data", "operand0", "operand1")
        _full_tiles(self, "dst", "data", "operand1")
        alu("scalar_tensor_tensor op0", self.op0.data, binary=True, arith_only=True)
        alu("scalar_tensor_tensor op1", self.op1.data, binary=True, arith_only=True)
        checks.check_vector_operand("operand0", self.operand0, checks.partitions(self.dst))
        checks.check_not_both_psum(("data", self.data), ("operand1", self.operand1))


@irdl_op_definition
class SelectOp(NkiOp):
    """Elementwise ``dst = predicate != 0 ? on_true : on_false``; the predicate is an integer
    tile, on_false a full tile or a scalar.

    ``nki.select %y, %mask, %x, %neg_inf : !tirx.buffer<128x512xf32, trn.sbuf>,
    !tirx.buffer<128x512xui8, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>, f32``
    """

    name = "nki.select"
    SCALARS: ClassVar = ("on_false",)
    dst = operand_def(BufferType)
    predicate = operand_def(BufferType)
    on_true = operand_def(BufferType)
    on_false = operand_def(ANY)

    def verify_nki(self, limits: TrnLimits) -> None:
        _on_chip(self, "dst", "predicate", "on_true", "on_false")
        _full_tiles(self, "dst", "predicate", "on_true", "on_false")
        checks.check_integer_tiles("the select predicate", ("predicate", self.predicate))
        if not checks.is_tile(self.on_false):
            dst_float = dtypes.is_float(checks.buffer_type(self.dst).element_type)
            if dst_float and checks.dtype_name(self.on_false) != "f32":
                raise rules.RuleError(f"a scalar on_false must be f32, got {self.on_false.type}")
        checks.check_not_both_psum(("predicate", self.predicate), ("on_true", self.on_true),
                                   ("on_false", self.on_false))


# --- GpSimd -------------------------------------------------------------------------------------


@irdl_op_definition
class AffineSelectOp(NkiOp):
    """GpSimd ``dst[p, i] = cmp(offset + p * channel_multiplier + sum(i_d * step_d), 0) ?
    on_true[p, i] : on_false`` where (i_1..i_k) walk the access pattern over the free elements
    and ``cmp`` is greater, greater_equal, equal or not_equal. SBUF only. A causal mask
    ``q >= k`` on a [128, 512] tile is ``pattern [[-1, 512]] channel_multiplier 1 cmp
    greater_equal``. ``offset_index %v`` (an index value: loop variables, scope ids) adds to the
    constant offset; NKI computes the offset at trace time (legacy: an affine term of the
    predicate), so the value must be affine in loop variables and program ids.

    ``nki.affine_select %s, %qk pattern [[-1, 512]] channel_multiplier 1 cmp greater_equal
    on_false -inf : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, trn.sbuf>``
    """

    name = "nki.affine_select"
    ENGINE: ClassVar[str] = "gpsimd"
    KEYWORDS: ClassVar = {"pattern": "pattern", "offset": "int", "channel_multiplier": "int",
                          "cmp": "name", "on_false": "float"}
    SCALARS: ClassVar = ("offset_index",)
    dst = operand_def(BufferType)
    on_true = operand_def(BufferType)
    offset_index = opt_operand_def(IndexType)
    pattern = opt_prop_def(DenseArrayBase)
    offset = opt_prop_def(IntegerAttr)
    channel_multiplier = opt_prop_def(IntegerAttr)
    cmp = prop_def(StringAttr)
    on_false = prop_def(FloatAttr)

    def verify_nki(self, limits: TrnLimits) -> None:
        _gpsimd_sbuf(self, "affine_select runs on GpSimd, which uses SBUF only")
        _full_tiles(self, "dst", "on_true")
        rules.check_func("affine_select cmp", self.cmp.data, tuple(tables.AFFINE_SELECT_CMPS))
        checks.check_pattern("affine_select pattern", self.pattern_prop(),
                             checks.free_size(self.dst))


COMPUTE_OPS = (ActivationOp, ActivationReduceOp, ReciprocalOp, TensorReduceOp, TensorTensorOp,
               TensorScalarOp, TensorScalarReduceOp, ScalarTensorTensorOp, SelectOp,
               AffineSelectOp)
