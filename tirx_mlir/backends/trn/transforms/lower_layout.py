"""``trn-lower-layout``: turn logical on-chip buffers into physical tiles.

Every ``trn.sbuf``/``trn.psum`` allocation with logical shape and layout becomes the physical tile
``[P_span, F_span]`` (partition dim first, no layout), and every view chain rooted at it that an
instruction reads or writes is rebuilt as an equivalent chain over the physical tile::

    %x = tirx.alloc : !tirx.buffer<256x2048xf32, trn.sbuf, S[(2,128,2048):(2048@F,1@P,1@F)]>
    %v = tirx.slice %x[128, 512] [128, 512] : ... -> !tirx.buffer<128x512xf32, trn.sbuf>
      ->
    %x = tirx.alloc : !tirx.buffer<128x4096xf32, trn.sbuf>
    %v = tirx.slice %x[0, 2560] [128, 512] : ... -> !tirx.buffer<128x512xf32, trn.sbuf>

The physical chain is: one (strided) slice at the base coordinates, a reshape that splits the
free run into the view's free dims when there are several, a slice dropping the gaps between
them, a transpose into the view's dim order, a reshape restoring unit dims, and, for a view
with a dynamic extent, the guard: a slice at 0 whose guarded sizes are the view's. A gapped
multi-dim free view reads past its last element in the split form, so the tile's F extent is
padded when needed. A view that is not affine in physical space (`physical_access`) is an error
at the instruction that uses it. Every on-chip buffer is rewritten, also those whose layout is
already physical, so each instruction operand ends up as the canonical chain above (what the
printers read). After this pass no Trainium layout remains. HBM (``global``) buffers keep their
logical shape and layout: the layout is how the tensor lies in HBM, which the DMA instructions'
logical views do not depend on and the printers apply (docs/trn.md, HBM layouts).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.trn.layout.layouts import TrnLayoutError, check_trn_layout, physical_shape
from tirx_mlir.backends.trn.memory import is_on_chip
from tirx_mlir.backends.trn.pass_order import require_dispatched
from tirx_mlir.backends.trn.layout.physical_access import (NotAffine, PhysicalAccess,
                                                           physical_access, value_range)
from tirx_mlir.backends.trn.target_tags import kernel_limits
from tirx_mlir.changes import current_changes
from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.access import materialize, max_value, shared_views
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import (AllocOp, LoadOp, ReshapeOp, SliceOp, StoreOp,
                                                TransposeOp, allocs, erase_dead_views,
                                                is_view_op, place_like)
from tirx_mlir.dialects.tirx.kernel import kernels
from tirx_mlir.ir_insert import LinkingBuilder
from tirx_mlir.type_tests import IsInstance



@dataclass(frozen=True)
class _AxisPlan:
    """How one axis of a view is cut from the physical tile."""

    dims: tuple[int, ...]     # view dims on this axis, outer (largest step) first
    sizes: tuple[int, ...]
    stride: int               # step of the innermost dim (the slice stride)
    length: int               # elements taken by the first slice (gaps included)
    factors: tuple[int, ...]  # split of `length` into one dim per view dim (gaps included)


@dataclass(frozen=True)
class _ViewPlan:
    access: PhysicalAccess
    axes: dict[str, _AxisPlan]


def _axis_plan(pa: PhysicalAccess, axis: str) -> _AxisPlan:
    runs = sorted(((pieces[0].step, pieces[0].size, k) for k, pieces in enumerate(pa.dims)
                   if pieces and pieces[0].axis == axis), reverse=True)
    if not runs:
        return _AxisPlan((), (), 1, 1, ())
    for (outer_step, _, ko), (inner_step, inner_size, ki) in zip(runs, runs[1:]):
        if outer_step % inner_step or outer_step < inner_size * inner_step:
            raise NotAffine(f"view dims {ko} and {ki} interleave on {axis} (steps {outer_step} "
                            f"and {inner_step} with {inner_size} elements); no strided view of "
                            f"the physical tile has that shape")
    stride = runs[-1][0]
    if len(runs) == 1:
        return _AxisPlan((runs[0][2],), (runs[0][1],), stride, runs[0][1], (runs[0][1],))
    factors = [runs[0][1]] + [o[0] // i[0] for o, i in zip(runs, runs[1:])]
    length = runs[0][1] * runs[0][0] // stride
    return _AxisPlan(tuple(r[2] for r in runs), tuple(r[1] for r in runs), stride, length,
                     tuple(factors))


def plan_view(view: SSAValue, layout) -> _ViewPlan:
    pa = physical_access(view, layout)
    return _ViewPlan(pa, {ax: _axis_plan(pa, ax) for ax in ("P", "F")})


def _extent_needed(plan: _ViewPlan, axis: str) -> int | None:
    ap = plan.axes[axis]
    start = max_value(plan.access.base.get(axis) or _zero(), value_range)
    if start is None:
        return None
    return start + (ap.length - 1) * ap.stride + 1


def _zero():
    from tirx_mlir.dialects.tirx.access import IndexExpr

    return IndexExpr()


def build_physical_view(builder: Builder, phys: SSAValue, plan: _ViewPlan,
                        view_shape: tuple[int, ...]) -> SSAValue:
    """The chain of views over ``phys`` equivalent to the planned logical view."""
    pa = plan.access
    p, f = plan.axes["P"], plan.axes["F"]
    ptype = phys.type
    assert isinstance(ptype, BufferType)
    offsets = [materialize(builder, pa.base.get("P") or _zero()),
               materialize(builder, pa.base.get("F") or _zero())]
    sizes, strides = [p.length, f.length], [p.stride, f.stride]
    value = phys
    if offsets != [0, 0] or tuple(sizes) != ptype.get_shape() or strides != [1, 1]:
        value = builder.insert(SliceOp(value, offsets, sizes, strides)).result
    factors = [*p.factors, *f.factors]
    if factors != sizes:
        value = _reshape(builder, value, factors)
    wanted = [*p.sizes, *f.sizes]
    if wanted != factors:
        value = builder.insert(SliceOp(value, [0] * len(wanted), wanted)).result
    order = [*p.dims, *f.dims]
    perm = sorted(range(len(order)), key=lambda i: order[i])
    if perm != list(range(len(order))):
        value = builder.insert(TransposeOp(value, perm)).result
    value = _reshape(builder, value, view_shape)
    if pa.guards is None:
        return value
    sizes = [n if g is None else g for n, g in zip(view_shape, pa.guards)]
    return builder.insert(SliceOp(value, [0] * len(view_shape), sizes,
                                  max_sizes=view_shape)).result


def _reshape(builder: Builder, value: SSAValue, shape) -> SSAValue:
    """A reshape of ``value``, folded into a reshape that produced it (and dropped when the
    shapes already agree)."""
    owner = value.owner
    if isinstance(owner, ReshapeOp) and not value.uses:
        source = owner.source
        owner.detach()
        owner.erase()
        value = source
    assert isinstance(value.type, BufferType)
    if value.type.get_shape() == tuple(shape):
        return value
    return builder.insert(ReshapeOp(value, list(shape))).result


_IS_SCALAR_ACCESS = IsInstance(LoadOp, StoreOp)


def _leaf_uses(root: SSAValue) -> list[tuple[Operation, int, SSAValue]]:
    """(user, operand index, view) for each non-view use of ``root`` or of a view of it."""
    out: list[tuple[Operation, int, SSAValue]] = []
    stack = [root]
    while stack:
        value = stack.pop()
        for use in list(value.uses):
            user = use.operation
            if is_view_op(user) and use.index == 0:
                stack.append(user.results[0])
            else:
                out.append((user, use.index, value))
    return out


def lower_buffer(alloc: AllocOp, partitions: int) -> None:
    """Rewrite one on-chip allocation and the views its users read to the physical tile."""
    btype = alloc.result.type
    assert isinstance(btype, BufferType)
    try:
        layout = check_trn_layout(btype, partitions)
    except TrnLayoutError as err:
        raise PassError(str(err), alloc, code="TRN-LAYOUT") from None
    p_span, f_span = physical_shape(layout)
    leaves = _leaf_uses(alloc.result)
    plans: list[tuple[Operation, int, SSAValue, _ViewPlan]] = []
    per_view: dict[SSAValue, _ViewPlan | NotAffine] = {}  # a view used N times: planned once
    needs: dict[SSAValue, tuple[int | None, int | None]] = {}
    for user, index, view in leaves:
        if _IS_SCALAR_ACCESS(user):
            raise PassError(f"scalar {user.name} of an on-chip Trainium buffer is not supported; "
                            f"use tile primitives (tirx.copy / tirx.fill) on it", user,
                            code="TRN-LAYOUT")
        plan = per_view.get(view)
        if plan is None:
            try:
                plan = per_view[view] = plan_view(view, layout)
            except NotAffine as err:
                plan = per_view[view] = err
        if isinstance(plan, NotAffine):
            raise PassError(f"operand #{index} of {user.name} views buffer {btype} in a way "
                            f"that is not one strided (partition, free) pattern: {plan}", user,
                            code="TRN-LAYOUT",
                            hint="slice the view along the layout's tiles") from None
        if view not in needs:
            needs[view] = (_extent_needed(plan, "P"), _extent_needed(plan, "F"))
        for axis, need in zip(("P", "F"), needs[view]):
            if need is None:
                raise PassError(f"operand #{index} of {user.name}: cannot bound its offset",
                                user, code="TRN-LAYOUT")
            if axis == "P" and need > partitions:
                raise PassError(f"operand #{index} of {user.name} reaches partition {need - 1}"
                                f" (> {partitions - 1})", user, code="TRN-LAYOUT")
            if axis == "F":
                f_span = max(f_span, need)
        plans.append((user, index, view, plan))
    phys_alloc = AllocOp(btype.with_shape((p_span, f_span)))  # no layout: the physical tile
    changes = current_changes()  # the alloc's block; each user given a new view (below); the
    changes.removed(alloc)       # old views' blocks, where the new chains sit (erase_dead_views)
    place_like(phys_alloc, alloc)
    built: dict[SSAValue, SSAValue] = {}
    for user, index, view, plan in plans:
        if view not in built:
            # right after the view's definition: one chain serves every user of the view
            anchor = phys_alloc if view is alloc.result else view.owner
            assert isinstance(anchor, Operation) and isinstance(view.type, BufferType)
            builder = LinkingBuilder(InsertPoint.after(anchor))  # links ops as Builder does
            built[view] = build_physical_view(builder, phys_alloc.result, plan,
                                              view.type.get_shape())
        user.operands[index] = built[view]
        changes.changed(user)
    erase_dead_views(alloc.result)
    alloc.detach()
    alloc.erase()


@dataclass(frozen=True)
class TrnLowerLayoutPass(ModulePass):
    """Logical on-chip buffers -> physical [P, F] tiles; views rebuilt over them."""

    name = "trn-lower-layout"
    REPORTS_CHANGES = True  # each lowered alloc, its users and its views (`lower_buffer`)

    target: str | None = None

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in kernels(op):
            require_dispatched(kernel, self.name)
            partitions = kernel_limits(kernel, self.target).partitions
            # Each view is resolved once for the kernel (`access.shared_views`): a view chain
            # has one root buffer, and lowering one buffer changes only the views rooted at it
            # (after planning all of them) and the users it redirects to new chains, which
            # nothing resolves during the pass; a chain's prefix (a reshape every instruction
            # view slices) is then resolved once, not once per leaf.
            with shared_views():
                for alloc in allocs(kernel):
                    btype = alloc.result.type
                    assert isinstance(btype, BufferType)
                    if is_on_chip(btype):
                        lower_buffer(alloc, partitions)
