"""The shared structure of the NKI printers: walking a kernel, naming, expressions, loops.

Input contract (what the trn pipeline produces; see printers/__init__.py): a module of
``tirx.kernel`` ops whose bodies hold ``tirx.alloc`` (trn.sbuf / trn.psum / global, optionally
with a ``trn.addr`` byte offset), views (``tirx.slice`` / ``tirx.transpose`` /
``tirx.reshape``), ``scf.for`` / ``scf.if`` without results, ``arith`` scalar arithmetic,
``tirx.cta_id`` and nki ops. Views and scalar arithmetic print nothing where they stand: they
are inlined where used (views as subscripts of the buffer they view, scalars as Python
expressions); any other op raises a `TirxError` naming it.

A generation subclass (`current.NkiPrinter`, `legacy.NkiLegacyPrinter`) sets a few class
attributes (header, dtype, loop and engine spellings) and provides ``tile()`` (how a view is
written), ``instruction()`` (how the destination is passed) and the ops whose form differs;
every other nki op is printed here by one ``emit_<op>`` method each.
"""

from __future__ import annotations

import keyword
import math
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import ClassVar

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (FloatAttr, IndexType, IntegerAttr, IntegerType,
                                   ModuleOp)
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.diagnostics import TirxError
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import AccessPattern, IndexExpr
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import VIEW_OPS, AllocOp
from tirx_mlir.dialects.tirx.kernel import CtaIdOp, KernelOp, ReturnOp

LOOP_ATTR = "trn.loop"
"""Optional string attribute on ``scf.for``: 'sequential', 'affine' or 'static' (the NKI loop
kind); without it the current API prints ``range`` and the legacy API ``nl.sequential_range``."""

RESERVED = frozenset({*keyword.kwlist, "nl", "nisa", "nki", "np", "math", "ncc", "nt",
                      "baremetal", "benchmark", "simulate_kernel", "trace", "range", "int",
                      "float", "min", "max", "bool", "print", "len", "abs"})


def sanitize(name: str) -> str:
    """A Python identifier made from ``name``: anything else becomes ``_``."""
    ident = re.sub(r"\W", "_", name, flags=re.ASCII) or "v"
    if ident[0].isdigit():
        ident = "v" + ident
    return ident


class Namer:
    """Unique, sanitized identifiers for SSA values and symbols."""

    def __init__(self) -> None:
        self.used: set[str] = set(RESERVED)

    def fresh(self, hint: str) -> str:
        base = sanitize(hint)
        name, n = base, 0
        while name in self.used or name.startswith("__"):
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        return name


class PrintError(TirxError):
    """An op or a form the printer cannot write (the IR is not what the printer accepts)."""


def fail(message: str, op: Operation | None, hint: str | None = None) -> PrintError:
    return PrintError(message, op, hint=hint, code="nki-print")


def index_slots(access: AccessPattern) -> list[int]:
    """The view dims a printed tile keeps: the non-unit ones, the partition dim of an on-chip
    tile always, and trailing unit dims until there are two (NKI tiles are at least 2-D). Unit
    dims left out are indexed with an integer, which drops them, so operands whose shapes
    differ only by unit dims print with equal shapes."""
    sizes = access.sizes
    dims = [d for d, n in enumerate(sizes) if n != 1]
    if access.buffer_type.scope_name in checks.ON_CHIP and 0 not in dims:
        dims.insert(0, 0)
    for d in reversed(range(len(sizes))):
        if len(dims) >= 2:
            break
        if d not in dims:
            dims.append(d)
    return sorted(dims)


CMP_PY = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=",
          "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
AFFINE_CMP_PY = {"greater": ">", "greater_equal": ">=", "equal": "==", "not_equal": "!="}


class NkiEmitterBase:
    """Prints one module; subclasses set the generation."""

    API: ClassVar[str]
    """'current' or 'legacy' (the signature table the output is checked against)."""
    HEADER: ClassVar[tuple[str, ...]]
    DTYPES: ClassVar[dict[str, str]]
    DEFAULT_LOOP: ClassVar[str]
    LOOP_FUNCS: ClassVar[dict[str, str]]
    ENGINE_FORMAT: ClassVar[str]

    def __init__(self, module: ModuleOp):
        self.module = module
        self.lines: list[str] = []
        self.level = 0
        self.names: dict[SSAValue, str] = {}
        self.namer = Namer()
        self.kernel: KernelOp | None = None

    # ---- output ----
    def line(self, text: str) -> None:
        self.lines.append("    " * self.level + text)

    @contextmanager
    def indented(self) -> Iterator[None]:
        self.level += 1
        start = len(self.lines)
        yield
        if len(self.lines) == start:
            self.line("pass")
        self.level -= 1

    def emit(self) -> str:
        kernels = [op for op in self.module.ops if isinstance(op, KernelOp)]
        others = [op for op in self.module.ops if not isinstance(op, KernelOp)]
        if others:
            raise fail(f"the NKI printer prints tirx.kernel ops; {others[0].name} cannot stand "
                       f"at module level", others[0])
        if not kernels:
            raise fail("the module holds no tirx.kernel to print", self.module)
        self.lines = [f"# NKI kernel{'s' if len(kernels) > 1 else ''} generated by tirx_mlir "
                      f"({self.API} API)", *self.HEADER]
        for kernel in kernels:
            self.lines += ["", ""]
            self.emit_kernel(kernel)
        return "\n".join(self.lines) + "\n"

    # ---- kernels and blocks ----
    def emit_kernel(self, kernel: KernelOp) -> None:
        self.kernel, self.names, self.namer = kernel, {}, Namer()
        fn_name = self.namer.fresh(kernel.kernel_name)
        for arg in kernel.body.block.args:
            self.names[arg] = self.namer.fresh(arg.name_hint or "arg")
        self.emit_signature(kernel, fn_name)
        with self.indented():
            if kernel.num_ctas() > 1:
                grid = ", ".join(map(str, kernel.grid_dims()))
                self.line(f"# SPMD grid [{grid}]: launch as {fn_name}[{grid}](...); "
                          f"nl.program_id(d) is the CTA id")
            self.emit_prologue(kernel)
            self.emit_block(kernel.body.block)

    def emit_signature(self, kernel: KernelOp, fn_name: str) -> None:
        raise NotImplementedError

    def emit_prologue(self, kernel: KernelOp) -> None:
        """Statements before the body (e.g. output allocation)."""

    def emit_block(self, block: Block) -> None:
        for op in block.ops:
            self.emit_op(op)

    def emit_op(self, op: Operation) -> None:
        if isinstance(op, (*VIEW_OPS, CtaIdOp, scf.YieldOp)) or op.dialect_name() == "arith":
            return  # inlined where used
        method = getattr(self, "emit_" + op.name.replace(".", "_"), None)
        if method is None:
            raise fail(f"the {self.API} NKI printer cannot print {op.name}", op,
                       hint="print kernels after the trn pipeline: tile ops must be "
                            "dispatched to nki ops first")
        method(op)

    def emit_tirx_return(self, op: ReturnOp) -> None:
        assert self.kernel is not None
        outs = [self.names[a] for a in self.kernel.outputs]
        if outs:
            self.line(f"return {', '.join(outs)}")

    def emit_scf_for(self, op: scf.ForOp) -> None:
        if op.iter_args or op.results:
            raise fail("loops with iter_args cannot be printed as NKI loops", op,
                       hint="keep loop-carried values in tiles")
        iv = op.body.block.args[0]
        self.names[iv] = self.namer.fresh(iv.name_hint or "i")
        lb, ub, step = (self.expr(v) for v in (op.lb, op.ub, op.step))
        args = ub if lb == "0" and step == "1" else f"{lb}, {ub}" if step == "1" \
            else f"{lb}, {ub}, {step}"
        self.line(f"for {self.names[iv]} in {self.loop_function(op)}({args}):")
        with self.indented():
            self.emit_block(op.body.block)

    def loop_function(self, op: scf.ForOp) -> str:
        attr = op.attributes.get(LOOP_ATTR)
        kind = getattr(attr, "data", None) or self.DEFAULT_LOOP
        if kind not in self.LOOP_FUNCS:
            raise fail(f"{LOOP_ATTR} = '{kind}' is not a loop kind; use one of "
                       f"{', '.join(self.LOOP_FUNCS)}", op)
        return self.LOOP_FUNCS[kind]

    def emit_scf_if(self, op: scf.IfOp) -> None:
        if op.results:
            raise fail("scf.if with results cannot be printed", op)
        self.line(f"if {self.expr(op.cond)}:")
        with self.indented():
            self.emit_block(op.true_region.block)
        if op.false_region.blocks and any(not isinstance(o, scf.YieldOp)
                                          for o in op.false_region.block.ops):
            self.line("else:")
            with self.indented():
                self.emit_block(op.false_region.block)

    # ---- allocation ----
    def emit_tirx_alloc(self, op: AllocOp) -> None:
        btype = op.result.type
        assert isinstance(btype, BufferType)
        name = self.namer.fresh(op.result.name_hint or "buf")
        self.names[op.result] = name
        self.line(f"{name} = {self.ndarray(btype, self.address(op))}")

    def address(self, op: AllocOp) -> int | None:
        attr = op.attributes.get(checks.ADDR_ATTR)
        if attr is None:
            return None
        if not isinstance(attr, IntegerAttr):
            raise fail(f"{checks.ADDR_ATTR} must be an integer byte offset", op)
        return attr.value.data

    def ndarray(self, btype: BufferType, address: int | None) -> str:
        raise NotImplementedError

    def dtype(self, t, op: Operation | None = None) -> str:
        name = dtypes.type_name(t.element_type if isinstance(t, BufferType) else t)
        if name not in self.DTYPES:
            raise fail(f"the {self.API} NKI API has no {name} dtype", op)
        return self.DTYPES[name]

    # ---- names and expressions ----
    def buffer_name(self, value: SSAValue, op: Operation) -> str:
        if value not in self.names:
            raise fail("a tile operand must be a kernel parameter, a tirx.alloc or a view of "
                       "one", value.owner if isinstance(value.owner, Operation) else op)
        return self.names[value]

    def expr(self, value: SSAValue) -> str:
        """A scalar SSA value as a Python expression (constants, loop variables, arith)."""
        if value in self.names:
            return self.names[value]
        if isinstance(value, BlockArgument):
            raise fail("this block argument has no value in the printed kernel",
                       value.block.parent_op())
        return self.op_expr(value.owner)  # type: ignore[arg-type]

    def op_expr(self, op: Operation) -> str:
        e = self.expr
        match op:
            case arith.ConstantOp(value=IntegerAttr() as a) if isinstance(a.type, IntegerType) \
                    and a.type.width.data == 1:
                return "True" if a.value.data else "False"
            case arith.ConstantOp(value=IntegerAttr() as a):
                return str(a.value.data)
            case arith.ConstantOp(value=FloatAttr() as a):
                return self.float_literal(float(a.value.data))
            case arith.AddiOp() | arith.AddfOp():
                return f"({e(op.lhs)} + {e(op.rhs)})"
            case arith.SubiOp() | arith.SubfOp():
                return f"({e(op.lhs)} - {e(op.rhs)})"
            case arith.MuliOp() | arith.MulfOp():
                return f"({e(op.lhs)} * {e(op.rhs)})"
            case arith.DivfOp():
                return f"({e(op.lhs)} / {e(op.rhs)})"
            case arith.NegfOp():
                return f"(-{e(op.operand)})"
            case arith.FloorDivSIOp() | arith.DivUIOp():
                return f"({e(op.lhs)} // {e(op.rhs)})"
            case arith.RemUIOp():
                return f"({e(op.lhs)} % {e(op.rhs)})"
            case arith.DivSIOp() | arith.RemSIOp():
                if not (self.nonneg(op.lhs) and self.nonneg(op.rhs)):
                    raise fail(f"{op.name} truncates toward zero, which Python's // and % do "
                               f"not; its operands are not known to be non-negative", op,
                               hint="use arith.floordivsi, or operands that are provably >= 0")
                sym = "//" if isinstance(op, arith.DivSIOp) else "%"
                return f"({e(op.lhs)} {sym} {e(op.rhs)})"
            case arith.CeilDivSIOp() | arith.CeilDivUIOp():
                return f"(-(-{e(op.lhs)} // {e(op.rhs)}))"
            case arith.MinSIOp() | arith.MinUIOp() | arith.MinimumfOp():
                return f"min({e(op.lhs)}, {e(op.rhs)})"
            case arith.MaxSIOp() | arith.MaxUIOp() | arith.MaximumfOp():
                return f"max({e(op.lhs)}, {e(op.rhs)})"
            case arith.CmpiOp():
                pred = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
                return f"({e(op.lhs)} {CMP_PY[pred]} {e(op.rhs)})"
            case arith.AndIOp() | arith.OrIOp() | arith.XOrIOp():
                is_bool = op.result.type == IntegerType(1)
                sym = {arith.AndIOp: ("and", "&"), arith.OrIOp: ("or", "|"),
                       arith.XOrIOp: ("!=", "^")}[type(op)][0 if is_bool else 1]
                return f"({e(op.lhs)} {sym} {e(op.rhs)})"
            case arith.SelectOp():
                return f"({e(op.lhs)} if {e(op.cond)} else {e(op.rhs)})"
            case arith.IndexCastOp() | arith.ExtSIOp() | arith.ExtUIOp() | arith.ExtFOp() | \
                    arith.TruncFOp():
                return e(op.input)
            case arith.SIToFPOp() | arith.UIToFPOp():
                return f"float({e(op.input)})"
            case CtaIdOp():
                return f"nl.program_id({op.dim_index})"
        raise fail(f"the {self.API} NKI printer cannot use the value of {op.name} in an "
                   f"expression", op, hint="scalars must be constants, loop variables, CTA ids "
                                           "or arith on them")

    def float_literal(self, value: float) -> str:
        if math.isnan(value):
            return "math.nan"
        if math.isinf(value):
            return "math.inf" if value > 0 else "-math.inf"
        return repr(value)

    def nonneg(self, value: SSAValue) -> bool:
        """Whether an index value is provably >= 0 (constants, loop variables counting up from
        a non-negative bound, CTA ids, and sums/products/quotients of those)."""
        owner = value.owner
        if isinstance(value, BlockArgument):
            loop = value.block.parent_op()
            return isinstance(loop, scf.ForOp) and self.nonneg(loop.lb) and \
                self._const(loop.step, lambda s: s > 0)
        if isinstance(owner, arith.ConstantOp):
            return self._const(value, lambda c: c >= 0)
        if isinstance(owner, CtaIdOp):
            return True
        if isinstance(owner, (arith.AddiOp, arith.MuliOp, arith.DivUIOp, arith.FloorDivSIOp,
                              arith.DivSIOp, arith.RemSIOp, arith.RemUIOp, arith.MaxSIOp)):
            return self.nonneg(owner.lhs) and self.nonneg(owner.rhs)
        if isinstance(owner, arith.IndexCastOp):
            return self.nonneg(owner.input)
        return False

    @staticmethod
    def _const(value: SSAValue, test) -> bool:
        owner = value.owner
        return isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr) \
            and bool(test(owner.value.value.data))

    def index_text(self, ix: IndexExpr) -> str:
        """An affine index as ``k * 512 + 128``."""
        parts = []
        for value, coeff in ix.terms:
            text = self.expr(value)
            parts.append(text if coeff == 1 else f"{coeff} * {text}")
        if ix.const or not parts:
            parts.append(str(ix.const))
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

    def alu(self, name: str | None) -> str | None:
        return None if name is None else f"nl.{name}"

    def engine(self, name: str | None) -> str | None:
        return None if name is None else self.ENGINE_FORMAT.format(name)

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
                          ("engine", self.engine(op.name_prop("engine")))])

    def emit_nki_transpose(self, op: nki.TransposeOp) -> None:
        self.instruction("nisa.nc_transpose", op, op.dst,
                         [("data", self.tile(op.src, op, "own")),
                          ("engine", self.engine(op.engine_name()))])

    def _activation_args(self, op) -> list[tuple[str, str | None]]:
        return [("op", f"nl.{op.func.data}"), ("data", self.tile(op.src, op)),
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
                          ("op", self.alu(op.op.data))])

    def emit_nki_tensor_scalar(self, op: nki.TensorScalarOp) -> None:
        args = [("data", self.tile(op.data, op)), ("op0", self.alu(op.op0.data)),
                ("operand0", self.scalar(op.operand0, op)),
                ("reverse0", str(op.flag("reverse0")))]
        if op.op1 is not None:
            args += [("op1", self.alu(op.op1.data)), ("operand1", self.scalar(op.operand1, op)),
                     ("reverse1", str(op.flag("reverse1")))]
        self.instruction("nisa.tensor_scalar", op, op.dst, args)

    def emit_nki_tensor_scalar_reduce(self, op: nki.TensorScalarReduceOp) -> None:
        self.instruction("nisa.tensor_scalar_reduce", op, op.dst,
                         [("data", self.tile(op.data, op)), ("op0", self.alu(op.op0.data)),
                          ("operand0", self.scalar(op.operand0, op)),
                          ("reduce_op", self.alu(op.reduce.data)),
                          ("reduce_res", self.tile(op.reduce_res, op, "vector")),
                          ("reverse0", str(op.flag("reverse0")))])

    def emit_nki_scalar_tensor_tensor(self, op: nki.ScalarTensorTensorOp) -> None:
        self.instruction("nisa.scalar_tensor_tensor", op, op.dst,
                         [("data", self.tile(op.data, op)), ("op0", self.alu(op.op0.data)),
                          ("operand0", self.scalar(op.operand0, op)),
                          ("op1", self.alu(op.op1.data)),
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
