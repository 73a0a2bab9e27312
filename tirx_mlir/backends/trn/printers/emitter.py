"""The shared structure of the NKI printers: a kernel's frame, loops, allocation, the common ops.

Input contract (what the trn pipeline produces; see printers/__init__.py): a module of
``tirx.kernel`` ops whose bodies hold ``tirx.alloc`` (trn.sbuf / trn.psum / global, optionally
with a ``trn.addr`` byte offset), views (``tirx.slice`` / ``tirx.transpose`` /
``tirx.reshape``), ``scf.for`` / ``scf.if`` without results, ``arith`` scalar arithmetic,
``tirx.cta_id`` and nki ops.

`NkiEmitterBase` is a `tirx_mlir.printers.SourcePrinter` for the ``PYTHON`` language: the base
does naming, indentation, dispatch to one ``emit_<op>`` method per op (a located
``[nki-print]`` error for any other op), and inlines views and scalar arithmetic where used
(Python's operator table: ``//`` and ``%`` floor). Every attribute string printed here comes
from a closed table below (ALU operators, activation functions, engines, comparisons, loop
kinds, dtypes, memory scopes), and a ``trn.addr`` must lie inside its memory.

A generation subclass (`current.NkiPrinter`, `legacy.NkiLegacyPrinter`) sets a few class
attributes (header, dtype, loop and engine spellings) and provides ``tile()`` (how a view is
written), ``instruction()`` (how the destination is passed) and the ops whose form differs;
every other nki op is printed here by one ``emit_<op>`` method each.

HBM tensors with a layout (`tirx_mlir.dialects.tirx.global_layout`: column-major, strided,
padded) are printed as what lies in HBM: a flat array of the layout's span, which the caller
fills by the layout (``GlobalPlacement.place``) and reads back with ``logical_view``; a comment
at the top of the kernel says so, and every view of it is indexed by the layout's strides
(`hbm_flat`). A layout that is not one stride per dim is a located error at the kernel, naming
the parameter (or at the allocation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from xdsl.dialects.builtin import (FloatAttr, IndexType, IntegerAttr, IntegerType, ModuleOp,
                                   StringAttr)
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.trn import memory
from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dialects.nki import checks, tables
from tirx_mlir.backends.trn.dialects.nki.movement import ENGINE_CHOICES
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx.access import AccessPattern, IndexExpr
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.global_layout import GlobalPlacement, global_placement
from tirx_mlir.dialects.tirx.layout import LayoutError
from tirx_mlir.dialects.tirx.kernel import CtaIdOp, KernelOp, ReturnOp
from tirx_mlir.printers import PYTHON, SourcePrinter
from tirx_mlir.printers.source_printer import INT64_MAX, shown

if TYPE_CHECKING:
    from xdsl.dialects import scf

LOOP_ATTR = "trn.loop"
"""Optional string attribute on ``scf.for``: 'sequential', 'affine' or 'static' (the NKI loop
kind); without it the current API prints ``range`` and the legacy API ``nl.sequential_range``."""

ALU = {name: f"nl.{name}" for name in tables.ALU_OPS}
ACTIVATION_FUNCS = {name: f"nl.{name}" for name in tables.ACTIVATIONS}
ENGINES = (*ENGINE_CHOICES, "tensor")
AFFINE_CMP_PY = {"greater": ">", "greater_equal": ">=", "equal": "==", "not_equal": "!="}
SCOPE_HINT = ("NKI buffers live in trn.sbuf, trn.psum or global (HBM): print kernels after the "
              "trn pipeline, which dispatches tile ops and places their buffers")
assert set(AFFINE_CMP_PY) == set(tables.AFFINE_SELECT_CMPS)


def index_slots(access: AccessPattern) -> list[int]:
    """The view dims a printed tile keeps: the non-unit ones, the partition dim of an on-chip
    tile always, and trailing unit dims until there are two (NKI tiles are at least 2-D). Unit
    dims left out are indexed with an integer, which drops them, so operands whose shapes
    differ only by unit dims print with equal shapes."""
    sizes = access.sizes
    dims = [d for d, n in enumerate(sizes) if n != 1]
    if access.buffer_type.scope_name in memory.ON_CHIP and 0 not in dims:
        dims.insert(0, 0)
    for d in reversed(range(len(sizes))):
        if len(dims) >= 2:
            break
        if d not in dims:
            dims.append(d)
    return sorted(dims)


def hbm_flat(access: AccessPattern, placement: GlobalPlacement | None
             ) -> tuple[IndexExpr, list[int]]:
    """A view of an HBM tensor as (element offset, step per view dim) in its flat array: through
    the placement's strides, or (None: a row-major tensor) its row-major flat index."""
    if placement is None:
        return access.flat_offset(), list(access.flat_steps())
    offset = IndexExpr(placement.offset)
    for o, s in zip(access.offset, placement.strides):
        offset = offset + o.scale(s)
    steps = [sum(k * s for k, s in zip(step, placement.strides)) for step in access.steps]
    return offset, steps


class NkiEmitterBase(SourcePrinter):
    """Prints one module; subclasses set the generation."""

    LANGUAGE = PYTHON
    ERROR_CODE: ClassVar[str] = "nki-print"
    RESERVED: ClassVar[frozenset[str]] = frozenset({
        "nl", "nisa", "nki", "np", "math", "ncc", "nt", "baremetal", "benchmark",
        "simulate_kernel", "trace"})
    UNPRINTABLE_HINT: ClassVar[str | None] = (
        "print kernels after the trn pipeline: tile ops must be dispatched to nki ops first")
    API: ClassVar[str]
    """'current' or 'legacy' (the signature table the output is checked against)."""
    HEADER: ClassVar[tuple[str, ...]]
    DTYPES: ClassVar[dict[str, str]]
    DEFAULT_LOOP: ClassVar[str]
    LOOP_FUNCS: ClassVar[dict[str, str]]
    ENGINE_FORMAT: ClassVar[str]
    CMP_FUNCS: ClassVar[dict[str, str]]
    """affine_select's comparison, as the generation writes it."""

    def __init__(self, module: ModuleOp):
        super().__init__(module)
        self.kernel: KernelOp | None = None
        self.kernel_limits: TrnLimits | None = None
        self.engines = {name: self.ENGINE_FORMAT.format(name) for name in ENGINES}

    def emit_module(self) -> str:
        kernels = self.module_kernels()
        self.line(f"# NKI kernel{'s' if len(kernels) > 1 else ''} generated by tirx_mlir "
                  f"({self.API} API)")
        for text in self.HEADER:
            self.line(text)
        for kernel in kernels:
            self.line()
            self.line()
            self.emit_kernel(kernel)
        return self.text()

    # ---- kernels and blocks ----
    def emit_kernel(self, kernel: KernelOp) -> None:
        self.kernel = kernel
        self.kernel_limits = None
        fn_name = self.start_function(kernel)
        self.name_values(kernel.body.block.args, "arg")
        self.emit_signature(kernel, fn_name)
        with self.body():
            if kernel.num_ctas() > 1:
                grid = ", ".join(self.int_literal(n, kernel) for n in kernel.grid_dims())
                self.line(f"# SPMD grid [{grid}]: launch as {fn_name}[{grid}](...); "
                          f"nl.program_id(d) is the CTA id")
            self.emit_hbm_layouts(kernel)
            self.emit_prologue(kernel)
            self.emit_block(kernel.body.block)

    def emit_hbm_layouts(self, kernel: KernelOp) -> None:
        """A comment per parameter that lies in HBM by a layout: what the caller passes."""
        for arg in kernel.body.block.args:
            placement = self.placement(arg, kernel)
            if placement is None:
                continue
            assert isinstance(arg.type, BufferType)
            names = [f"i{d}" for d in range(len(placement.shape))]
            self.line(f"# {self.names[arg]}: {list(placement.shape)} laid out in HBM as "
                      f"{arg.type.get_layout()}: pass a flat array of {placement.span} "
                      f"elements; [{', '.join(names)}] is at {placement.formula(names)}")

    def emit_signature(self, kernel: KernelOp, fn_name: str) -> None:
        raise NotImplementedError

    def emit_prologue(self, kernel: KernelOp) -> None:
        """Statements before the body (e.g. output allocation)."""

    def emit_tirx_return(self, op: ReturnOp) -> None:
        assert self.kernel is not None
        outs = [self.names[a] for a in self.kernel.outputs]
        if outs:
            self.line(f"return {', '.join(outs)}")

    def emit_scf_for(self, op: scf.ForOp) -> None:
        if op.iter_args or op.results:
            raise self.fail("loops with iter_args cannot be printed as NKI loops", op,
                            hint="keep loop-carried values in tiles")
        iv = op.body.block.args[0]
        self.names[iv] = self.namer.fresh(iv.name_hint or "i")
        lb, ub, step = (self.expr(v) for v in (op.lb, op.ub, op.step))
        args = ub if lb == "0" and step == "1" else f"{lb}, {ub}" if step == "1" \
            else f"{lb}, {ub}, {step}"
        self.line(f"for {self.names[iv]} in {self.loop_function(op)}({args}):")
        with self.body():
            self.emit_block(op.body.block)

    def loop_kind(self, op: scf.ForOp, default: str) -> str:
        attr = op.attributes.get(LOOP_ATTR)
        return default if attr is None else getattr(attr, "data", attr)

    def loop_function(self, op: scf.ForOp) -> str:
        return self.choose(self.LOOP_FUNCS, self.loop_kind(op, self.DEFAULT_LOOP),
                           f"{LOOP_ATTR} =", op)

    def emit_scf_if(self, op: scf.IfOp) -> None:
        if op.results:
            raise self.fail("scf.if with results cannot be printed", op)
        self.line(f"if {self.expr(op.cond)}:")
        with self.body():
            self.emit_block(op.true_region.block)
        from xdsl.dialects import scf  # imported: the op printed is one of its ops

        if op.false_region.blocks and any(not isinstance(o, scf.YieldOp)
                                          for o in op.false_region.block.ops):
            self.line("else:")
            with self.body():
                self.emit_block(op.false_region.block)

    def cta_id(self, op: CtaIdOp) -> str:
        return f"nl.program_id({self.int_literal(op.dim_index, op)})"

    # ---- allocation ----
    def emit_tirx_alloc(self, op: AllocOp) -> None:
        btype = op.result.type
        assert isinstance(btype, BufferType)
        name = self.namer.fresh(op.result.name_hint or "buf")
        self.names[op.result] = name
        self.line(f"{name} = {self.ndarray(op.result, self.address(op), op)}")

    def address(self, op: AllocOp) -> int | None:
        """The ``trn.addr`` byte offset, checked to lie inside the buffer's memory."""
        attr = op.attributes.get(memory.ADDR_ATTR)
        if attr is None:
            return None
        if not isinstance(attr, IntegerAttr):
            raise self.fail(f"{memory.ADDR_ATTR} must be an integer byte offset", op)
        address = attr.value.data
        btype = op.result.type
        assert isinstance(btype, BufferType)
        capacity = self.capacity(btype.scope_name, op)
        need = 0
        if btype.scope_name in memory.ON_CHIP:
            self.dtype(btype, op)
            need = math.prod(self.shape(btype, op)[1:]) * \
                dtypes.itemsize(btype.element_type)
        if not 0 <= address <= capacity - need:
            raise self.fail(f"{memory.ADDR_ATTR} = {self.int_literal(address, op)} does not "
                            f"place this {need}-byte-per-partition buffer inside the "
                            f"{capacity} bytes of each partition of {btype.scope_name}", op,
                            hint="let the trn pipeline's allocator place the buffer")
        return address

    def placement(self, buffer: SSAValue, op: Operation) -> GlobalPlacement | None:
        """How an HBM buffer (a parameter or an allocation) lies in HBM; None when it is the
        row-major array itself (and for on-chip buffers)."""
        btype = buffer.type
        assert isinstance(btype, BufferType)
        if btype.scope_name != memory.HBM or btype.get_layout() is None:
            return None
        where = buffer.owner if isinstance(buffer.owner, AllocOp) else self.kernel or op
        what = "" if isinstance(buffer.owner, AllocOp) else \
            f"parameter {self.names.get(buffer, '?')}: "
        try:
            placement = global_placement(btype)
        except LayoutError as err:
            raise self.fail(f"{what}NKI cannot address this HBM tensor: {err}", where,
                            hint="give it one stride per dim on the memory axis, e.g. "
                                 "S[(128,512):(1,128)]") from None
        if placement.span > INT64_MAX:
            raise self.fail(f"{what}its layout spans {placement.span} elements, outside the "
                            f"signed 64-bit range the printed code computes in", where)
        return None if placement.is_row_major() else placement

    def check_merged(self, access: AccessPattern, placement: GlobalPlacement | None,
                     op: Operation) -> None:
        """A view whose dim runs across dims of an HBM tensor (a reshape that merged them) is
        printed in the tensor's row-major flat index; an HBM layout other than row-major gives
        no such index."""
        if access.flat and placement is not None:
            raise self.fail("a reshape merges dims of an HBM tensor laid out as "
                            f"{access.buffer_type.get_layout()}; the merged dim is not one "
                            "stride of it", op, hint="merge the dims of the on-chip tile instead")

    def memory_shape(self, buffer: SSAValue, op: Operation) -> list[int]:
        """The shape of the array a buffer is printed as: its span for a placed HBM tensor."""
        placement = self.placement(buffer, op)
        assert isinstance(buffer.type, BufferType)
        if placement is None:
            return self.shape(buffer.type, op)
        return [placement.span]

    def limits(self, op: Operation) -> TrnLimits:
        """The hardware limits of the kernel being printed (from its target; read once)."""
        if self.kernel_limits is None:
            try:
                self.kernel_limits = checks.limits_for(op)
            except rules.RuleError as err:
                raise self.fail(str(err), op) from None
        return self.kernel_limits

    def capacity(self, scope: str, op: Operation) -> int:
        """Bytes per partition an address in ``scope`` may reach."""
        limits = self.limits(op)
        if scope == checks.SBUF:
            return limits.sbuf_bytes_per_partition
        if scope == checks.PSUM:
            return limits.psum_bytes_per_partition
        return INT64_MAX

    def ndarray(self, buffer: SSAValue, address: int | None, op: Operation) -> str:
        """The allocation of ``buffer`` (of `memory_shape`)."""
        raise NotImplementedError

    def shape(self, btype: BufferType, op: Operation | None) -> list[int]:
        """The buffer's dims, each checked to be a sane literal."""
        return [self.checked_int(n, op) for n in btype.get_shape()]

    def dtype(self, t, op: Operation | None = None) -> str:
        name = dtypes.type_name(t.element_type if isinstance(t, BufferType) else t)
        if name not in self.DTYPES:
            raise self.fail(f"the {self.API} NKI API has no {name} dtype", op)
        return self.DTYPES[name]

    # ---- names and expressions ----
    def buffer_name(self, value: SSAValue, op: Operation) -> str:
        if value not in self.names:
            raise self.fail("a tile operand must be a kernel parameter, a tirx.alloc or a view "
                            "of one", value.owner if isinstance(value.owner, Operation) else op)
        return self.names[value]

    def index_text(self, ix: IndexExpr, op: Operation | None = None) -> str:
        """An affine index as ``k * 512 + 128``."""
        parts = []
        for value, coeff in ix.terms:
            text = self.expr(value)
            parts.append(text if coeff == 1 else f"{self.int_literal(coeff, op)} * {text}")
        if ix.const or not parts:
            parts.append(self.int_literal(ix.const, op))
        return " + ".join(parts).replace("+ -", "- ")

    # ---- instructions ----
    def scalar(self, value: SSAValue | None, op: Operation) -> str | None:
        """A scalar operand (or None)."""
        if value is None:
            return None
        if isinstance(value.type, (IndexType, IntegerType)) or not isinstance(value.type,
                                                                                BufferType):
            return self.expr(value)
        return self.tile(value, op, role="vector")

    def tile(self, value: SSAValue, op: Operation, role: str = "full") -> str:
        """How a view of a buffer is written; role is 'full' (the instruction's shape),
        'vector' (a (P, 1) operand) or 'own' (its own shape, e.g. matmul operands)."""
        raise NotImplementedError

    # ---- properties, read through their closed tables ----
    def word(self, op: Operation, name: str) -> str | None:
        """A string property (None when absent); any other attribute is an error."""
        attr = op.properties.get(name)
        if attr is None or isinstance(attr, StringAttr):
            return None if attr is None else attr.data
        raise self.fail(f"property '{name}' of {op.name} must be a string, got {shown(attr)}",
                        op)

    def integer(self, op: Operation, name: str) -> str:
        """An integer property (0 when absent) as a checked literal."""
        attr = op.properties.get(name)
        if attr is not None and not isinstance(attr, IntegerAttr):
            raise self.fail(f"property '{name}' of {op.name} must be an integer, got "
                            f"{shown(attr)}", op)
        return self.int_literal(0 if attr is None else attr.value.data, op)

    def offset_text(self, op: nki.IotaOp | nki.AffineSelectOp) -> str:
        """The pattern's offset: the constant, plus ``offset_index`` where the op has one
        (an index expression of loop variables and program ids)."""
        offset = self.integer(op, "offset")
        index = getattr(op, "offset_index", None)
        if index is None:
            return offset
        return self.expr(index) if offset == "0" else f"{offset} + {self.expr(index)}"

    def real(self, op: Operation, name: str) -> str:
        """A float property (0.0 when absent) as a literal."""
        attr = op.properties.get(name)
        if attr is not None and not isinstance(attr, FloatAttr):
            raise self.fail(f"property '{name}' of {op.name} must be a float, got "
                            f"{shown(attr)}", op)
        return self.float_literal(0.0 if attr is None else attr.value.data)

    def alu(self, op: Operation, name: str) -> str | None:
        """The ALU operator property ``name`` (or None) through the closed ALU table."""
        word = self.word(op, name)
        return None if word is None else self.choose(ALU, word, "ALU operator", op)

    def engine(self, name: str | None, op: Operation) -> str | None:
        return None if name is None else self.choose(self.engines, name, "engine", op)

    def transpose_engine(self, op: nki.TransposeOp) -> str | None:
        self.word(op, "engine")
        return self.engine(op.engine_name(), op)

    def ints(self, values, op: Operation) -> list[int]:
        """Integers from an attribute, each checked to be a sane literal."""
        return [self.checked_int(v, op) for v in values]

    def pattern(self, op: nki.IotaOp | nki.AffineSelectOp) -> list[tuple[int, int]]:
        """The op's access pattern, each number checked to be a sane literal."""
        return [(self.checked_int(s, op), self.checked_int(n, op))
                for s, n in op.pattern_prop()]

    def instruction(self, fn: str, op: Operation, dst: SSAValue | None,
                    args: Sequence[tuple[str, str | None]], *, augmented: bool = False) -> None:
        """Print ``fn`` with keyword ``args`` (None values left out; an empty keyword is a
        positional argument), writing ``dst``: as ``dst=`` in the current API, by assignment
        (``t[...] = fn(...)``, ``+=`` when ``augmented``) in the legacy one."""
        raise NotImplementedError

    # ---- ops printed the same way in both generations (modulo the dst style) ----
    def emit_nki_tensor_copy(self, op: nki.TensorCopyOp) -> None:
        self.instruction("nisa.tensor_copy", op, op.dst,
                         [("src", self.tile(op.src, op)),
                          ("engine", self.engine(self.word(op, "engine"), op))])

    def emit_nki_transpose(self, op: nki.TransposeOp) -> None:
        self.instruction("nisa.nc_transpose", op, op.dst,
                         [("data", self.tile(op.src, op, "own")),
                          ("engine", self.transpose_engine(op))])

    def _activation_args(self, op) -> list[tuple[str, str | None]]:
        func = self.choose(ACTIVATION_FUNCS, self.word(op, "func"), "activation function", op)
        return [("op", func), ("data", self.tile(op.src, op)),
                ("bias", self.scalar(op.bias, op)), ("scale", self.scalar(op.scale, op))]

    def emit_nki_activation(self, op: nki.ActivationOp) -> None:
        self.instruction("nisa.activation", op, op.dst, self._activation_args(op))

    def emit_nki_activation_reduce(self, op: nki.ActivationReduceOp) -> None:
        args = self._activation_args(op)
        args[2:2] = [("reduce_op", "nl.add"),
                     ("reduce_res", self.tile(op.reduce_res, op, "vector"))]
        self.instruction("nisa.activation_reduce", op, op.dst, args)

    def emit_nki_reciprocal(self, op: nki.ReciprocalOp) -> None:
        self.instruction("nisa.reciprocal", op, op.dst, [("data", self.tile(op.src, op))])

    def emit_nki_tensor_tensor(self, op: nki.TensorTensorOp) -> None:
        self.instruction("nisa.tensor_tensor", op, op.dst,
                         [("data1", self.tile(op.lhs, op)), ("data2", self.tile(op.rhs, op)),
                          ("op", self.alu(op, "op"))])

    def emit_nki_tensor_scalar(self, op: nki.TensorScalarOp) -> None:
        args = [("data", self.tile(op.data, op)), ("op0", self.alu(op, "op0")),
                ("operand0", self.scalar(op.operand0, op)),
                ("reverse0", str(op.flag("reverse0")))]
        if op.op1 is not None:
            args += [("op1", self.alu(op, "op1")), ("operand1", self.scalar(op.operand1, op)),
                     ("reverse1", str(op.flag("reverse1")))]
        self.instruction("nisa.tensor_scalar", op, op.dst, args)

    def emit_nki_tensor_scalar_reduce(self, op: nki.TensorScalarReduceOp) -> None:
        self.instruction("nisa.tensor_scalar_reduce", op, op.dst,
                         [("data", self.tile(op.data, op)), ("op0", self.alu(op, "op0")),
                          ("operand0", self.scalar(op.operand0, op)),
                          ("reduce_op", self.alu(op, "reduce")),
                          ("reduce_res", self.tile(op.reduce_res, op, "vector")),
                          ("reverse0", str(op.flag("reverse0")))])

    def emit_nki_scalar_tensor_tensor(self, op: nki.ScalarTensorTensorOp) -> None:
        self.instruction("nisa.scalar_tensor_tensor", op, op.dst,
                         [("data", self.tile(op.data, op)), ("op0", self.alu(op, "op0")),
                          ("operand0", self.scalar(op.operand0, op)),
                          ("op1", self.alu(op, "op1")),
                          ("operand1", self.tile(op.operand1, op)),
                          ("reverse0", str(op.flag("reverse0"))),
                          ("reverse1", str(op.flag("reverse1")))])

    def value_literal(self, value: SSAValue, dst: SSAValue, op: Operation) -> str:
        """A memset/select value as a literal of the destination's kind (int for int tiles)."""
        text = self.expr(value)
        if dtypes.is_integer(checks.buffer_type(dst).element_type) and \
                not isinstance(value.type, (IntegerType, IndexType)):
            return f"int({text})"
        if not dtypes.is_integer(checks.buffer_type(dst).element_type) and \
                isinstance(value.type, (IntegerType, IndexType)):
            return f"float({text})"
        return text
