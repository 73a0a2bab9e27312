"""Tile-level IR back to front-end source: ``module_to_script(module)`` (and ``tirx-opt -t tx``).

The printed source is a Python module with one ``@Tx.kernel`` function per ``tirx.kernel``; it
parses back to the same IR, structurally (tested on every example). What it prints: buffer
parameters, kernel attributes, ``tirx.alloc`` / ``slice`` / ``transpose`` / ``reshape``, scope
ids, index arithmetic and comparisons (unsigned and truncating ones as ``Tx.udiv``...,
`integer_ops`), ``scf.for`` (with loop-carried values) / ``scf.if`` / ``scf.while``, every tile
primitive with its call-site scope, keywords, predicates, ``dispatch=`` and ``config=``, scalar
arithmetic, ``%`` (Python's floor mod in the forms the front end builds), typed constants
(``Tx.const``) and the ops of backend namespaces (``Tx.cuda.*``, ``Tx.ptx.*``...: each registered
namespace with a ``script_call(op, operand)`` method prints its own). Anything else (an op no
namespace builds, e.g. IR after dispatch) is an error naming the op.
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
from dataclasses import dataclass
from typing import IO, Any, ClassVar

from xdsl.context import Context
from xdsl.utils.target import Target

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (AffineSetAttr, DenseArrayBase, FloatAttr, IndexType,
                                   IntegerAttr, IntegerType, ModuleOp, StringAttr, UnitAttr, i64)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import floor_mod_operands
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, ReshapeOp, SliceOp, TransposeOp
from tirx_mlir.dialects.tirx.kernel import KernelOp, ReturnOp, ScopeIdOp
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.script.integer_ops import FUNCTIONS, PREDICATES

_BINARY = {arith.AddiOp: "+", arith.SubiOp: "-", arith.MuliOp: "*", arith.FloorDivSIOp: "//",
           arith.AndIOp: "&", arith.OrIOp: "|", arith.XOrIOp: "^", arith.ShLIOp: "<<",
           arith.ShRSIOp: ">>", arith.AddfOp: "+", arith.SubfOp: "-", arith.MulfOp: "*",
           arith.DivfOp: "/"}
_CMP = {0: "==", 1: "!=", 2: "<", 3: "<=", 4: ">", 5: ">="}  # arith.cmpi eq ne slt sle sgt sge
_CMPI = dict(zip((0, 1, 2, 3, 4, 5, 6, 7, 8, 9), ("eq", "ne", "slt", "sle", "sgt", "sge", "ult",
                                                 "ule", "ugt", "uge")))
_SCOPE_NAMESPACE = {ExecScope.THREAD: "Tx", ExecScope.WARP: "Tx.warp", ExecScope.CTA: "Tx.cta",
                    ExecScope.WARPGROUP: "Tx.warpgroup", ExecScope.CLUSTER: "Tx.cluster"}


def module_to_script(module: ModuleOp) -> str:
    """Front-end source for every ``tirx.kernel`` of a tile-level module."""
    out = ["from tirx_mlir import script as Tx", ""]
    for op in module.body.block.ops:
        if not isinstance(op, KernelOp):
            raise TirxError(f"module_to_script prints tirx.kernel ops, not {op.name}", op)
        out += ["", *_KernelPrinter(op).lines()]
    return _double_quoted("\n".join(out) + "\n")


def _double_quoted(source: str) -> str:
    """``source`` with its plain single-quoted strings double-quoted (the usual Python style;
    ``repr`` prints single quotes)."""
    import io
    import tokenize

    lines = source.splitlines(keepends=True)
    edits = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        text = tok.string
        if tok.type == tokenize.STRING and text.startswith("'") and '"' not in text and \
                "\\" not in text and tok.start[0] == tok.end[0]:
            edits.append((tok.start, tok.end, f'"{text[1:-1]}"'))
    for (row, start), (_, end), text in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + text + line[end:]
    return "".join(lines)


class _KernelPrinter:
    def __init__(self, kernel: KernelOp):
        self.kernel = kernel
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = {"Tx"}
        self.out: list[str] = []
        self.hidden = _floor_mod_parts(kernel)

    # --- names and expressions ---------------------------------------------------------------

    def name(self, value: SSAValue, hint: str | None = None) -> str:
        base = re.sub(r"\W", "_", hint or value.name_hint or "v")
        if not base or base[0].isdigit() or keyword.iskeyword(base) or hasattr(builtins, base):
            base = f"v_{base}"
        name, n = base, 0
        while name in self.used:
            n += 1
            name = f"{base}_{n}"
        self.used.add(name)
        self.names[value] = name
        return name

    def expr(self, value: SSAValue, op: Operation) -> str:
        if value in self.names:
            return self.names[value]
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            return _literal(owner.value, op)
        raise TirxError(f"module_to_script: operand {value} of {op.name} has no name", op)

    # --- ops ---------------------------------------------------------------------------------

    def lines(self) -> list[str]:
        k = self.kernel
        launch = [f"{key}={dims}" for key, dims in (("grid", tuple(k.grid_dims())),
                                                     ("threads", tuple(k.thread_dims())))
                  if dims != (1,)]  # the defaults of @Tx.kernel
        if k.cluster is not None:
            launch.append(f"cluster={tuple(k.cluster.get_values())}")
        if k.target is not None:
            launch.insert(0, f"target={_target_text(k)!r}")
        if k.attributes:
            items = ", ".join(f"{key!r}: {str(a)!r}" for key, a in k.attributes.items())
            launch.append(f"attributes={{{items}}}")
        params = []
        n_in = k.num_inputs.value.data
        for i, arg in enumerate(k.body.block.args):
            kind = "Tx.Buffer" if i < n_in else "Tx.Out"
            params.append(f"{self.name(arg)}: {kind}[{_buffer_spec(arg.type)}]")
        name = self.name_kernel(k.kernel_name)
        signature = f"def {name}({', '.join(params)}):"
        if len(signature) > 99:  # one parameter a line, aligned after the parenthesis
            signature = f"def {name}(" + f",\n{' ' * (len(name) + 5)}".join(params) + "):"
        head = [f"@Tx.kernel({', '.join(launch)})" if launch else "@Tx.kernel", signature]
        self.block(k.body.block, 1)
        return head + (self.out or ["    pass"])

    def name_kernel(self, name: str) -> str:
        if not name.isidentifier() or keyword.iskeyword(name):
            raise TirxError(f"module_to_script: kernel name {name!r} is not a Python name",
                            self.kernel)
        return name

    def emit(self, depth: int, text: str) -> None:
        self.out.append("    " * depth + text)

    def block(self, block: Block, depth: int) -> None:
        start = len(self.out)
        for op in block.ops:
            self.op(op, depth)
        if len(self.out) == start:
            self.emit(depth, "pass")

    def op(self, op: Operation, depth: int) -> None:
        if isinstance(op, (arith.ConstantOp, ReturnOp, scf.YieldOp)) or op in self.hidden:
            return
        if isinstance(op, TileOp):
            self.emit(depth, self.tile(op))
        elif isinstance(op, scf.ForOp):
            self.loop(op, depth)
        elif isinstance(op, scf.IfOp):
            self.branch(op, depth)
        elif isinstance(op, scf.WhileOp):
            self.while_loop(op, depth)
        elif not op.results:
            self.emit(depth, self.namespace_call(op))
        else:
            text = self.expression(op)
            name = self.name(op.results[0])
            if len(op.results) > 1:
                for i, result in enumerate(op.results):
                    self.names[result] = f"{name}[{i}]"
            self.emit(depth, f"{name} = {text}")

    def expression(self, op: Operation) -> str:
        """The Python expression that builds ``op`` (an op with results)."""
        if _is_not(op):
            return f"not {self.expr(op.operands[0], op)}"
        if type(op) in _BINARY:
            return f"{self.expr(op.operands[0], op)} {_BINARY[type(op)]} " \
                   f"{self.expr(op.operands[1], op)}"
        if type(op) in FUNCTIONS:
            return f"Tx.{FUNCTIONS[type(op)]}({self.expr(op.operands[0], op)}, " \
                   f"{self.expr(op.operands[1], op)})"
        if isinstance(op, (arith.MinSIOp, arith.MaxSIOp)):  # min / max in @Tx.kernel
            fn = "min" if isinstance(op, arith.MinSIOp) else "max"
            return f"{fn}({self.expr(op.lhs, op)}, {self.expr(op.rhs, op)})"
        if isinstance(op, arith.CmpiOp):
            predicate = op.predicate.value.data
            lhs, rhs = self.expr(op.lhs, op), self.expr(op.rhs, op)
            if predicate in _CMP:
                return f"{lhs} {_CMP[predicate]} {rhs}"
            return f"Tx.cmp({_CMPI[predicate]!r}, {lhs}, {rhs})"
        if isinstance(op, arith.ExtUIOp):
            return f"Tx.zext({self.expr(op.input, op)}, {dtypes.type_name(op.result.type)!r})"
        if isinstance(op, ScopeIdOp):
            dim = "" if op.dim is None else repr("xyz"[op.dim_index])
            return f"Tx.{op.name.split('.', 1)[1]}({dim})"
        if isinstance(op, AllocOp):
            return f"Tx.alloc({_alloc_args(op.result.type)})"
        if isinstance(op, SliceOp):
            return self.slice(op)
        if isinstance(op, TransposeOp):
            perm = ", ".join(str(p) for p in op.permutation.get_values())
            return f"{self.expr(op.source, op)}.T({perm})"
        if isinstance(op, ReshapeOp):
            shape = ", ".join(str(d) for d in op.result.type.get_shape())
            return f"{self.expr(op.source, op)}.reshape({shape})"
        if len(op.results) == 1 and floor_mod_operands(op.results[0]) is not None:
            x, divisor = floor_mod_operands(op.results[0])  # type: ignore[misc]
            return f"{self.expr(x, op)} % {self.expr(divisor, op)}"
        return self.namespace_call(op)

    def namespace_call(self, op: Operation) -> str:
        """An op of a backend namespace (``Tx.cuda.*``...): the call that namespace prints."""
        from tirx_mlir import registry

        for namespace in registry.script_namespaces.listing().values():
            printer = getattr(namespace, "script_call", None)
            text = printer(op, lambda v: self.expr(v, op)) if printer is not None else None
            if text is not None:
                return text
        raise TirxError(f"module_to_script: cannot print {op.name} as front-end source (no "
                        f"script namespace builds it; print IR after dispatch with its "
                        f"backend's printer)", op)

    def slice(self, op: SliceOp) -> str:
        parts = []
        shape = op.source.type.get_shape()
        for offset, size, stride, given, dim in zip(op.mixed_offsets(), op.sizes(), op.strides(),
                                                    op.mixed_sizes(), shape):
            if isinstance(given, SSAValue):  # a guard: its size value, at most `size`
                if stride != 1:
                    raise TirxError("module_to_script: a strided guarded slice has no "
                                    "front-end form", op)
                start = self.expr(offset, op) if isinstance(offset, SSAValue) else offset
                parts.append(f"Tx.ds({start}, {self.expr(given, op)}, max={size})")
                continue
            if isinstance(offset, SSAValue) and isinstance(offset.owner, arith.ConstantOp) \
                    and offset not in self.names:
                offset = offset.owner.value.value.data  # a constant: printed as a static one
            if isinstance(offset, SSAValue):
                if stride != 1:
                    raise TirxError("module_to_script: a strided dynamic slice has no "
                                    "front-end form", op)
                start = self.expr(offset, op)
                parts.append(start if size == 1 else f"{start}:{start} + {size}")
            elif offset == 0 and stride == 1 and size == dim:
                parts.append(":")
            else:
                step = f":{stride}" if stride != 1 else ""
                parts.append(f"{offset}:{offset + size * stride}{step}")
        while len(parts) > 1 and parts[-1] == ":":  # trailing whole dims may be left out
            parts.pop()
        return f"{self.expr(op.source, op)}[{', '.join(parts)}]"

    def tile(self, op: TileOp) -> str:
        op_def = op.get_irdl_definition()
        args, kwargs = [], []
        for name, _ in op_def.operands:
            value = getattr(op, name)
            if value is None or (not isinstance(value, SSAValue) and not value):
                continue  # an absent optional or an empty variadic operand
            if name == "symbols":  # the index values the `where` lambda reads
                continue
            if not isinstance(value, SSAValue):  # a variadic one: workspace [%w]
                if len(value) != 1:
                    raise TirxError(f"module_to_script: {op.name}'s {name} operands have no "
                                    f"front-end form", op)
                kwargs.append(f"{name}={self.expr(value[0], op)}")
                continue
            text = self.expr(value, op)
            if name in op.KEYWORDS or _is_optional(op_def, name):
                kwargs.append(f"{name}={text}")
            else:
                args.append(text)
        for key, kind in op.KEYWORDS.items():
            attr = op.properties.get(key)
            if isinstance(attr, AffineSetAttr):
                symbols = [self.expr(v, op) for v in getattr(op, "symbols", ())]
                kwargs.append(f"{key}={_predicate(attr, symbols, op)}")
            elif attr is not None:
                kwargs.append(f"{key}={_keyword_value(attr, kind, op)}")
        if op.dispatch is not None:
            kwargs.append(f"dispatch={op.dispatch.data!r}")
        if op.config is not None:
            items = ", ".join(f"{k!r}: {_config_value(v, op)}" for k, v in op.config.data.items())
            kwargs.append(f"config={{{items}}}")
        short = op.name.split(".", 1)[1]
        return f"{_SCOPE_NAMESPACE[op.exec_scope]}.{short}({', '.join(args + kwargs)})"

    def loop(self, op: scf.ForOp, depth: int) -> None:
        """``for``; a loop-carried value is a name bound before the loop, reassigned at the end
        of the body (the yield) and read after it (the result) (`script.loop_carried`)."""
        step = op.step.owner
        if not isinstance(step, arith.ConstantOp):
            raise TirxError("module_to_script: the loop step must be a constant", op)
        carried = [self.name(arg) for arg in op.body.block.args[1:]]
        for name, init in zip(carried, op.iter_args):
            self.emit(depth, f"{name} = {self.runtime_expr(init, op)}")
        iv = self.name(op.body.block.args[0])
        bounds = [self.expr(v, op) for v in (op.lb, op.ub, op.step)]
        if bounds[2] == "1":
            bounds = bounds[1:2] if bounds[0] == "0" else bounds[:2]
        bounds = ", ".join(bounds)
        self.emit(depth, f"for {iv} in range({bounds}):")
        self.block(op.body.block, depth + 1)
        if carried:
            yielded = op.body.block.last_op.operands
            values = ", ".join(self.runtime_expr(v, op) for v in yielded)
            self.emit(depth + 1, f"{', '.join(carried)} = {values}")
        for name, result in zip(carried, op.results):
            self.names[result] = name

    def runtime_expr(self, value: SSAValue, op: Operation) -> str:
        """``value`` as a run-time value (a constant as ``Tx.const``, not a Python number)."""
        owner = value.owner
        if value not in self.names and isinstance(owner, arith.ConstantOp):
            attr = owner.value
            number = attr.value.data
            if isinstance(attr, IntegerAttr) and attr.type == IntegerType(1):
                number = int(number != 0)
            return f"Tx.const({number!r}, {dtypes.type_name(attr.type)!r})"
        return self.expr(value, op)

    def while_loop(self, op: scf.WhileOp, depth: int) -> None:
        """``while <cond>:`` where the before region computes ``cond`` from ops that are
        expressions (printed inline, evaluated before each iteration)."""
        if op.arguments or op.res:
            raise TirxError("module_to_script: an scf.while with loop-carried values has no "
                            "front-end form", op)
        *ops, condition = op.before_region.block.ops
        if condition.args:
            raise TirxError("module_to_script: an scf.condition passing values has no "
                            "front-end form", op)
        text = {}
        for part in ops:
            if isinstance(part, arith.ConstantOp):
                continue
            if len(part.results) != 1 or part.regions:
                raise TirxError(f"module_to_script: {part.name} in the condition of an "
                                f"scf.while has no front-end form (only expressions)", part)
            text[part.results[0]] = self.expression(part)
            self.names[part.results[0]] = _atom(text[part.results[0]])
        test = text.get(condition.condition) or self.expr(condition.condition, op)
        self.emit(depth, f"while {test}:")
        self.block(op.after_region.block, depth + 1)

    def branch(self, op: scf.IfOp, depth: int) -> None:
        if op.results:
            raise TirxError("module_to_script: an scf.if with results has no front-end form",
                            op)
        self.emit(depth, f"if {self.expr(op.cond, op)}:")
        self.block(op.true_region.block, depth + 1)
        if op.false_region.blocks and list(op.false_region.block.ops)[:-1]:
            self.emit(depth, "else:")
            self.block(op.false_region.block, depth + 1)


def _atom(text: str) -> str:
    """``text`` as an operand of another expression: parenthesised unless it is a name, a call,
    an attribute or a subscript."""
    import ast

    node = ast.parse(text, mode="eval").body
    return text if isinstance(node, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)) \
        else f"({text})"


def _is_not(op: Operation) -> bool:
    """``xori x, true`` on an i1: what ``not x`` builds."""
    if not isinstance(op, arith.XOrIOp) or op.result.type != IntegerType(1):
        return False
    true = op.rhs.owner
    return isinstance(true, arith.ConstantOp) and isinstance(true.value, IntegerAttr) and \
        true.value.value.data != 0


def _floor_mod_parts(kernel: KernelOp) -> set[Operation]:
    """The ops inside the floor-mod selects of ``kernel`` (printed as one ``%``) that nothing
    else uses."""
    hidden: set[Operation] = set()
    for op in kernel.walk():
        if not isinstance(op, arith.SelectOp) or floor_mod_operands(op.result) is None:
            continue
        x, divisor = floor_mod_operands(op.result)  # type: ignore[misc]
        parts, todo = set(), [op.lhs.owner, op.rhs.owner, op.cond.owner]
        while todo:
            part = todo.pop()
            if isinstance(part, Operation) and not isinstance(part, arith.ConstantOp) and \
                    part not in parts and part.results[0] not in (x, divisor):
                parts.add(part)
                todo.extend(v.owner for v in part.operands)
        if all(use.operation in parts or use.operation is op
               for part in parts for use in part.results[0].uses):
            hidden |= parts
    return hidden


def _is_optional(op_def: Any, name: str) -> bool:
    from xdsl.irdl import OptOperandDef

    return isinstance(dict(op_def.operands)[name], OptOperandDef)


def _literal(attr: Attribute, op: Operation) -> str:
    """A Python number where the front end makes that constant from one (index, f32), else
    ``Tx.const(value, type)``."""
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType):
        return str(attr.value.data)
    if isinstance(attr, FloatAttr) and dtypes.type_name(attr.type) == "f32":
        return _float_text(attr)
    if isinstance(attr, (IntegerAttr, FloatAttr)):
        value = attr.value.data
        if isinstance(attr, IntegerAttr) and attr.type.width.data == 1:
            value = int(value != 0)
        return f"Tx.const({value!r}, {dtypes.type_name(attr.type)!r})"
    raise TirxError(f"module_to_script: the constant {attr} has no front-end form", op)


def _float_text(attr: FloatAttr) -> str:
    """A float attribute as a Python literal: an f32 one in the shortest digits that round to
    the same f32 (``1e-05``, not ``9.999999747378752e-06``; an f32 attribute rounds its value)."""
    value = float(attr.value.data)
    if dtypes.type_name(attr.type) == "f32" and math.isfinite(value):
        import numpy as np

        text = str(np.float32(value))
        if float(np.float32(float(text))) == value:
            return text
    return repr(value)


def _keyword_value(attr: Attribute, kind: str, op: Operation) -> str:
    if kind == "flag" or isinstance(attr, UnitAttr):
        return "True"
    if isinstance(attr, DenseArrayBase):
        return repr(list(attr.get_values()))
    if isinstance(attr, StringAttr):
        return repr(attr.data)
    if isinstance(attr, FloatAttr):
        return _float_text(attr)
    if hasattr(attr, "data") and isinstance(attr.data, str):
        return repr(attr.data)
    raise TirxError(f"module_to_script: property {attr} has no front-end form", op)


def _predicate(attr: AffineSetAttr, symbols: list[str], op: Operation) -> str:
    """``lambda d0, d1: (d0 - d1 >= 0)``; a symbol is the index value bound to it (inside the
    lambda, arithmetic on an index is affine: `tirx_mlir.script.predicate_set`)."""
    aset = attr.data
    dims = [f"d{i}" for i in range(aset.num_dims)]
    if any(re.fullmatch(r"d\d+", name) for name in symbols):
        raise TirxError(f"module_to_script: a predicate symbol named like a dim "
                        f"({', '.join(symbols)})", op)
    parts = []
    for c in aset.constraints:
        text = str(c.lhs)
        if re.search(r"ceildiv", text) or str(c.rhs) != "0":
            raise TirxError(f"module_to_script: the predicate {aset} has no front-end form", op)
        text = re.sub(r"\bs(\d+)\b", lambda m: symbols[int(m.group(1))], text)
        text = text.replace(" floordiv ", " // ").replace(" mod ", " % ")
        parts.append(f"({text} {'==' if c.kind.name == 'eq' else '>='} 0)")
    return f"lambda {', '.join(dims)}: {' & '.join(parts)}"


def _config_value(attr: Attribute, op: Operation) -> str:
    if isinstance(attr, IntegerAttr) and attr.type == IntegerType(1):  # a BoolAttr
        return repr(bool(attr.value.data))
    if isinstance(attr, IntegerAttr):
        return repr(attr.value.data)
    if isinstance(attr, FloatAttr):
        return _float_text(attr)
    if isinstance(attr, StringAttr):
        return repr(attr.data)
    if isinstance(attr, DenseArrayBase) and attr.elt_type == i64:
        return repr(list(attr.get_values()))
    raise TirxError(f"module_to_script: config value {attr} has no front-end form", op)


def _layout_text(t: BufferType) -> str | None:
    """The layout as the type prints it (the spec the front end's ``layout=`` takes)."""
    if t.get_layout() is None:
        return None
    inner = str(t)[len("!tirx.buffer<"):-1]
    return inner.split(", ", 2)[2]


def _buffer_spec(t: BufferType) -> str:
    shape = tuple(t.get_shape())
    parts = [repr(shape), repr(dtypes.type_name(t.element_type))]
    layout = _layout_text(t)
    if t.scope_name != "global" or layout is not None:
        parts.append(repr(t.scope_name))
    if layout is not None:
        parts.append(repr(layout))
    return ", ".join(parts)


def _alloc_args(t: BufferType) -> str:
    text = f"{tuple(t.get_shape())!r}, {dtypes.type_name(t.element_type)!r}, scope={t.scope_name!r}"
    layout = _layout_text(t)
    return text + (f", layout={layout!r}" if layout is not None else "")


def _target_text(k: KernelOp) -> str:
    from tirx_mlir.target import target_text_of

    return target_text_of(k)


@dataclass(frozen=True)
class TxTarget(Target):
    """``tirx-opt -t tx``: tile-level IR as ``@Tx.kernel`` source (`module_to_script`)."""

    name: ClassVar[str] = "tx"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(module_to_script(module))
