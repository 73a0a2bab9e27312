"""The 31 TIRx tile primitives (apache/tvm `src/tirx/op/tirx.cc`) as tirx ops.

Each op's docstring gives its meaning and an example; rules shared with the interpreter and the
dispatch predicates live in rules.py. Operands are buffers or views (``!tirx.buffer``), or
scalars where TIRx accepts a scalar.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (AffineSetAttr, DenseArrayBase, FloatAttr, IndexType, StringAttr,
                                   UnitAttr)
from xdsl.irdl import (AnyAttr, AttrSizedOperandSegments, irdl_op_definition, operand_def,
                       opt_operand_def, opt_prop_def, prop_def, region_def, traits_def,
                       var_operand_def)
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import enclosing_kernel
from tirx_mlir.dialects.tirx.tile_base import TileOp, operand_shape

ANY = AnyAttr()


def _verify_predicate(what: str, aset, rank: int, symbols: int) -> None:
    """A ``where`` set has one dim per destination dim and one symbol per ``symbols`` value."""
    if aset.num_dims != rank or aset.num_symbols != symbols:
        raise rules.RuleError(f"{what} predicate has {aset.num_dims} dims and {aset.num_symbols} "
                              f"symbols; it needs one dim per destination dim ({rank}) and one "
                              f"symbol per value in `symbols` ({symbols})")


def _buf(op: TileOp, name: str) -> BufferType:
    t = getattr(op, name).type
    assert isinstance(t, BufferType)
    return t


def _shape(op: TileOp, name: str):
    value = getattr(op, name)
    return None if value is None else operand_shape(value)


def _check_float(op: TileOp, *names: str) -> None:
    for name in names:
        value = getattr(op, name)
        if value is None:
            continue
        t = value.type.element_type if isinstance(value.type, BufferType) else value.type
        if not (dtypes.is_supported(t) and dtypes.is_float(t)):
            raise rules.RuleError(f"{op.name} computes in floating point; operand '{name}' has "
                                  f"type {t}; cast it first")


# --- data movement ------------------------------------------------------------------------------


WORKSPACE_DOC = """A ``workspace`` is scratch the caller gives a tile op instead of letting the
backend's variant allocate it (TIRx's ``workspace``): at most one buffer, not one of the op's
other operands. The op may overwrite it; its contents afterwards are unspecified (the tile-level
semantics do not read or write it). A variant that needs scratch views the workspace as the tile
it needs, after checking its scope, element type and size (Trainium: docs/trn.md, Workspaces);
a variant that needs none ignores it."""


class _CopyLike(TileOp):
    dst = operand_def(BufferType)
    src = operand_def(BufferType)

    def verify_tile(self) -> None:
        rules.check_copy(self.name, _buf(self, "dst").get_shape(), _buf(self, "src").get_shape())


@irdl_op_definition
class CopyOp(_CopyLike):
    """dst = src, element by element (converting the element type when they differ); a source
    that broadcasts to dst (``[1, N]`` into ``[P, N]``) is copied into every row.

    ``tirx.copy cta %smem, %gmem : !tirx.buffer<32x32xf32, shared>, !tirx.buffer<32x32xf32, global>``

    ``workspace [%t]``: caller-supplied scratch (see `WORKSPACE_DOC`), e.g. the PSUM staging tile
    of a transposing copy on Trainium.
    """

    name = "tirx.copy"
    dst = operand_def(BufferType)  # declared again: a subclass's operands come first
    src = operand_def(BufferType)
    workspace = var_operand_def(BufferType)


@irdl_op_definition
class CopyAsyncOp(TileOp):
    """Issues an asynchronous copy dst = src; the caller commits and waits. With ``config
    {use_tma_reduce = "add"}`` (TIRx's key; also ``"min"``, ``"max"``) the copy reduces into the
    destination instead: dst = dst <op> src (a TMA reduce, cp.reduce.async.bulk.tensor).

    ``tirx.copy_async %smem, %gmem dispatch "tma_auto" : ...``

    With ``remote_cta %rank`` (an index: a rank in the kernel's cluster) the copy is a
    distributed-shared-memory one: ``dst`` is the view, in the CTA of that rank, of the same
    shared buffer this CTA names (TIRx ``dsmem``, ``config remote_cta_id``), ``src`` a shared
    tile of this CTA of the same shape and element type. It lands at the next
    ``tirx.cluster_sync`` (docs/ir.md, "Clusters").
    ``tirx.copy_async cta %recv, %send remote_cta %peer : ..., ..., index``

    With ``cta_mask %m`` (an index: a bit set of cluster ranks, computed at run time) the copy
    is TIRx's multicast load with a mask that is a value rather than a ``config {cta_mask}``
    constant; at the tile level it changes nothing (every CTA fills its own tile).
    ``tirx.copy_async cta %s, %g cta_mask %m dispatch "tma_auto" : ..., ..., index``

    With ``where`` (a predicate over the destination's indices and the index values listed in
    ``symbols``, as `SelectOp`'s) only the elements where it holds are copied and the others
    are zero: dst = where(i) ? src[i] : 0 (TIRx ``ldgsts``'s ``predicate`` config with a
    zero fill); the source is not read where it fails. In a loop over 32-column tiles of a
    100-column tensor,
    ``where (d0, d1)[s0] : (99 - s0 * 32 - d1 >= 0) symbols [%k] : ..., ..., index``
    keeps the columns that exist.
    """

    name = "tirx.copy_async"
    KEYWORDS: ClassVar = {"where": "predicate"}
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    dst = operand_def(BufferType)
    src = operand_def(BufferType)
    remote_cta = opt_operand_def(IndexType)
    symbols = var_operand_def(IndexType)
    cta_mask = opt_operand_def(IndexType)
    where = opt_prop_def(AffineSetAttr)
    REDUCTIONS: ClassVar = ("add", "min", "max")

    def reduction(self) -> str | None:
        """The ``use_tma_reduce`` operation, or None for a plain copy."""
        value = self.config_dict().get("use_tma_reduce")
        if value is None:
            return None
        if not isinstance(value, StringAttr) or value.data not in self.REDUCTIONS:
            raise rules.RuleError(f"config use_tma_reduce must be one of "
                                  f"{', '.join(repr(r) for r in self.REDUCTIONS)}, got {value}")
        return value.data

    def _verify_where(self) -> None:
        if self.where is None:
            if self.symbols:
                raise rules.RuleError("copy_async symbols name the values of a `where` "
                                      "predicate; the op has none")
            return
        dst = _buf(self, "dst")
        if dst.get_shape() != _buf(self, "src").get_shape():
            raise rules.RuleError("a copy_async with a `where` predicate needs equal source "
                                  "and destination shapes")
        if self.remote_cta is not None or self.reduction() is not None:
            raise rules.RuleError("a `where` predicate zero-fills a copy into this CTA; a "
                                  "remote_cta or reducing copy_async cannot have one")
        _verify_predicate("copy_async", self.where.data, dst.rank, len(self.symbols))

    def _verify_cta_mask(self) -> None:
        if self.cta_mask is None:
            return
        if "cta_mask" in self.config_dict():
            raise rules.RuleError("copy_async has a cta_mask operand and a cta_mask config; "
                                  "give one")
        if self.remote_cta is not None or self.where is not None or \
                self.reduction() is not None:
            raise rules.RuleError("a cta_mask multicasts a load into the CTAs of the mask; a "
                                  "remote_cta, predicated or reducing copy_async cannot have "
                                  "one")
        kernel = enclosing_kernel(self)
        if kernel is not None and kernel.cluster_dims() is None:
            raise rules.RuleError(f"a cta_mask names CTAs of a cluster; add `cluster [..]` to "
                                  f"kernel @{kernel.kernel_name}")

    def verify_tile(self) -> None:
        _CopyLike.verify_tile(self)  # type: ignore[arg-type]
        self._verify_where()
        if self.reduction() is not None and \
                _buf(self, "dst").get_shape() != _buf(self, "src").get_shape():
            raise rules.RuleError("a reducing copy_async needs equal source and destination "
                                  "shapes")
        self._verify_cta_mask()
        if self.remote_cta is None:
            return
        dst, src = _buf(self, "dst"), _buf(self, "src")
        if dst.scope_name not in ("shared", "shared.dyn") or \
                src.scope_name not in ("shared", "shared.dyn"):
            raise rules.RuleError(f"a remote_cta copy_async copies shared -> shared (of another "
                                  f"CTA of the cluster), got {src.scope_name} -> "
                                  f"{dst.scope_name}")
        if dst.get_shape() != src.get_shape() or dst.element_type != src.element_type:
            raise rules.RuleError("a remote_cta copy_async copies bytes: source and destination "
                                  "need one shape and element type")
        kernel = enclosing_kernel(self)
        if kernel is not None and kernel.cluster_dims() is None:
            raise rules.RuleError(f"a remote_cta copy_async needs a cluster launch; add "
                                  f"`cluster [..]` to kernel @{kernel.kernel_name}")


@irdl_op_definition
class PermuteLayoutOp(_CopyLike):
    """Same logical tile, another physical layout: dst = src with dst's layout.

    ``tirx.permute_layout warp %b, %a : !tirx.buffer<...>, !tirx.buffer<...>``
    """

    name = "tirx.permute_layout"

    def verify_tile(self) -> None:
        rules.check_same_elements(self.name, _buf(self, "dst").get_shape(),
                                  _buf(self, "src").get_shape())
        if _buf(self, "dst").element_type != _buf(self, "src").element_type:
            raise rules.RuleError("permute_layout keeps the element type; use tirx.cast to convert")


# --- matmul -------------------------------------------------------------------------------------


@irdl_op_definition
class GemmOp(TileOp):
    """D = alpha * op(A) @ op(B) + beta * C, with f32 accumulation.

    A is [M, K] ([K, M] with ``transpose_a``), B is [K, N] ([N, K] with ``transpose_b``); C
    defaults to D when absent. ``tirx.gemm %D, %A, %B transpose_b alpha 0.5 : ...``
    ``workspace [%acc]``: caller-supplied scratch (see `WORKSPACE_DOC`), e.g. the PSUM
    accumulator of an SBUF result on Trainium.
    """

    name = "tirx.gemm"
    KEYWORDS: ClassVar = {"transpose_a": "flag", "transpose_b": "flag", "alpha": "float",
                          "beta": "float"}
    DSTS: ClassVar = ("d",)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    d = operand_def(BufferType)
    a = operand_def(BufferType)
    b = operand_def(BufferType)
    c = opt_operand_def(BufferType)
    workspace = var_operand_def(BufferType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)

    def verify_tile(self) -> None:
        m, n, _ = rules.gemm_dims(_buf(self, "a").get_shape(), _buf(self, "b").get_shape(),
                                  self.flag("transpose_a"), self.flag("transpose_b"))
        if _buf(self, "d").get_shape() != (m, n):
            raise rules.RuleError(f"gemm result D is {rules.fmt(_buf(self, 'd').get_shape())} but "
                                  f"op(A) @ op(B) is [{m}, {n}]")
        if self.c is not None and _buf(self, "c").get_shape() != (m, n):
            raise rules.RuleError(f"gemm C is {rules.fmt(_buf(self, 'c').get_shape())}, expected "
                                  f"[{m}, {n}]")


@irdl_op_definition
class GemmAsyncOp(TileOp):
    """Asynchronous C (+)= op(A) @ op(B)ᵀ in TIRx's K-major convention.

    A is [M, K] ([K, M] with ``transpose_a``); B is K-major [N, K] ([K, N] with
    ``transpose_b``). ``accum`` adds to C. Optional block-scale factors ``sfa``/``sfb`` come
    together. ``tirx.gemm_async %C, %A, %B accum : ...``
    """

    name = "tirx.gemm_async"
    KEYWORDS: ClassVar = {"transpose_a": "flag", "transpose_b": "flag", "accum": "flag"}
    DSTS: ClassVar = ("c",)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    c = operand_def(BufferType)
    a = operand_def(BufferType)
    b = operand_def(BufferType)
    sfa = opt_operand_def(BufferType)
    sfb = opt_operand_def(BufferType)
    transpose_a = opt_prop_def(UnitAttr)
    transpose_b = opt_prop_def(UnitAttr)
    accum = opt_prop_def(UnitAttr)

    def verify_tile(self) -> None:
        m, n, _ = rules.gemm_dims(_buf(self, "a").get_shape(), _buf(self, "b").get_shape(),
                                  self.flag("transpose_a"), self.flag("transpose_b"),
                                  b_is_n_major=True)
        if _buf(self, "c").get_shape() != (m, n):
            raise rules.RuleError(f"gemm_async C is {rules.fmt(_buf(self, 'c').get_shape())} but "
                                  f"the product is [{m}, {n}]")
        if (self.sfa is None) != (self.sfb is None):
            raise rules.RuleError("gemm_async scale factors sfa and sfb must be given together")


# --- unary --------------------------------------------------------------------------------------


@irdl_op_definition
class ZeroOp(TileOp):
    """dst = 0. ``tirx.zero cta %acc : !tirx.buffer<128x128xf32, shared>``"""

    name = "tirx.zero"
    dst = operand_def(BufferType)


class _FillLike(TileOp):
    dst = operand_def(BufferType)
    value = operand_def(ANY)

    def verify_tile(self) -> None:
        if isinstance(self.value.type, BufferType):
            raise rules.RuleError(f"{self.name} takes a scalar value, not a buffer")


@irdl_op_definition
class FillOp(_FillLike):
    """dst = value (a scalar). ``tirx.fill %t, %cst : !tirx.buffer<128x1xf32, shared>, f32``"""

    name = "tirx.fill"


@irdl_op_definition
class MemsetOp(_FillLike):
    """dst = value (a scalar); TIRx's Trainium spelling of fill."""

    name = "tirx.memset"


ROUNDING_MODES = ("rn", "rz", "rm", "rp")
"""TIRx's ``rounding_mode`` config of a float cast or arithmetic op: to nearest even (the
default), toward zero, toward -inf, toward +inf."""


class _Rounded:
    """An op taking TIRx's ``rounding_mode`` config (`ROUNDING_MODES`)."""

    def rounding_mode(self) -> str:
        """The ``rounding_mode`` config, ``"rn"`` when absent (checked by `verify_tile`)."""
        attr = self.config_dict().get("rounding_mode")  # type: ignore[attr-defined]
        return "rn" if attr is None else attr.data

    def rounds(self) -> bool:
        """Whether the op carries a ``rounding_mode`` config (rn included: then an arithmetic
        op computes as `rounded_arith` says, fma rounding once)."""
        return "rounding_mode" in self.config_dict()  # type: ignore[attr-defined]


def _check_rounding(op: TileOp, *names: str, f32: bool) -> None:
    """A ``rounding_mode`` config is one of `ROUNDING_MODES` on float operands ``names``;
    ``f32``: arithmetic, which rounds in f32 (no f64 operand)."""
    attr = op.config_dict().get("rounding_mode")
    if attr is None:
        return
    if not isinstance(attr, StringAttr) or attr.data not in ROUNDING_MODES:
        raise rules.RuleError(f"{op.name} config rounding_mode must be one of "
                              f"{', '.join(ROUNDING_MODES)}; got {attr}")
    for name in names:
        value = getattr(op, name)
        if value is None:
            continue
        t = value.type.element_type if isinstance(value.type, BufferType) else value.type
        if not dtypes.is_float(t):
            what = "arithmetic" if f32 else "float -> float casts"
            raise rules.RuleError(f"{op.name} config rounding_mode rounds {what}; operand "
                                  f"'{name}' has type {t}")
        if f32 and dtypes.bit_width(t) > 32:
            raise rules.RuleError(f"{op.name} config rounding_mode rounds f32 arithmetic; "
                                  f"operand '{name}' has type {t}")


class _UnaryOp(TileOp):
    dst = operand_def(BufferType)
    src = operand_def(BufferType)

    def verify_tile(self) -> None:
        rules.check_same_elements(self.name, _buf(self, "dst").get_shape(),
                                  _buf(self, "src").get_shape())


@irdl_op_definition
class ReciprocalOp(_Rounded, _UnaryOp):
    """dst = 1 / src. ``tirx.reciprocal %r, %s : ...``; ``config {rounding_mode = "rz"}``
    rounds the f32 division that way (`_Rounded`)."""

    name = "tirx.reciprocal"

    def verify_tile(self) -> None:
        super().verify_tile()
        _check_float(self, "dst", "src")
        _check_rounding(self, "dst", "src", f32=True)


@irdl_op_definition
class SiluOp(_UnaryOp):
    """dst = src * sigmoid(src). ``tirx.silu %y, %x : ...``"""

    name = "tirx.silu"

    def verify_tile(self) -> None:
        super().verify_tile()
        _check_float(self, "dst", "src")


@irdl_op_definition
class CastOp(_Rounded, _UnaryOp):
    """dst = src converted to dst's element type (round to nearest even; float to integer
    truncates toward zero and saturates). ``tirx.cast %h, %f : <..xf16..>, <..xf32..>``;
    ``config {rounding_mode = "rz"}`` (`ROUNDING_MODES`) rounds a float -> float cast that
    way."""

    name = "tirx.cast"

    def verify_tile(self) -> None:
        super().verify_tile()
        _check_rounding(self, "dst", "src", f32=False)


class _UnaryBiasScaleOp(TileOp):
    """dst = f(src * scale + bias); bias and scale are scalars or buffers broadcast to dst."""

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    dst = operand_def(BufferType)
    src = operand_def(BufferType)
    bias = opt_operand_def(ANY)
    scale = opt_operand_def(ANY)

    def verify_tile(self) -> None:
        dst = _buf(self, "dst").get_shape()
        rules.check_same_elements(self.name, dst, _buf(self, "src").get_shape())
        rules.check_broadcast(f"{self.name} bias", _shape(self, "bias"), dst)
        rules.check_broadcast(f"{self.name} scale", _shape(self, "scale"), dst)
        _check_float(self, "dst", "src", "bias", "scale")


@irdl_op_definition
class SqrtOp(_Rounded, _UnaryBiasScaleOp):
    """dst = sqrt(src * scale + bias). ``tirx.sqrt %y, %x scale %s : ...``; with ``config
    {rounding_mode = ...}`` the multiply, the add and the square root each round in f32 that
    way."""

    name = "tirx.sqrt"

    def verify_tile(self) -> None:
        super().verify_tile()
        _check_rounding(self, "dst", "src", "bias", "scale", f32=True)


@irdl_op_definition
class ExpOp(_UnaryBiasScaleOp):
    """dst = exp(src * scale + bias). ``tirx.exp %y, %x bias %m : ...``"""

    name = "tirx.exp"


@irdl_op_definition
class Exp2Op(_UnaryBiasScaleOp):
    """dst = 2 ** (src * scale + bias)."""

    name = "tirx.exp2"


@irdl_op_definition
class Log2Op(_UnaryBiasScaleOp):
    """dst = log2(src * scale + bias)."""

    name = "tirx.log2"


# --- binary -------------------------------------------------------------------------------------


class _BinaryOp(_Rounded, TileOp):
    """dst = lhs ⊕ rhs; either side may be a scalar or a buffer broadcast (NumPy-style) to dst.
    add, sub, mul and fdiv take ``config {rounding_mode = ...}`` (`ROUNDED_FUNCS`): the f32
    operation rounds that way; maximum and minimum are exact and take none."""

    FUNC: ClassVar[str]
    dst = operand_def(BufferType)
    lhs = operand_def(ANY)
    rhs = operand_def(ANY)

    def verify_tile(self) -> None:
        dst = _buf(self, "dst").get_shape()
        rules.check_broadcast(f"{self.name} lhs", _shape(self, "lhs"), dst)
        rules.check_broadcast(f"{self.name} rhs", _shape(self, "rhs"), dst)
        if self.FUNC == "fdiv":
            _check_float(self, "dst", "lhs", "rhs")
        if self.FUNC in ROUNDED_FUNCS:
            _check_rounding(self, "dst", "lhs", "rhs", f32=True)
        elif "rounding_mode" in self.config_dict():
            raise rules.RuleError(f"{self.name} is exact and takes no rounding_mode; it rounds "
                                  f"{', '.join(ROUNDED_FUNCS)}")


ROUNDED_FUNCS = ("add", "sub", "mul", "fdiv")
"""The binary ops taking a ``rounding_mode`` config."""


@irdl_op_definition
class AddOp(_BinaryOp):
    """dst = lhs + rhs. ``tirx.add %c, %a, %b : ...``"""

    name = "tirx.add"
    FUNC: ClassVar[str] = "add"


@irdl_op_definition
class SubOp(_BinaryOp):
    """dst = lhs - rhs."""

    name = "tirx.sub"
    FUNC: ClassVar[str] = "sub"


@irdl_op_definition
class MulOp(_BinaryOp):
    """dst = lhs * rhs."""

    name = "tirx.mul"
    FUNC: ClassVar[str] = "mul"


@irdl_op_definition
class FdivOp(_BinaryOp):
    """dst = lhs / rhs (floating point)."""

    name = "tirx.fdiv"
    FUNC: ClassVar[str] = "fdiv"


@irdl_op_definition
class MaximumOp(_BinaryOp):
    """dst = max(lhs, rhs), elementwise."""

    name = "tirx.maximum"
    FUNC: ClassVar[str] = "maximum"


@irdl_op_definition
class MinimumOp(_BinaryOp):
    """dst = min(lhs, rhs), elementwise."""

    name = "tirx.minimum"
    FUNC: ClassVar[str] = "minimum"


@irdl_op_definition
class FmaOp(_Rounded, TileOp):
    """dst = input * scale + bias; scale and bias are scalars or broadcast buffers.

    ``tirx.fma %y, %x, %s, %b : ...``; with ``config {rounding_mode = ...}`` the f32 multiply-add
    is fused and rounds once, that way (PTX ``fma.<mode>.f32``).
    """

    name = "tirx.fma"
    dst = operand_def(BufferType)
    input = operand_def(ANY)
    scale = operand_def(ANY)
    bias = operand_def(ANY)

    def verify_tile(self) -> None:
        dst = _buf(self, "dst").get_shape()
        for name in ("input", "scale", "bias"):
            rules.check_broadcast(f"fma {name}", _shape(self, name), dst)
        _check_rounding(self, "dst", "input", "scale", "bias", f32=True)


@irdl_op_definition
class SelectOp(TileOp):
    """dst[i] = predicate(i) ? true_value[i] : false_value[i], where the predicate is an affine
    condition over the destination's indices (dims) and the index values listed in ``symbols``
    (symbols: loop variables, scope ids), an integer set whose constraints must all hold.

    ``tirx.select %B, %A, %zero where (d0, d1) : (d1 - d0 - 1 >= 0) : ...`` keeps A above the
    diagonal (d0 < d1) and writes 0 elsewhere. In a loop over 128-row tiles of an n-row tensor,
    ``where (d0, d1)[s0] : (n - 1 - s0 * 128 - d0 >= 0) symbols [%i] : ..., index`` keeps the
    rows of tile %i that exist (``(i * 128) + d0 < n``).
    """

    name = "tirx.select"
    KEYWORDS: ClassVar = {"where": "predicate"}
    dst = operand_def(BufferType)
    true_value = operand_def(ANY)
    false_value = operand_def(ANY)
    symbols = var_operand_def(IndexType)
    where = prop_def(AffineSetAttr)

    def verify_tile(self) -> None:
        dst = _buf(self, "dst").get_shape()
        rules.check_broadcast("select true_value", _shape(self, "true_value"), dst)
        rules.check_broadcast("select false_value", _shape(self, "false_value"), dst)
        _verify_predicate("select", self.where.data, len(dst), len(self.symbols))


# --- reductions ---------------------------------------------------------------------------------


class _ReduceOp(TileOp):
    """dst = reduce(src) over ``axes`` (default the last); ``accum`` folds in the old dst.
    ``workspace [%partial]``: caller-supplied scratch (see `WORKSPACE_DOC`), e.g. the
    partial-reduction buffer of a two-stage reduction on Trainium."""

    KEYWORDS: ClassVar = {"axes": "ints", "accum": "flag"}
    dst = operand_def(BufferType)
    src = operand_def(BufferType)
    workspace = var_operand_def(BufferType)
    axes = opt_prop_def(DenseArrayBase)
    accum = opt_prop_def(UnitAttr)

    def reduce_axes(self) -> tuple[int, ...]:
        return rules.normalize_axes(self.ints_prop("axes", (-1,)), _buf(self, "src").rank)

    def verify_tile(self) -> None:
        src = _buf(self, "src").get_shape()
        rules.check_reduction(src, self.ints_prop("axes", (-1,)), _buf(self, "dst").get_shape())


@irdl_op_definition
class SumOp(_ReduceOp):
    """dst = sum(src, axes). ``tirx.sum %rowsum, %x axes [-1] : ...``"""

    name = "tirx.sum"


@irdl_op_definition
class MaxOp(_ReduceOp):
    """dst = max(src, axes)."""

    name = "tirx.max"


@irdl_op_definition
class MinOp(_ReduceOp):
    """dst = min(src, axes)."""

    name = "tirx.min"


@irdl_op_definition
class ReduceNegateOp(_ReduceOp):
    """dst = -reduce(src, axes) with ``reduce`` one of sum, max, min.

    ``tirx.reduce_negate %negmax, %x reduce max : ...``
    """

    name = "tirx.reduce_negate"
    KEYWORDS: ClassVar = {"axes": "ints", "accum": "flag", "reduce": "name"}
    reduce = prop_def(StringAttr)

    def verify_tile(self) -> None:
        super().verify_tile()
        rules.check_func("reduce_negate reduce", self.reduce.data, rules.REDUCE_FUNCS)


# --- fused --------------------------------------------------------------------------------------


@irdl_op_definition
class BinaryReduceOp(TileOp):
    """bin_out = lhs ⊕ rhs; red_out = reduce(bin_out, axes).

    ``tirx.binary_reduce %t, %s, %x, %c binary mul reduce sum : ...``
    """

    name = "tirx.binary_reduce"
    KEYWORDS: ClassVar = {"binary": "name", "reduce": "name", "axes": "ints"}
    DSTS: ClassVar = ("bin_out", "red_out")
    bin_out = operand_def(BufferType)
    red_out = operand_def(BufferType)
    lhs = operand_def(ANY)
    rhs = operand_def(ANY)
    binary = prop_def(StringAttr)
    reduce = prop_def(StringAttr)
    axes = opt_prop_def(DenseArrayBase)

    def verify_tile(self) -> None:
        rules.check_func("binary_reduce binary", self.binary.data, rules.BINARY_FUNCS)
        rules.check_func("binary_reduce reduce", self.reduce.data, rules.REDUCE_FUNCS)
        out = _buf(self, "bin_out").get_shape()
        rules.check_broadcast("binary_reduce lhs", _shape(self, "lhs"), out)
        rules.check_broadcast("binary_reduce rhs", _shape(self, "rhs"), out)
        rules.check_reduction(out, self.ints_prop("axes", (-1,)), _buf(self, "red_out").get_shape())


@irdl_op_definition
class UnaryReduceOp(TileOp):
    """un_out = f(src * scale + bias); red_out = reduce(un_out, axes).

    ``tirx.unary_reduce %e, %s, %x bias %negmax unary exp reduce sum : ...``
    """

    name = "tirx.unary_reduce"
    KEYWORDS: ClassVar = {"unary": "name", "reduce": "name", "axes": "ints"}
    DSTS: ClassVar = ("un_out", "red_out")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    un_out = operand_def(BufferType)
    red_out = operand_def(BufferType)
    src = operand_def(BufferType)
    bias = opt_operand_def(ANY)
    scale = opt_operand_def(ANY)
    unary = prop_def(StringAttr)
    reduce = prop_def(StringAttr)
    axes = opt_prop_def(DenseArrayBase)

    def verify_tile(self) -> None:
        rules.check_func("unary_reduce unary", self.unary.data, rules.UNARY_FUNCS)
        rules.check_func("unary_reduce reduce", self.reduce.data, rules.REDUCE_FUNCS)
        out = _buf(self, "un_out").get_shape()
        rules.check_same_elements("unary_reduce", out, _buf(self, "src").get_shape())
        rules.check_broadcast("unary_reduce bias", _shape(self, "bias"), out)
        rules.check_broadcast("unary_reduce scale", _shape(self, "scale"), out)
        rules.check_reduction(out, self.ints_prop("axes", (-1,)), _buf(self, "red_out").get_shape())


@irdl_op_definition
class BinaryChainOp(TileOp):
    """out = (data op0 operand0) op1 operand1; with ``reverse1``: operand1 op1 (data op0 operand0).

    TIRx 0.1.0a4's docstring writes the first step as ``operand0 op0 data``, but its only lowering
    (Trainium scalar_tensor_tensor, sources ``[data, operand0, operand1]``) computes
    ``data op0 operand0``; we follow the lowering. ``tirx.binary_chain %y, %x, %mean, %gamma op0
    sub op1 mul : ...``
    """

    name = "tirx.binary_chain"
    KEYWORDS: ClassVar = {"op0": "name", "op1": "name", "reverse1": "flag"}
    DSTS: ClassVar = ("out",)
    out = operand_def(BufferType)
    data = operand_def(BufferType)
    operand0 = operand_def(ANY)
    operand1 = operand_def(ANY)
    op0 = prop_def(StringAttr)
    op1 = prop_def(StringAttr)
    reverse1 = opt_prop_def(UnitAttr)

    def verify_tile(self) -> None:
        rules.check_func("binary_chain op0", self.op0.data, rules.BINARY_FUNCS)
        rules.check_func("binary_chain op1", self.op1.data, rules.BINARY_FUNCS)
        out = _buf(self, "out").get_shape()
        rules.check_same_elements("binary_chain", out, _buf(self, "data").get_shape())
        rules.check_broadcast("binary_chain operand0", _shape(self, "operand0"), out)
        rules.check_broadcast("binary_chain operand1", _shape(self, "operand1"), out)


@irdl_op_definition
class ComposeOp(TileOp):
    """A group of tile primitives that a backend may fuse; its meaning is the ops in order.

    ``tirx.compose_op { tirx.exp ... tirx.sum ... }``
    """

    name = "tirx.compose_op"
    DSTS: ClassVar = ()
    body = region_def("single_block")
    traits = traits_def(NoTerminator())

    def verify_tile(self) -> None:
        for op in self.body.block.ops:
            if not isinstance(op, TileOp) or isinstance(op, ComposeOp):
                raise VerifyException(f"tirx.compose_op may contain only tile primitives (not "
                                      f"nested compose_op), found {op.name}")


TILE_OPS: tuple[type[TileOp], ...] = (
    CopyOp, CopyAsyncOp, PermuteLayoutOp, GemmOp, GemmAsyncOp, ZeroOp, FillOp, MemsetOp,
    ReciprocalOp, SiluOp, SqrtOp, ExpOp, Exp2Op, Log2Op, CastOp, AddOp, SubOp, MulOp, FdivOp,
    MaximumOp, MinimumOp, FmaOp, SelectOp, SumOp, MaxOp, MinOp, ReduceNegateOp, BinaryReduceOp,
    UnaryReduceOp, BinaryChainOp, ComposeOp)
assert len(TILE_OPS) == 31
