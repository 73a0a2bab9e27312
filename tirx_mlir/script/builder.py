"""The Python front end's building blocks: kernels, buffers with slicing, index arithmetic.

Ops are created inside xDSL's ``ImplicitBuilder`` so every op made in a ``with Tx.kernel(...)``
(or ``with Tx.range(...)``) block lands there — including ops built by backend namespaces
(``Tx.nki.*``) that use the same mechanism.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Sequence

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, ModuleOp, f32
from xdsl.ir import Block, Region, SSAValue

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.op_syntax import unknown_keyword
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, ReshapeOp, SliceOp, TransposeOp
from tirx_mlir.dialects.tirx.kernel import KernelOp, ReturnOp
from tirx_mlir.dialects.tirx.layout import TileLayout, layout_from_text


class ScriptError(ValueError):
    """Misuse of the Python front end (bad shapes, slices, dtypes...)."""


# --- index arithmetic ---------------------------------------------------------------------------


class Index:
    """An index value (a loop variable or arithmetic on one) usable in slices and arithmetic."""

    def __init__(self, value: SSAValue):
        self.value = value

    @staticmethod
    def wrap(v: "Index | int") -> SSAValue:
        return v.value if isinstance(v, Index) else const_index(None, v)

    def __add__(self, o: "Index | int") -> "Index":
        return Index(arith.AddiOp(self.value, Index.wrap(o)).result)

    __radd__ = __add__

    def __mul__(self, o: "Index | int") -> "Index":
        return Index(arith.MuliOp(self.value, Index.wrap(o)).result)

    __rmul__ = __mul__

    def __sub__(self, o: "Index | int") -> "Index":
        return Index(arith.SubiOp(self.value, Index.wrap(o)).result)

    def __rsub__(self, o: int) -> "Index":
        return Index(arith.SubiOp(const_index(None, o), self.value).result)

    def expr(self) -> IndexExpr:
        return IndexExpr.of(self.value)


def ds(start: "Index | int", size: int) -> slice:
    """A dynamic slice of static ``size`` starting at ``start`` (like NKI's ``nl.ds``)."""
    return slice(start, ("ds", size))


def _static_size(start, stop) -> int:
    if isinstance(stop, tuple) and stop[0] == "ds":
        return stop[1]
    a = IndexExpr.of(start.value) if isinstance(start, Index) else IndexExpr(int(start))
    b = IndexExpr.of(stop.value) if isinstance(stop, Index) else IndexExpr(int(stop))
    diff = b + a.scale(-1)
    if not diff.is_const():
        raise ScriptError("slice bounds must differ by a constant; use Tx.ds(start, size)")
    return diff.const


# --- buffers ------------------------------------------------------------------------------------


class Buffer:
    """A buffer (or view) value: ``buf[0:64, i * 128 : i * 128 + 128]`` makes a tirx.slice."""

    def __init__(self, value: SSAValue):
        self.value = value

    @property
    def type(self) -> BufferType:
        assert isinstance(self.value.type, BufferType)
        return self.value.type

    @property
    def shape(self) -> tuple[int, ...]:
        return self.type.get_shape()

    def __getitem__(self, key) -> "Buffer":
        key = key if isinstance(key, tuple) else (key,)
        if len(key) > len(self.shape):
            raise ScriptError(f"{len(key)} indices for a rank-{len(self.shape)} buffer")
        key = key + (slice(None),) * (len(self.shape) - len(key))
        offsets, sizes, strides = [], [], []
        for k, dim in zip(key, self.shape):
            if isinstance(k, slice):
                start = 0 if k.start is None else k.start
                stop = dim if k.stop is None else k.stop
                step = 1 if k.step is None else k.step
                span = _static_size(start, stop)
                size = span if isinstance(stop, tuple) else -(-span // step)
            else:  # a single index keeps the dim with extent 1
                start, size, step = k, 1, 1
            offsets.append(start.value if isinstance(start, Index) else int(start))
            sizes.append(size)
            strides.append(step)
        return Buffer(SliceOp(self.value, offsets, sizes, strides).result)

    def T(self, *perm: int) -> "Buffer":  # noqa: N802 - numpy spelling
        perm = perm or tuple(reversed(range(len(self.shape))))
        return Buffer(TransposeOp(self.value, perm).result)

    def reshape(self, *shape: int) -> "Buffer":
        return Buffer(ReshapeOp(self.value, shape).result)


def bind_arguments(op_cls, args: Sequence, kwargs: dict, what: str) -> tuple[dict, dict]:
    """Map a ``Tx`` call's arguments onto an op's operands and keyword properties.

    Positional arguments fill the required operands in order; keywords name optional operands
    or properties (``op_cls.KEYWORDS``). Returns ``(operand values by name, properties)``;
    misuse raises ScriptError naming ``what`` (e.g. ``Tx.add``).
    """
    from xdsl.irdl import VarOperandDef

    op_def = op_cls.get_irdl_definition()
    names = [n for n, _ in op_def.operands]
    positional = [n for n, d in op_def.operands if not isinstance(d, VarOperandDef)]
    if len(args) > len(positional):
        raise ScriptError(f"{what} takes {len(positional)} operands ({', '.join(positional)}), "
                          f"got {len(args)}")
    values: dict = dict(zip(positional, args))
    props: dict = {}
    for key, value in kwargs.items():
        if key in names:
            values[key] = value
        elif key in op_cls.KEYWORDS:
            props[key] = value
        else:
            raise ScriptError(unknown_keyword(what, key, op_cls))
    missing = [n for n in positional if n not in values]
    if missing:
        raise ScriptError(f"{what} is missing {', '.join(missing)}")
    return values, props


def operand(v) -> SSAValue:
    """A tile-op operand: a Buffer, an Index, a Python number (an f32 / index constant)."""
    if isinstance(v, (Buffer, Index)):
        return v.value
    if isinstance(v, SSAValue):
        return v
    if isinstance(v, bool):
        raise ScriptError("booleans are not tile operands")
    if isinstance(v, int):
        return arith.ConstantOp(FloatAttr(float(v), f32)).result
    if isinstance(v, float):
        return arith.ConstantOp(FloatAttr(v, f32)).result
    raise ScriptError(f"cannot use {type(v).__name__} as a tile operand")


def buffer_type(shape: Sequence[int], dtype: str = "f32", scope: str = "global",
                layout: str | TileLayout | None = None) -> BufferType:
    elem = dtypes.element_type(dtype)
    if isinstance(layout, str):  # the spec DSL, or a shorthand of the scope ("PF")
        text = f'"{layout}"' if layout.isalpha() else layout
        layout = layout_from_text(text, tuple(shape), scope, elem)
    return BufferType(tuple(shape), elem, scope, layout)


def alloc(shape: Sequence[int], dtype: str = "f32", *, scope: str,
          layout: str | TileLayout | None = None, name: str | None = None) -> Buffer:
    """``%name = tirx.alloc : !tirx.buffer<shape x dtype, scope[, layout]>`` (the scope is always
    explicit: ``"shared"``, ``"local"``, or one a backend registers)."""
    result = AllocOp(buffer_type(shape, dtype, scope, layout)).result
    if name:
        result.name_hint = name
    return Buffer(result)


# --- kernels and loops --------------------------------------------------------------------------


class KernelBuilder:
    """Builds one ``tirx.kernel``; enter it with ``with`` to add ops to its body."""

    def __init__(self, name: str, inputs: dict[str, BufferType], outputs: dict[str, BufferType],
                 grid=(1,), threads=(1,), cluster=None, target: str | None = None,
                 module: ModuleOp | None = None):
        self.op = KernelOp(name, list(inputs.values()), list(outputs.values()), grid, threads,
                           cluster, target)
        for arg, arg_name in zip(self.op.body.block.args, [*inputs, *outputs]):
            arg.name_hint = arg_name
        self.args = tuple(Buffer(a) for a in self.op.body.block.args)
        self.module = module if module is not None else ModuleOp([])
        self.module.body.block.add_op(self.op)
        self._ctx: contextlib.ExitStack | None = None

    def __enter__(self) -> "KernelBuilder":
        self._ctx = contextlib.ExitStack()
        self._ctx.enter_context(ImplicitBuilder(self.op.body.block))
        return self

    def __exit__(self, *exc) -> None:
        assert self._ctx is not None
        self._ctx.close()
        if exc[0] is None:
            self.op.body.block.add_op(ReturnOp())


@contextlib.contextmanager
def for_range(start: int | Index, stop: int | Index, step: int = 1) -> Iterator[Index]:
    """``with Tx.range(0, 8) as i:`` builds an ``scf.for`` and yields its induction variable."""
    lb, ub, st = Index.wrap(start), Index.wrap(stop), Index.wrap(step)
    body = Block(arg_types=[IndexType()])
    loop = scf.ForOp(lb, ub, st, [], Region(body))
    with ImplicitBuilder(body):
        yield Index(body.args[0])
        scf.YieldOp()
    del loop
