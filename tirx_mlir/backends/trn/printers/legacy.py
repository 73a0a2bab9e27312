"""``-t nki-legacy``: the ``neuronxcc.nki`` form TIRx emits for trn1 (apache/tvm `src/backend/trn/codegen/codegen_trn.cc`).

TVM's header, decorators (stack allocator, skip middle-end, baremetal with mutable parameters)
and signature (``def k(A, B: nt.mutable_tensor):``, outputs returned); ``nl.ndarray`` with
``ncc.sbuf.mod_alloc(base_addr=...)`` / ``ncc.psum.mod_alloc(...)`` when the allocator set an
address; assignment-style instructions (``t[...] = nisa.op(...)``, ``psum[...] +=
nisa.nc_matmul(...)``); tensorized ``nl.arange`` indexing, one index per buffer dim that is
affine in the aranges and loop variables (``t[i0, k * 512 + i1]``), declared before each
instruction as TVM does; loops as ``nl.sequential_range``. A view of an HBM tensor with a layout indexes its flat array
with one subscript (``A[i0 + 128 * i1]`` for a column-major ``128x512``).

Legacy NKI indexes all operands of one instruction with the same index space, so the full
operands of an elementwise instruction must have equal shapes once unit dims are dropped; a
matmul with ``accumulate_if`` prints an ``if`` on the condition and unrolls the loops it depends
on (``nl.static_range``) so the condition is a Python bool at trace time.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects import arith, scf
from xdsl.ir import BlockArgument, Operation, SSAValue

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.backends.trn.printers.emitter import (AFFINE_CMP_PY, LOOP_ATTR, SCOPE_HINT,
                                                     NkiEmitterBase, hbm_flat,
                                                     index_slots)
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import (AccessPattern, constant_value, index_expr,
                                            resolve_access)
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import CtaIdOp, KernelOp
from tirx_mlir.printers.source_printer import shown

HEADER = (
    "import neuronxcc.nki.language as nl",
    "from neuronxcc.nki import baremetal, benchmark, simulate_kernel, trace",
    "import numpy as np",
    "import neuronxcc.nki.isa as nisa",
    "import math",
    "import neuronxcc.nki as nki",
    "import neuronxcc.nki.typing as nt",
    "import neuronxcc.nki.compiler as ncc",
)
SCOPES = {checks.HBM: "nl.shared_hbm", checks.SBUF: "nl.sbuf", checks.PSUM: "nl.psum"}
"""The memory scopes a legacy ndarray may live in (the closed table the printer checks)."""
DECORATORS = (
    "@nki.compiler.enable_stack_allocator",
    "@nki.compiler.skip_middle_end_transformations",
    "@baremetal(experimental_flags='enable-mutable-parameter', "
    "additional_compile_opt='--internal-skip-backend-allocation-opt-nki')",
)


class NkiLegacyPrinter(NkiEmitterBase):
    API: ClassVar[str] = "legacy"
    DESCRIPTION: ClassVar[str] = "legacy NKI printer"
    HEADER: ClassVar[tuple[str, ...]] = HEADER
    DTYPES: ClassVar[dict[str, str]] = {
        "f32": "np.float32", "f16": "np.float16", "bf16": "nl.bfloat16",
        "f8E5M2": "nl.float8_e5m2", "i8": "np.int8", "i16": "np.int16", "i32": "np.int32",
        "i64": "np.int64", "ui8": "np.uint8", "ui16": "np.uint16", "ui32": "np.uint32",
        "i1": "np.bool_"}
    DEFAULT_LOOP: ClassVar[str] = "sequential"
    LOOP_FUNCS: ClassVar[dict[str, str]] = {"sequential": "nl.sequential_range",
                                            "affine": "nl.affine_range",
                                            "static": "nl.static_range"}
    ENGINE_FORMAT: ClassVar[str] = "nisa.{}_engine"
    CMP_FUNCS: ClassVar[dict[str, str]] = AFFINE_CMP_PY

    def __init__(self, module):
        super().__init__(module)
        self.aranges: dict[tuple[int, int, int], str] = {}
        self.pending: dict[str, str] = {}
        self.shapes: list[tuple[str, tuple[int, ...]]] = []
        self.masks: dict[str, str] = {}  # mask term -> the arange it bounds
        self.mask_only: set[str] | None = None  # a matmul: the mask terms of its contraction
        self.static_loops: set[scf.ForOp] = set()

    # ---- kernel frame ----
    def emit_kernel(self, kernel: KernelOp) -> None:
        self.aranges = {}
        self.static_loops = self.loops_feeding_conditions(kernel)
        super().emit_kernel(kernel)

    def emit_signature(self, kernel: KernelOp, fn_name: str) -> None:
        for decorator in DECORATORS:
            self.line(decorator)
        params = [self.names[a] for a in kernel.inputs]
        params += [f"{self.names[a]}: nt.mutable_tensor" for a in kernel.outputs]
        self.line(f"def {fn_name}({', '.join(params)}):")

    def ndarray(self, value: SSAValue, address: int | None, op: Operation) -> str:
        btype = value.type
        assert isinstance(btype, BufferType)
        shape = self.memory_shape(value, op)
        where = btype.scope_name
        self.choose(SCOPES, where, "memory scope", op, hint=SCOPE_HINT)
        if where == checks.HBM:
            buffer = "nl.shared_hbm"
        elif address is None:
            buffer = "nl.sbuf" if where == checks.SBUF else "nl.psum"
        elif where == checks.SBUF:
            buffer = f"ncc.sbuf.mod_alloc(base_addr={address})"
        else:
            bank, offset = divmod(address, 2048)
            buffer = f"ncc.psum.mod_alloc(base_bank={bank}, base_addr={offset}, " \
                     f"num_bank_tiles=(1,))"
        return f"nl.ndarray(shape={shape}, dtype={self.dtype(btype, op)}, buffer={buffer})"

    def loops_feeding_conditions(self, kernel: KernelOp) -> set[scf.ForOp]:
        """Loops whose variable a matmul's accumulate_if depends on (printed unrolled)."""
        loops: set[scf.ForOp] = set()
        work = [op.accumulate_if for op in kernel.walk()
                if isinstance(op, nki.MatmulOp) and op.accumulate_if is not None]
        while work:
            value = work.pop()
            if isinstance(value, BlockArgument):
                parent = value.block.parent_op()
                if isinstance(parent, scf.ForOp):
                    loops.add(parent)
            elif isinstance(value.owner, Operation) and value.owner.dialect_name() == "arith":
                work.extend(value.owner.operands)
        return loops

    def loop_function(self, op: scf.ForOp) -> str:
        if op not in self.static_loops:
            return super().loop_function(op)
        kind = self.loop_kind(op, "static")
        if kind != "static":
            raise self.fail(f"this loop must unroll (nl.static_range) because a matmul's "
                            f"accumulate_if depends on its variable, but {LOOP_ATTR} = "
                            f"{shown(kind)}", op)
        return self.LOOP_FUNCS["static"]

    # ---- views: tensorized arange indexing ----
    def slot_dims(self, access: AccessPattern) -> list[int]:
        return index_slots(access)

    def arange(self, slot: int, rank: int, size: int, op: Operation) -> str:
        size = self.checked_int(size, op)
        key = (slot, rank, size)
        if key not in self.aranges:
            self.aranges[key] = self.namer.fresh(f"i{slot}")
        name = self.aranges[key]
        bcast = ", ".join(":" if q == slot else "None" for q in range(rank))
        self.pending[name] = f"{name} = nl.arange({size})[{bcast}]"
        return name

    def tile(self, value: SSAValue, op: Operation, role: str = "full",
             slots: tuple[dict[int, tuple[int, int]], int] | None = None) -> str:
        """The view as ``base[subscripts]`` over aranges: view dim ``d`` gets the arange of slot
        ``q`` in a rank-``len(dims)`` index space, or (``slots``: view dim -> (slot, arange
        size), and a rank) the slots given; dims left out are indexed by their offset only."""
        access = resolve_access(value)
        base = self.buffer_name(access.buffer, op)
        dims = self.slot_dims(access)
        sizes = tuple(access.sizes[d] for d in dims)
        self.shapes.append((role, sizes))
        slot_of, rank = slots or ({d: (q, access.sizes[d]) for q, d in enumerate(dims)},
                                  len(dims))
        index_vars = {d: self.arange(q, rank, n, op) for d, (q, n) in slot_of.items()}
        for d, var in index_vars.items():
            guard = access.guard(d)
            if guard is not None:
                self.masks[f"({var} < {self.mask_bound(guard, access.sizes[d], op)})"] = var
        return self.indexed(access, base, index_vars, op)

    def mask_bound(self, guard: SSAValue, size: int, op: Operation) -> str:
        """A guarded dim as the bound of a legacy mask ``i < bound``: the guard, affine in loop
        variables and program ids, or ``min(c, e)`` with ``c`` at least the dim's maximum
        (the arange stops there already), which is ``e``."""
        owner = guard.owner
        if isinstance(owner, arith.MinSIOp):
            for a, b in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
                c = constant_value(a)
                if isinstance(c, int) and c >= size:
                    guard = b
                    break
        expr = index_expr(guard)
        for value, _ in expr.terms:
            if not isinstance(value, BlockArgument) and not isinstance(value.owner, CtaIdOp):
                raise self.fail("a legacy NKI mask compares aranges with affine expressions of "
                                "loop variables and program ids; this guard is not one "
                                "(min(c, e) with c >= the dim's maximum is)", op,
                                hint="print with -t nki (a traced nl.ds size)")
        return self.index_text(expr, op)

    def indexed(self, access: AccessPattern, base: str, index_vars: dict[int, str],
                op: Operation, prefix: str = "") -> str:
        """``base[...]`` over the aranges: one flat subscript for a laid-out HBM tensor (or a
        view that merges dims), else one per buffer dim; ``prefix`` starts the first."""
        placement = self.placement(access.buffer, op)
        self.check_merged(access, placement, op)
        if access.flat and access.buffer_type.scope_name != checks.HBM:
            raise self.fail("a reshape merges dims of an on-chip tensor, which legacy NKI "
                            "cannot index", op, hint="print with -t nki")
        if placement is not None or access.flat:  # the flat array (TVM's X.reshape([numel]))
            offset, steps = hbm_flat(access, placement)
            if placement is None:
                base = f"{base}.reshape([{self.checked_int(access.buffer_type.numel, op)}])"
            return f"{base}[{prefix}{self.affine_subscript(offset, steps, index_vars, op)}]"
        subscripts = [self.affine_subscript(offset, [step[j] for step in access.steps],
                                            index_vars, op)
                      for j, offset in enumerate(access.offset)]
        subscripts[0] = prefix + subscripts[0]
        return f"{base}[{', '.join(subscripts)}]"

    def affine_subscript(self, offset, steps, index_vars: dict[int, str], op: Operation) -> str:
        """``offset + step_d * i_d + ...`` over the view dims' aranges."""
        terms = [] if offset.is_const() and offset.const == 0 else [self.index_text(offset, op)]
        for d, var in index_vars.items():
            step = steps[d]
            if step:
                terms.append(var if step == 1 else f"{self.int_literal(step, op)} * {var}")
        return " + ".join(terms) or "0"

    # ---- instructions ----
    def flush(self, op: Operation, statement: str) -> None:
        """Declare the aranges the statement uses, check its full operands agree, print it."""
        full = {sizes for role, sizes in self.shapes if role == "full"}
        self.shapes = []
        if len(full) > 1:
            shapes = " and ".join(str(list(s)) for s in sorted(full))
            self.pending = {}
            raise self.fail(f"legacy NKI indexes every operand of one instruction with the same "
                            f"aranges, but the operands are {shapes} (unit dims dropped)", op,
                            hint="give the operands the same shape, or print with -t nki (the "
                            "current API allows different free shapes)")
        for decl in self.pending.values():
            self.line(decl)
        self.pending = {}
        self.masks = {}
        self.line(statement)

    def instruction(self, fn: str, op: Operation, dst: SSAValue | None, args, *,
                    augmented: bool = False, dst_role: str = "full",
                    dst_slots: tuple[dict[int, tuple[int, int]], int] | None = None) -> None:
        parts = [f'{k}={v}' if k else v for k, v in args if v is not None]
        target = None if dst is None else self.tile(dst, op, dst_role, dst_slots)
        masks = [t for t in self.masks if self.mask_only is None or t in self.mask_only]
        if masks:  # guarded operands: the instruction runs where every guard holds
            parts.append(f"mask={' & '.join(masks)}")
        call = f"{fn}({', '.join(parts)})"
        if target is None:
            self.flush(op, call)
            return
        self.flush(op, f"{target} {'+=' if augmented else '='} {call}")

    def emit_nki_load(self, op: nki.LoadOp) -> None:
        src = self.broadcast_rows(op) if op.is_partition_broadcast() else self.tile(op.src, op)
        self.instruction("nl.load", op, op.dst, [("", src)])

    def broadcast_rows(self, op: nki.LoadOp | nki.DmaCopyOp) -> str:
        """An HBM row read once per destination partition: the row's subscript plus ``0 *
        i_p`` over the destination's partition arange, so the index (hence the loaded tile)
        has the destination's shape ``[P, N]`` (legacy NKI: the tile's shape is the broadcast
        shape of its index arrays, the first axis the partitions)."""
        access = resolve_access(op.src)
        base = self.buffer_name(access.buffer, op)
        dims = sorted({0, *self.slot_dims(access)})
        partitions = op.dst.type.get_shape()[0]  # type: ignore[attr-defined]
        sizes = [partitions if d == 0 else access.sizes[d] for d in dims]
        self.shapes.append(("full", tuple(sizes)))
        index_vars = {d: self.arange(q, len(dims), n, op)
                      for q, (d, n) in enumerate(zip(dims, sizes))}
        return self.indexed(access, base, index_vars, op, f"0 * {index_vars.pop(0)} + ")

    def emit_nki_store(self, op: nki.StoreOp) -> None:
        self.instruction("nl.store", op, None,
                         [("", self.tile(op.dst, op)), ("value", self.tile(op.src, op))])

    def emit_nki_dma_copy(self, op: nki.DmaCopyOp) -> None:
        src = self.broadcast_rows(op) if op.is_partition_broadcast() else self.tile(op.src, op)
        self.instruction("nisa.dma_copy", op, None, [("dst", self.tile(op.dst, op)), ("src", src)])

    def emit_nki_memset(self, op: nki.MemsetOp) -> None:
        """An assignment of the value; a guarded view (a mask) is ``nisa.memset(shape, value,
        dtype, mask=...)``, the assignment taking no mask."""
        value = self.value_literal(op.value, op.dst, op)
        access = resolve_access(op.dst)
        if access.guards is None:
            self.flush(op, f"{self.tile(op.dst, op)} = {value}")
            return
        shape = [self.checked_int(access.sizes[d], op) for d in self.slot_dims(access)]
        self.instruction("nisa.memset", op, op.dst,
                         [("shape", f"({', '.join(map(str, shape))},)"), ("value", value),
                          ("dtype", self.dtype(op.dst.type, op))])

    def pattern_expr(self, op: nki.IotaOp | nki.AffineSelectOp) -> str:
        """``offset + channel_multiplier * p + sum(step_d * i_d)`` over broadcast aranges."""
        nparts = self.checked_int(checks.partitions(op.dst), op)
        dims = [(step, n) for step, n in self.pattern(op) if n != 1]
        rank = 1 + len(dims)
        if rank < 2:
            dims.append((0, 1))
            rank = 2
        self.shapes.append(("full", (nparts, *(n for _, n in dims))))
        terms = [self.offset_text(op)]
        p = self.arange(0, rank, nparts, op)
        multiplier = self.integer(op, "channel_multiplier")
        if multiplier != "0":
            terms.append(f"{multiplier} * {p}")
        else:
            terms.append(f"0 * {p}")
        for q, (step, n) in enumerate(dims, start=1):
            terms.append(f"{step} * {self.arange(q, rank, n, op)}")
        return " + ".join(terms).replace("+ -", "- ")

    def emit_nki_iota(self, op: nki.IotaOp) -> None:
        self.instruction("nisa.iota", op, op.dst,
                         [("", self.pattern_expr(op)), ("dtype", self.dtype(op.dst.type, op))])

    def emit_nki_affine_select(self, op: nki.AffineSelectOp) -> None:
        cmp = self.choose(self.CMP_FUNCS, self.word(op, "cmp"), "affine_select comparison", op)
        pred = f"({self.pattern_expr(op)} {cmp} 0)"
        self.instruction("nisa.affine_select", op, op.dst,
                         [("pred", pred), ("on_true_tile", self.tile(op.on_true, op)),
                          ("on_false_value", self.real(op, "on_false"))])

    def emit_nki_identity(self, op: nki.IdentityOp) -> None:
        n = self.checked_int(checks.partitions(op.dst), op)
        const = self.namer.fresh("identity_np")
        self.line(f"{const} = nl.shared_constant(np.identity({n}, dtype=np.int8), "
                  f"dtype={self.dtype(op.dst.type, op)})")
        i, j = self.arange(0, 2, n, op), self.arange(1, 2, n, op)
        self.shapes.append(("full", (n, n)))
        self.instruction("nl.load", op, op.dst, [("", f"{const}[{i}, {j}]")])

    def emit_nki_matmul(self, op: nki.MatmulOp) -> None:
        stationary = self.tile(op.stationary, op, "own")
        moving = self.tile(op.moving, op, "own")
        for role, sizes in self.shapes:
            if len(sizes) != 2:
                self.shapes, self.pending = [], {}
                raise self.fail("legacy nc_matmul takes 2-D [K, M] and [K, N] tiles; an operand "
                                f"has shape {list(sizes)} once unit dims are dropped", op,
                                hint="view the operands as 2-D tiles, or print with -t nki")
        args = [("", stationary), ("", moving)]
        # A guarded matmul is masked on its contraction (the operands' partition arange): the
        # output's guarded rows/columns are computed at their maxima, the PSUM tile's rows past
        # a guard being unspecified, and its masked eviction keeps the guarded part.
        contraction = self.arange(0, 2, checks.partitions(op.stationary), op)
        self.mask_only = {t for t, var in self.masks.items() if var == contraction}
        try:
            self.matmul_call(op, args)
        finally:
            self.mask_only = None

    def matmul_call(self, op: nki.MatmulOp, args) -> None:
        if op.accumulate_if is None:
            self.instruction("nisa.nc_matmul", op, op.dst, args,
                             augmented=op.flag("accumulate"), dst_role="own")
            return
        saved = dict(self.pending), list(self.shapes), dict(self.masks)
        self.line(f"if {self.expr(op.accumulate_if)}:")
        with self.body():
            self.instruction("nisa.nc_matmul", op, op.dst, args, augmented=True,
                             dst_role="own")
        self.line("else:")
        self.pending, self.shapes, self.masks = saved
        with self.body():
            self.instruction("nisa.nc_matmul", op, op.dst, args, dst_role="own")

    def emit_nki_transpose(self, op: nki.TransposeOp) -> None:
        self.instruction("nisa.nc_transpose", op, op.dst,
                         [("data", self.tile(op.src, op, "own")),
                          ("engine", self.transpose_engine(op))], dst_role="own")

    def emit_nki_tensor_reduce(self, op: nki.TensorReduceOp) -> None:
        src_access = resolve_access(op.src)
        src_dims = self.slot_dims(src_access)
        axes = [q for q, d in enumerate(src_dims) if d in op.normalized_axes()]
        if not axes:
            raise self.fail("the reduced dims are all unit dims; legacy NKI has nothing to "
                            "reduce", op, hint="use nki.tensor_copy")
        dst_access = resolve_access(op.dst)
        dst_rank = len(self.slot_dims(dst_access))
        slots = None
        if dst_rank not in (len(src_dims), len(src_dims) - len(axes)):
            slots = self.kept_slots(op, src_access, src_dims, axes, dst_access)
        keepdims = dst_rank != len(src_dims) - len(axes)
        data = self.tile(op.src, op, "own")
        self.instruction("nisa.tensor_reduce", op, op.dst,
                         [("op", self.alu(op, "op")), ("data", data),
                          ("axis", str(axes)), ("negate", str(op.flag("negate"))),
                          ("keepdims", str(keepdims))], dst_role="own", dst_slots=slots)

    def kept_slots(self, op: Operation, src: AccessPattern, src_dims: list[int],
                   axes: list[int], dst: AccessPattern) -> tuple[dict[int, tuple[int, int]], int]:
        """Index dst in the source's rank (a keepdims result: the reduced slots are unit): its
        partition dim on slot 0 and its free dims on the kept slots in order, consecutive dst
        dims that walk memory contiguously sharing one slot. This is how a reduction over several
        axes (``[128, 4, 64] -> [128, 1]``) assigns to a destination of lower rank."""
        kept = [q for q in range(1, len(src_dims))
                if q not in axes and src.sizes[src_dims[q]] != 1]
        dims = [d for d in range(1, len(dst.sizes)) if dst.sizes[d] != 1]
        slots = {0: (0, dst.sizes[0])}
        for q in kept:
            want, size, inner = src.sizes[src_dims[q]], 1, None
            while dims and size < want and (inner is None or dst.steps[inner] == tuple(
                    dst.sizes[dims[0]] * s for s in dst.steps[dims[0]])):
                inner = dims.pop(0)
                size *= dst.sizes[inner]
            if size != want:
                break
            slots[inner] = (q, want)
        else:
            if not dims:
                return slots, len(src_dims)
        raise self.fail(f"legacy tensor_reduce keeps the source's dims "
                        f"{[src.sizes[src_dims[q]] for q in kept]}, which dst (free dims "
                        f"{[n for n in dst.sizes[1:] if n != 1]}) does not lay out "
                        f"contiguously: a reshape legacy NKI cannot index", op,
                        hint="give dst the kept dims, or print with -t nki")

    def emit_nki_select(self, op: nki.SelectOp) -> None:
        on_false = self.tile(op.on_false, op) if checks.is_tile(op.on_false) else \
            self.value_literal(op.on_false, op.dst, op)
        self.instruction("nl.where", op, op.dst,
                         [("", self.tile(op.predicate, op)), ("", self.tile(op.on_true, op)),
                          ("", on_false)])

    def dtype(self, t, op: Operation | None = None) -> str:
        if dtypes.type_name(t.element_type if isinstance(t, BufferType) else t) == "f8E4M3FN":
            raise self.fail("legacy NKI has no OCP float8_e4m3fn (its float8_e4m3 is Neuron's own "
                            "format)", op, hint="print with -t nki, or use f8E5M2")
        return super().dtype(t, op)

