"""Trainium variant of tirx.gemm: tiles of ``nki.matmul`` accumulating in PSUM.

``D[M, N] = alpha * op(A) @ op(B) + beta * C``. TensorE computes ``out[X, Y] = stat[K, X].T @
mov[K, Y]`` with the contraction K on the partitions of both SBUF operands, so the ``default``
variant needs A and B to hold K on partitions (layouts that do, e.g. A stored as ``[K, M]`` with
``transpose_a``); otherwise ``transpose_operands`` first transposes the offending operand into a
scratch tile (a tirx.copy, lowered through an identity matmul) and gemms on that.
The output's partition dim decides the roles: when D holds M on partitions the stationary operand
is A and the moving one B; when it holds N on partitions they swap (``stat = B``, ``mov = A``).

Tiles: K by the partition tile of A/B (<= 128), X by D's partition tile (<= 128), Y by up to 512
free elements (one PSUM bank of f32). For each (X, Y) tile the K loop issues
``nki.matmul ... accumulate_if (k > 0)``: the first step overwrites the PSUM tile, the later ones
accumulate (never memset-then-accumulate, which NKI leaves undefined on NeuronCore-v2/v3). A PSUM
destination is written directly; an SBUF one through a PSUM tile of its own (its bank is not
reused while the result is still needed: the allocator sees its lifetime) and one eviction
(``tensor_copy``, or ``scalar_tensor_tensor`` for ``alpha``/``beta``).

Guards (a guarded view: the partial last tile of a loop over M, N or K) ride in the
instruction views: each guarded dim must be one TensorE tile (`check_guards`), the PSUM tile is
guarded as D is, and a guarded K tile contracts over its guarded rows of both operands (the
partition dim of the stationary and the moving operand), so a loop over K tiles accumulating
into a PSUM D (``beta = 1``) ends with a partial K tile.

tirx.gemm_async (Blackwell's asynchronous K-major form) lowers to the same through an equivalent
tirx.gemm (variant ``gemm``).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dispatch.common import (OPERANDS_ON_TRN, THREAD_SCOPE, f32_const,
                                                    local_tile, scratch_tile)
from tirx_mlir.backends.trn.dispatch.plan import (PlanOperand, TilePlan, check_guards,
                                                  partition_dims, refine)
from tirx_mlir.backends.trn.memory import ON_CHIP, PSUM, SBUF
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import const_index, guard_like
from tirx_mlir.dialects.tirx.buffer_ops import TransposeOp
from tirx_mlir.dispatch import accepts_guards, fail, register_dispatch
from tirx_mlir.dispatch.builders import (elem_type, insert_tile_op, largest_divisor_at_most,
                                         reshape, scope_of, shape_of)

TENSOR_ENGINE_DTYPES = ("f8E4M3FN", "f8E5M2", "bf16", "f16", "f32")
M, N, K = 0, 1, 2
PSUM_BANK_F32 = 512
"""f32 elements of one PSUM bank per partition: the widest Y tile of one accumulation."""


def _check_operands(op: T.GemmOp) -> None:
    for name in ("a", "b"):
        if scope_of(getattr(op, name)) != SBUF:
            fail(f"operand {name.upper()} is in {scope_of(getattr(op, name))}; TensorE reads its "
                 f"operands from {SBUF} (copy it there first)")
    for name in ("d", "c"):
        value = getattr(op, name)
        if value is not None and scope_of(value) not in ON_CHIP:
            fail(f"operand {name.upper()} is in {scope_of(value)}; the result lives on chip "
                 f"({PSUM} or {SBUF})")
    types = [dtypes.type_name(elem_type(op.a)), dtypes.type_name(elem_type(op.b))]
    for t in types:
        if t not in TENSOR_ENGINE_DTYPES:
            fail(f"TensorE multiplies {', '.join(TENSOR_ENGINE_DTYPES)}; an operand holds {t}")
    if "f32" in types and types != ["f32", "f32"]:
        fail(f"an f32 matmul operand needs an f32 partner, got A {types[0]} and B {types[1]}")


@dataclass(frozen=True)
class _Form:
    """What one gemm computes, ``D = alpha * A @ B + beta * C``: the scalars, where C comes from,
    and whether a PSUM D is accumulated into directly (else through a PSUM tile and an
    eviction)."""

    alpha: float
    beta: float
    c_value: SSAValue
    in_place: bool
    direct: bool


def _form(op: T.GemmOp) -> _Form:
    """Step 1: the scalars and the destination; declines combinations Trainium cannot do."""
    alpha, beta = op.float_prop("alpha", 1.0), op.float_prop("beta", 0.0)
    c_value = op.c if op.c is not None else op.d
    in_place = c_value is op.d
    d_psum = scope_of(op.d) == PSUM
    direct = d_psum and elem_type(op.d) == f32 and alpha == 1.0 and \
        (beta == 0.0 or (beta == 1.0 and in_place))
    if d_psum and not direct:
        fail("a PSUM destination supports f32, alpha = 1 and beta in {0, 1} with C = D "
             "(accumulate); use an SBUF destination for the rest")
    if beta != 0.0 and not direct and scope_of(c_value) == PSUM:
        fail("C is in PSUM next to the PSUM accumulator; at most one engine input may be in "
             "PSUM: copy C to SBUF")
    return _Form(alpha, beta, c_value, in_place, direct)


def _refined_operands(b: Builder, op: T.GemmOp, form: _Form
                      ) -> tuple[TilePlan, dict[str, PlanOperand], int]:
    """Step 2: D, A (as [M, K]), B (as [N, K]) and C aligned to the (M, N, K) space and refined
    along their layout tiles; returns the plan, the operands and K."""
    md, nd = shape_of(op.d)
    kd = shape_of(op.a)[0] if op.flag("transpose_a") else shape_of(op.a)[1]
    a_mk = op.a if not op.flag("transpose_a") else b.insert(TransposeOp(op.a, [1, 0])).result
    b_nk = op.b if op.flag("transpose_b") else b.insert(TransposeOp(op.b, [1, 0])).result
    ops = {"d": PlanOperand(op.d, (md, nd, 1), "D"), "a": PlanOperand(a_mk, (md, 1, kd), "A"),
           "b": PlanOperand(b_nk, (1, nd, kd), "B")}
    if form.beta != 0.0 and not form.in_place:
        ops["c"] = PlanOperand(form.c_value, (md, nd, 1), "C")
    return refine(b, (md, nd, kd), list(ops.values())), ops, kd


@dataclass(frozen=True)
class _Roles:
    """Which refined dims the TensorE tile walks: ``kt`` the contraction on partitions (None
    when K = 1), ``xt`` the output's partition dim, ``yt`` its free dim (None: one column), and
    which operand is stationary and which moving."""

    kt: int | None
    xt: int
    yt: int | None
    stat: str
    mov: str

    @property
    def y_order(self) -> list[int]:
        return [self.yt] if self.yt is not None else []


def _roles(plan: TilePlan, ops: dict[str, PlanOperand], kd: int) -> _Roles:
    """Step 3: K on the partitions of A and B, M or N on D's; the output's partition dim makes
    the operand that holds it stationary."""
    origin = plan.origin
    k_tiles = [j for j in partition_dims(ops["a"]) if origin[j] == K]
    if kd == 1:
        k_tiles = [None]
    elif not k_tiles or k_tiles[0] not in partition_dims(ops["b"]):
        fail("A and B must hold the contraction dim K on partitions (step 1): give them a "
             "layout with K on P, e.g. store A as [K, M] and set transpose_a")
    kt = k_tiles[0]
    x_tiles = partition_dims(ops["d"]) or \
        [j for j in range(len(plan.sizes)) if origin[j] == M and plan.sizes[j] == 1]  # one row
    if not x_tiles:
        fail("D must hold M or N on partitions")
    xt = x_tiles[0]
    x_role = origin[xt]
    stat, mov = ("a", "b") if x_role == M else ("b", "a")
    y_role = N if x_role == M else M
    _check_one_partition_dim(plan, ops, (kt, xt))
    if ops[stat].axes[xt][0] != "F" and plan.sizes[xt] > 1:
        fail(f"{ops[stat].name} must hold the output's partition dim on its free axis")
    y_dims = [j for j in range(len(plan.sizes)) if origin[j] == y_role and plan.sizes[j] > 1]
    return _Roles(kt, xt, y_dims[-1] if y_dims else None, stat, mov)


def _check_one_partition_dim(plan: TilePlan, ops: dict[str, PlanOperand],
                             allowed: tuple[int | None, int]) -> None:
    for o in ops.values():
        for j, (axis, _) in enumerate(o.axes):
            if plan.sizes[j] == 1 or axis is None or j in allowed:
                continue
            if axis == "P":
                fail(f"{o.name} holds a second dim on partitions (refined dim {j}); one "
                     f"partition dim per operand")


def _choose_tiles(plan: TilePlan, roles: _Roles, direct: bool) -> tuple[list[int], list[int]]:
    """Step 4: whole partition tiles of X and K, Y by up to 512 f32 (one PSUM bank; a power of
    two when writing PSUM directly); returns the (X, Y) loops and the K loops."""
    for j in range(len(plan.sizes)):
        plan.chunk[j] = 1
    plan.chunk[roles.xt] = plan.sizes[roles.xt]
    if roles.kt is not None:
        plan.chunk[roles.kt] = plan.sizes[roles.kt]
    if roles.yt is not None:
        size = plan.sizes[roles.yt]
        plan.chunk[roles.yt] = largest_divisor_at_most(size, PSUM_BANK_F32) if not direct else \
            max(c for c in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512) if size % c == 0)
    walked = [j for j in range(len(plan.sizes)) if plan.chunk[j] < plan.sizes[j]]
    return [j for j in walked if plan.origin[j] != K], [j for j in walked if plan.origin[j] == K]


def _gemm(op: T.GemmOp, ctx) -> None:
    _check_operands(op)
    form = _form(op)
    b = ctx.builder
    plan, ops, kd = _refined_operands(b, op, form)
    roles = _roles(plan, ops, kd)
    loops_xy, loops_k = _choose_tiles(plan, roles, form.direct)
    check_guards(plan)
    if plan.guards and roles.kt is None:
        fail("a guarded gemm with K = 1 (its one contraction row is a reshaped view)")
    x_size = plan.sizes[roles.xt]
    y_size = plan.chunk[roles.yt] if roles.yt is not None else 1
    acc = None if form.direct else scratch_tile(b, op, [x_size, y_size], f32, PSUM,
                                                "the gemm's PSUM accumulator")
    alpha_v = f32_const(b, form.alpha) if form.alpha != 1.0 else None
    beta_v = f32_const(b, form.beta) if form.beta not in (0.0, 1.0) else None
    zero = const_index(b, 0) if loops_k else None
    out_order = [roles.xt, *roles.y_order]

    def k_step(b2: Builder, ivs, counters, out: SSAValue) -> None:
        """Step 5: one ``nki.matmul`` of the K loop (the first step overwrites PSUM)."""
        if roles.kt is None:  # K = 1: one partition holds the single contraction row
            s = reshape(b2, plan.instruction_view(b2, ops[roles.stat], ivs, order=[roles.xt]),
                        [1, x_size])
            m = reshape(b2, plan.instruction_view(b2, ops[roles.mov], ivs,
                                                  order=roles.y_order or [roles.xt]), [1, y_size])
        else:
            s = plan.instruction_view(b2, ops[roles.stat], ivs, order=[roles.kt, roles.xt])
            m = plan.instruction_view(b2, ops[roles.mov], ivs, order=[roles.kt, *roles.y_order])
        cond = _not_first(b2, [counters[j] for j in loops_k], zero)
        accumulate = form.direct and form.beta == 1.0
        b2.insert(nki.MatmulOp(out, s, m, None if accumulate else cond, accumulate=accumulate))

    def block(bb: Builder, ivs, counters) -> None:
        d = plan.instruction_view(bb, ops["d"], ivs, order=out_order)
        out = d if acc is None else guard_like(bb, acc, d)  # a guarded D: its PSUM tile too
        plan.emit(bb, loops_k, lambda b2, ivs2, counters2: k_step(b2, ivs2, counters2, out),
                  ivs, counters)
        if acc is None:
            return
        c = d if form.in_place or form.beta == 0.0 else \
            plan.instruction_view(bb, ops["c"], ivs, order=out_order)
        _evict(bb, form, d, c, out, alpha_v, beta_v)

    plan.emit(b, loops_xy, block)


def _evict(b: Builder, form: _Form, d: SSAValue, c: SSAValue, acc: SSAValue,
           alpha_v: SSAValue | None, beta_v: SSAValue | None) -> None:
    """Step 6: ``d = alpha * acc + beta * c`` from the PSUM tile, in as few instructions as the
    scalars allow."""
    if form.beta == 0.0:
        if alpha_v is None:
            b.insert(nki.TensorCopyOp(d, acc))
        else:
            b.insert(nki.TensorScalarOp(d, acc, alpha_v, op0="multiply"))
        return
    if form.beta == 1.0 and alpha_v is None:
        b.insert(nki.TensorTensorOp(d, c, acc, op="add"))
        return
    if beta_v is not None:
        b.insert(nki.TensorScalarOp(d, c, beta_v, op0="multiply"))
        c = d
    b.insert(nki.ScalarTensorTensorOp(d, acc, alpha_v or f32_const(b, 1.0), c,
                                      op0="multiply", op1="add"))


def _not_first(b: Builder, counters: list[SSAValue], zero: SSAValue | None) -> SSAValue | None:
    """``any(counter != 0)`` as an i1, or None when there is no K loop."""
    cond = None
    for q in counters:
        ne = b.insert(arith.CmpiOp(q, zero, "ne")).result  # type: ignore[arg-type]
        cond = ne if cond is None else b.insert(arith.OrIOp(cond, ne)).result
    return cond


register_dispatch(T.GemmOp, "trn", variant="default", priority=10,
                  when=(THREAD_SCOPE, OPERANDS_ON_TRN))(accepts_guards(_gemm))


def _holds_on_partitions(value: SSAValue, dim: int) -> bool:
    """Whether view dim ``dim`` of ``value`` walks partitions with step 1 (in its root layout)."""
    from tirx_mlir.backends.trn.layout.layouts import effective_layout
    from tirx_mlir.backends.trn.layout.physical_access import (NotAffine, physical_access,
                                                                   root_buffer_type)

    try:
        access = physical_access(value, effective_layout(root_buffer_type(value)),
                                 allow_split=True)
    except NotAffine:
        return False
    return any(p.axis == "P" and p.step == 1 for p in access.dims[dim])


def _transposed_copy(b: Builder, value: SSAValue, origin: T.GemmOp) -> SSAValue:
    """A scratch SBUF tile holding ``value``'s transpose with its (new) dim 0 on partitions,
    filled by a tirx.copy that trn lowers to a transpose through an identity matmul."""
    rows, cols = shape_of(value)
    tile = local_tile(b, [cols, rows], elem_type(value))
    source = b.insert(TransposeOp(value, [1, 0])).result
    tile = guard_like(b, tile, source)  # a guarded operand: its transpose guarded alike
    insert_tile_op(b, T.CopyOp(tile, source), origin)
    return tile


def _gemm_transpose_operands(op: T.GemmOp, ctx) -> None:
    """A or B with K on its free axis (e.g. A stored [M, K] with the default layout): transpose
    it into a scratch tile with K on partitions, then the gemm on that (dispatched in turn)."""
    _check_operands(op)
    ta, tb = op.flag("transpose_a"), op.flag("transpose_b")
    need_a = not _holds_on_partitions(op.a, 0 if ta else 1)
    need_b = not _holds_on_partitions(op.b, 1 if tb else 0)
    if not (need_a or need_b):
        fail("A and B already hold K on partitions (nothing to transpose)")
    b = ctx.builder
    a = _transposed_copy(b, op.a, op) if need_a else op.a
    bb = _transposed_copy(b, op.b, op) if need_b else op.b
    insert_tile_op(b, T.GemmOp(op.d, a, bb, op.c, op.workspace, transpose_a=ta != need_a,
                               transpose_b=tb != need_b, alpha=op.alpha, beta=op.beta), op)


register_dispatch(T.GemmOp, "trn", variant="transpose_operands", priority=0,
                  when=(THREAD_SCOPE, OPERANDS_ON_TRN))(accepts_guards(_gemm_transpose_operands))


def _gemm_async(op: T.GemmAsyncOp, ctx) -> None:
    """gemm_async (``C (+)= op(A) @ op(B)^T`` with B K-major) as the equivalent tirx.gemm,
    dispatched in turn: TensorE matmuls complete in program order on Trainium."""
    if op.sfa is not None:
        fail("block-scaled gemm_async (sfa/sfb) has no Trainium lowering")
    beta = 1.0 if op.flag("accum") else None
    insert_tile_op(ctx.builder, T.GemmOp(op.c, op.a, op.b, None, transpose_a=op.flag("transpose_a"),
                                         transpose_b=not op.flag("transpose_b"), beta=beta), op)


register_dispatch(T.GemmAsyncOp, "trn", variant="gemm", priority=10,
                  when=(THREAD_SCOPE, OPERANDS_ON_TRN))(accepts_guards(_gemm_async))
