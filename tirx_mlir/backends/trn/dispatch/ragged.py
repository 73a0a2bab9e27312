"""Ragged shapes: a tile op whose iteration space does not split into equal instruction tiles
becomes two tile ops, the regular part and the remainder, each dispatched in turn.

A hand-written NKI kernel over 257 rows issues one instruction per 128-row tile, the last one
1 row tall; over 1009 columns with 512-column instructions, one of 512 and one of 497. The
instruction planner (`plan`) tiles a dim only into equal pieces, so the ``ragged`` variant (the
highest priority, for every primitive it knows the iteration space of) cuts the op first:

* **partition dim**: an on-chip operand whose buffer splits dim 0 into partition tiles of ``T``
  rows (``S[(3,128,N):(N@F,1@P,1@F)]`` for 257 rows, whose last tile is partial: the default
  layout, `layouts.default_layout`) and whose view covers rows that do not form whole tiles:
  cut at the last tile boundary inside the view (``[0, 256)`` and ``[256, 257)``), or at the
  first one when the view starts inside a tile;
* **free dim**: the innermost dim (a gemm's N), when the instruction's free-size limit
  (``max_inst_size``, default 512; the DMA's for an HBM copy; one PSUM bank for a gemm) does
  not divide it and its largest divisor under the
  limit would take more instructions than full tiles plus one: cut after the full tiles.

The pieces are the same op on slices of every operand that has the dim (operands that broadcast
along it are shared), so each piece means what the whole meant; a cut never runs through a
reduced dim. A gemm is cut on M and N the same way; a cut on K (the contraction) makes the
second piece accumulate into the first's result (``D = A2 @ B2 + D``: ``beta`` 1), which costs
one extra PSUM eviction per output tile compared with one accumulation group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from xdsl.dialects.builtin import AffineSetAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr, AffineSet
from xdsl.ir.affine.affine_set import AffineConstraintExpr

from tirx_mlir.backends.trn.dispatch.common import (DEFAULT_MAX_INST_SIZE, OPERANDS_ON_TRN,
                                                    THREAD_SCOPE, max_free, on_chip)
from tirx_mlir.backends.trn.dispatch.gemm import PSUM_BANK_F32
from tirx_mlir.backends.trn.dispatch.plan import SBUF_FREE_LIMIT
from tirx_mlir.backends.trn.layout.layouts import partition_tile_rows
from tirx_mlir.backends.trn.memory import HBM
from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import AccessPattern, resolve_access
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.dispatch import fail, predicate, register_dispatch
from tirx_mlir.dispatch.builders import insert_tile_op, is_buffer, largest_divisor_at_most, \
    scope_of, shape_of
from tirx_mlir.type_tests import IsInstance, KindOf

DimMap = dict[str, int]
"""For one iteration dim: operand name -> the operand's dim that walks it."""


@dataclass(frozen=True)
class Space:
    """An op's iteration space: per dim its size, the operands that have it, and whether it is
    reduced (never cut on the free-size rule) or a gemm's contraction."""

    sizes: tuple[int, ...]
    dims: tuple[DimMap, ...]
    reduced: frozenset[int] = frozenset()
    contraction: int | None = None


# --- iteration spaces -----------------------------------------------------------------------------


def _aligned_dims(shape: Sequence[int], iter_shape: Sequence[int]) -> dict[int, int]:
    """iteration dim -> operand dim, for an operand aligned to the space like `align` does:
    the same non-unit dims in order, else NumPy right-aligned broadcasting (only equal dims)."""
    if shape == iter_shape:  # the common case, and what the squeezed comparison gives for it
        return {k: k for k, n in enumerate(shape) if n != 1}
    if rules.squeeze(shape) == rules.squeeze(iter_shape):
        ops = [d for d, n in enumerate(shape) if n != 1]
        its = [k for k, n in enumerate(iter_shape) if n != 1]
        return dict(zip(its, ops))
    shift = len(iter_shape) - len(shape)
    return {k: k - shift for k in range(len(iter_shape))
            if k - shift >= 0 and shape[k - shift] == iter_shape[k] != 1}


def _kept_dims(red_shape: Sequence[int], iter_shape: Sequence[int],
               axes: Sequence[int]) -> dict[int, int]:
    """iteration dim -> dim of a reduction's destination (the kept dims, unit dims dropped)."""
    kept = [k for k, n in enumerate(iter_shape) if k not in axes and n != 1]
    red = [d for d, n in enumerate(red_shape) if n != 1]
    return dict(zip(kept, red))


def _space(op: TileOp, anchor: str, reduced_outs: Sequence[str] = (),
           axes: Sequence[int] = ()) -> Space:
    named = op.named_operands()
    iter_shape = shape_of(named[anchor])
    dims: list[DimMap] = [{} for _ in iter_shape]
    for name, value in named.items():
        if not is_buffer(value):
            continue
        shape = shape_of(value)
        mapping = _kept_dims(shape, iter_shape, axes) if name in reduced_outs else \
            _aligned_dims(shape, iter_shape)
        for k, d in mapping.items():
            dims[k][name] = d
    return Space(tuple(iter_shape), tuple(dims), frozenset(axes))


def _gemm_space(op: T.GemmOp) -> Space:
    ta, tb = op.flag("transpose_a"), op.flag("transpose_b")
    m, n, k = rules.gemm_dims(shape_of(op.a), shape_of(op.b), ta, tb)
    outs = {"d": None} | ({"c": None} if op.c is not None else {})
    dim_m = {name: 0 for name in outs} | {"a": 1 if ta else 0}
    dim_n = {name: 1 for name in outs} | {"b": 0 if tb else 1}
    dim_k = {"a": 0 if ta else 1, "b": 1 if tb else 0}
    return Space((m, n, k), (dim_m, dim_n, dim_k), frozenset({2}), contraction=2)


def iteration_space(op: TileOp) -> Space | None:
    """The iteration space of the primitives this variant cuts (None for the others)."""
    kind = _SPACE_KIND(op)
    if kind is None:
        return None
    if kind == "gemm":
        return _gemm_space(op)  # type: ignore[arg-type]
    return _space(op, *_anchor_of(op, kind))


def _anchor_of(op: TileOp, kind: str) -> tuple[str, tuple[str, ...], Sequence[int]]:
    """(the operand whose shape is the iteration space, the reduced outputs, the reduced dims)
    of a non-gemm op of `_SPACE_KIND` ``kind``: `_space`'s arguments."""
    if kind == "reduce":
        return "src", ("dst",), op.reduce_axes()  # type: ignore[attr-defined]
    if kind == "binary_reduce" or kind == "unary_reduce":
        anchor = "bin_out" if kind == "binary_reduce" else "un_out"
        rank = len(shape_of(getattr(op, anchor)))
        return anchor, ("red_out",), rules.normalize_axes(op.ints_prop("axes", (-1,)), rank)
    return "out" if kind == "chain" else "dst", (), ()


ELEMENTWISE = (T.CopyOp, T.CopyAsyncOp, T.CastOp, T.PermuteLayoutOp, T.ZeroOp, T.FillOp,
               T.MemsetOp, T.ReciprocalOp, T.SiluOp, T._UnaryBiasScaleOp,  # noqa: SLF001
               T._BinaryOp, T.FmaOp)  # noqa: SLF001

_SPACE_KIND = KindOf({"gemm": (T.GemmOp,), "reduce": (T._ReduceOp,),  # noqa: SLF001
                      "binary_reduce": (T.BinaryReduceOp,), "unary_reduce": (T.UnaryReduceOp,),
                      "chain": (T.BinaryChainOp,), "select": (T.SelectOp,),
                      "elementwise": ELEMENTWISE})
"""How `iteration_space` reads an op, per op class (in the order it asks)."""


# --- where to cut ---------------------------------------------------------------------------------


def _partition_tiles(value: SSAValue) -> tuple[AccessPattern, int] | None:
    """(view, partition-tile rows) of an on-chip operand whose buffer splits dim 0 into
    partition tiles, else None: what `_partition_cut` reads of the operand, whatever the dim."""
    if not on_chip(value):
        return None
    access = resolve_access(value)
    rows = partition_tile_rows(access.buffer_type)
    return None if rows is None else (access, rows)


def _partition_cut(tiles: tuple[AccessPattern, int], dim: int, size: int) -> int | None:
    """A cut point in ``[1, size)`` of view dim ``dim`` (of an operand's `_partition_tiles`) so
    that each side covers whole partition tiles or lies inside one, or None."""
    access, rows = tiles
    step = access.steps[dim]
    if step[0] != 1 or any(step[1:]) or not access.offset[0].is_const():
        return None
    start = access.offset[0].const
    end = start + size
    first = -(-start // rows) * rows
    if start % rows and first < end:
        return first - start
    last = end // rows * rows
    if end % rows and last > start:
        return last - start
    return None


_IS_GEMM = IsInstance(T.GemmOp)
_IS_MOVE = IsInstance(T.CopyOp, T.CopyAsyncOp, T.CastOp, T.PermuteLayoutOp)
_IS_FILL = IsInstance(T.ZeroOp, T.FillOp, T.MemsetOp)


def _free_budget(op: TileOp) -> int:
    values = [v for v in op.named_operands().values() if is_buffer(v)]
    if _IS_MOVE(op) and HBM in (scope_of(op.dst), scope_of(op.src)):  # type: ignore[attr-defined]
        return SBUF_FREE_LIMIT
    default = None if _IS_FILL(op) else DEFAULT_MAX_INST_SIZE
    return max_free(op, values, default=default)


def _free_cut(op: TileOp, sizes: Sequence[int], reduced: Sequence[int]
              ) -> tuple[int, int] | None:
    """(iteration dim, cut point) of the free-size rule over an iteration space of ``sizes``
    whose dims ``reduced`` are reduced, or None."""
    gemm = _IS_GEMM(op)
    k = 1 if gemm else len(sizes) - 1  # a gemm's N: one PSUM bank
    n = sizes[k]
    if k <= 0 or k in reduced:
        return None
    budget = PSUM_BANK_F32 if gemm else _free_budget(op)
    if n <= budget or n % budget == 0:
        return None
    if n // largest_divisor_at_most(n, budget) <= -(-n // budget):
        return None  # equal tiles take as few instructions
    return k, n // budget * budget


def find_cut(op: TileOp) -> tuple[Space, int, int] | None:
    """(space, iteration dim, cut point) of the first cut the module docstring describes."""
    kind = _SPACE_KIND(op)
    if kind is None:
        return None
    named = op.named_operands()
    tiles = {name: _partition_tiles(value) for name, value in named.items() if is_buffer(value)}
    if kind != "gemm" and all(found is None for found in tiles.values()):
        # No operand splits into partition tiles: only the free-size rule can cut, and it reads
        # the space's sizes (the anchor's shape) and reduced dims, not which operand has which
        # dim; the space itself is made only for a cut (nearly every op has none).
        anchor, _, axes = _anchor_of(op, kind)
        free = _free_cut(op, shape_of(named[anchor]), axes)
        return None if free is None else (_space(op, *_anchor_of(op, kind)), *free)
    space = iteration_space(op)
    assert space is not None
    for k, (size, dims) in enumerate(zip(space.sizes, space.dims)):
        for name, d in dims.items():
            found = tiles.get(name)  # an operand that is no buffer has no tiles
            cut = None if found is None else _partition_cut(found, d, size)
            if cut is not None:
                return space, k, cut
    free = _free_cut(op, space.sizes, space.reduced)
    return None if free is None else (space, *free)


# --- the variant ----------------------------------------------------------------------------------


def _op_cut(op: TileOp, ctx) -> tuple[Space, int, int] | None:
    """`find_cut` once per dispatch of the op (the predicate and the impl both ask)."""
    return ctx.once("trn.ragged.cut", lambda: find_cut(op))


def _is_ragged(op: TileOp, ctx) -> tuple[bool, str]:
    if _op_cut(op, ctx) is None:
        return False, "every dim splits into equal instruction tiles"
    return True, ""


def _piece(builder, value: SSAValue, dim: int, start: int, length: int) -> SSAValue:
    shape = list(shape_of(value))
    offsets = [0] * len(shape)
    offsets[dim], shape[dim] = start, length
    return builder.insert(SliceOp(value, offsets, shape)).result


def _cut(op: TileOp, ctx) -> None:
    found = _op_cut(op, ctx)
    if found is None:
        fail("nothing to cut")
    space, k, cut = found
    b = ctx.builder
    names = list(op.named_operands())
    for index, (start, length) in enumerate(((0, cut), (cut, space.sizes[k] - cut))):
        operands = dict(op.named_operands())
        for name, d in space.dims[k].items():
            operands[name] = _piece(b, operands[name], d, start, length)
        if index and k == space.contraction:
            insert_tile_op(b, _accumulating_gemm(op, operands), op)
            continue
        piece = op.clone()  # its workspace (a variadic operand, last) is shared by the pieces
        piece.operands = [*(operands[name] for name in names), *_variadic_values(op)]
        if isinstance(op, T.SelectOp) and start:
            piece.properties["where"] = AffineSetAttr(
                shifted_dim(op.where.data, space.dims[k]["dst"], start))
        insert_tile_op(b, piece, op)


def shifted_dim(aset: AffineSet, dim: int, offset: int) -> AffineSet:
    """``aset`` over a piece whose dim ``dim`` starts at ``offset``: ``d`` becomes ``d +
    offset`` (a select's predicate is written in the destination's indices)."""
    dims = [AffineExpr.dimension(d) + offset if d == dim else AffineExpr.dimension(d)
            for d in range(aset.num_dims)]
    syms = [AffineExpr.symbol(q) for q in range(aset.num_symbols)]
    return AffineSet(aset.num_dims, aset.num_symbols, tuple(
        AffineConstraintExpr(c.kind, c.lhs.replace_dims_and_symbols(dims, syms),
                             c.rhs.replace_dims_and_symbols(dims, syms))
        for c in aset.constraints))


def _variadic_values(op: TileOp) -> list[SSAValue]:
    return [v for values in op.variadic_operands().values() for v in values]


def _accumulating_gemm(op: T.GemmOp, operands: dict[str, SSAValue]) -> T.GemmOp:
    """The second K piece: ``D = alpha * A2 @ B2 + 1.0 * D``."""
    return T.GemmOp(op.d, operands["a"], operands["b"], op.d, op.workspace,
                    transpose_a=op.flag("transpose_a"), transpose_b=op.flag("transpose_b"),
                    alpha=op.alpha, beta=1.0,
                    dispatch=None if op.dispatch is None else op.dispatch.data,
                    config=op.config_dict() or None)


RAGGED_OPS = (T.CopyOp, T.CopyAsyncOp, T.CastOp, T.PermuteLayoutOp, T.ZeroOp, T.FillOp,
              T.MemsetOp, T.ReciprocalOp, T.SiluOp, T.SqrtOp, T.ExpOp, T.Exp2Op, T.Log2Op,
              T.AddOp, T.SubOp, T.MulOp, T.FdivOp, T.MaximumOp, T.MinimumOp, T.FmaOp,
              T.SumOp, T.MaxOp, T.MinOp, T.ReduceNegateOp, T.BinaryReduceOp, T.UnaryReduceOp,
              T.BinaryChainOp, T.GemmOp, T.SelectOp)
"""The primitives the variant cuts (a select's piece has its predicate shifted to the piece's
indices, `shifted_dim`). Not compose_op: it is dispatched as the fused primitive or op by op,
each cut on its own."""


def _register() -> None:
    when = (THREAD_SCOPE, OPERANDS_ON_TRN, predicate("ragged", _is_ragged))
    for op_class in RAGGED_OPS:
        register_dispatch(op_class, "trn", variant="ragged", priority=100, when=when)(_cut)


_register()
