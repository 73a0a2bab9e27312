"""The Python front end's building blocks: kernels, buffers with slicing, index arithmetic.

Ops are created inside xDSL's ``ImplicitBuilder`` so every op made in a ``with Tx.kernel(...)``
(or ``with Tx.range(...)``) block lands there — including ops built by backend namespaces
(``Tx.nki.*``) that use the same mechanism. The builder at each block stamps every inserted op
with its Python location (`locations.located_builder`), and a `ScriptError` is shown at the
user's line. The ``@Tx.kernel`` parser (`parser.py`) builds through these same functions.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import operator
from typing import Any, Iterator, Sequence

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, ModuleOp, f32
from xdsl.ir import Block, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import IndexExpr, build_floor_mod, const_index
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.op_syntax import unknown_keyword
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, ReshapeOp, SliceOp, TransposeOp
from tirx_mlir.dialects.tirx.kernel import KernelOp, ReturnOp
from tirx_mlir.dialects.tirx.layout import TileLayout, layout_from_text
from tirx_mlir.script.locations import (SourceError, SourceLoc, assigned_name, here,
                                        located_builder)


class ScriptError(SourceError, ValueError):
    """Misuse of the Python front end (bad shapes, slices, dtypes...), at the user's line."""

    def __init__(self, message: str, where: SourceLoc | None = None, **kwargs):
        super().__init__(message, where or here(), **kwargs)


# --- index arithmetic ---------------------------------------------------------------------------


AFFINE: contextvars.ContextVar[Any] = contextvars.ContextVar("affine", default=None)
"""While a select predicate's lambda runs (`tirx_mlir.script.predicate_set`): the function
making an `Index` a symbol of the affine set, so ``i * 128`` there is a term of the predicate
(``s0 * 128``, symbol ``i``), not an ``arith.muli`` before the op."""


def _affine_aware(method):
    name = method.__name__

    @functools.wraps(method)
    def call(self, *args):
        to_affine = AFFINE.get()
        if to_affine is not None:
            return getattr(to_affine(self), name)(*args)
        return method(self, *args)

    return call


class Index:
    """An index value (a loop variable or arithmetic on one) usable in slices and arithmetic.
    ``& | ^ << >>`` are the ``arith`` bitwise ops on the index; unsigned and truncating
    division, remainder and comparison are functions (`tirx_mlir.script.integer_ops`)."""

    def __init__(self, value: SSAValue):
        self.value = value

    @staticmethod
    def wrap(v: "Index | int") -> SSAValue:
        return v.value if isinstance(v, Index) else const_index(None, v)

    @_affine_aware
    def __add__(self, o: "Index | int") -> "Index":
        return Index(arith.AddiOp(self.value, Index.wrap(o)).result)

    __radd__ = __add__

    @_affine_aware
    def __mul__(self, o: "Index | int") -> "Index":
        return Index(arith.MuliOp(self.value, Index.wrap(o)).result)

    __rmul__ = __mul__

    @_affine_aware
    def __sub__(self, o: "Index | int") -> "Index":
        return Index(arith.SubiOp(self.value, Index.wrap(o)).result)

    @_affine_aware
    def __rsub__(self, o: int) -> "Index":
        return Index(arith.SubiOp(const_index(None, o), self.value).result)

    @_affine_aware
    def __floordiv__(self, o: "Index | int") -> "Index":
        return Index(arith.FloorDivSIOp(self.value, Index.wrap(divisor(o, "//"))).result)

    @_affine_aware
    def __mod__(self, o: "Index | int") -> "Index":
        """Python's floor mod (the result has the divisor's sign), as ``//`` floors."""
        return Index(build_floor_mod(self.value, Index.wrap(divisor(o, "%"))))

    @_affine_aware
    def __rmod__(self, o: int) -> "Index":
        return Index(build_floor_mod(const_index(None, o), self.value))

    @_affine_aware
    def __rfloordiv__(self, o: int) -> "Index":
        return Index(arith.FloorDivSIOp(const_index(None, o), self.value).result)

    @_affine_aware
    def __neg__(self) -> "Index":
        return 0 - self

    def _bitwise(self, o: "Index | int", op_cls: type, swap: bool = False) -> "Index":
        a, b = self.value, Index.wrap(o)
        return Index(op_cls(*((b, a) if swap else (a, b))).result)

    def __and__(self, o): return self._bitwise(o, arith.AndIOp)
    def __rand__(self, o): return self._bitwise(o, arith.AndIOp, swap=True)
    def __or__(self, o): return self._bitwise(o, arith.OrIOp)
    def __ror__(self, o): return self._bitwise(o, arith.OrIOp, swap=True)
    def __xor__(self, o): return self._bitwise(o, arith.XOrIOp)
    def __rxor__(self, o): return self._bitwise(o, arith.XOrIOp, swap=True)
    def __lshift__(self, o): return self._bitwise(o, arith.ShLIOp)
    def __rlshift__(self, o): return self._bitwise(o, arith.ShLIOp, swap=True)
    def __rshift__(self, o): return self._bitwise(o, arith.ShRSIOp)
    def __rrshift__(self, o): return self._bitwise(o, arith.ShRSIOp, swap=True)

    def compare(self, predicate: str, o: "Index | int") -> "Cond":
        """``self <predicate> o`` (``"slt"``, ``"eq"``...) as an i1 condition."""
        return Cond(arith.CmpiOp(self.value, Index.wrap(o), predicate).result)

    def expr(self) -> IndexExpr:
        return IndexExpr.of(self.value)


class Cond:
    """An i1 condition (a comparison of indices): what ``if`` branches on in ``@Tx.kernel``."""

    def __init__(self, value: SSAValue):
        self.value = value

    def __and__(self, o: "Cond") -> "Cond":
        return Cond(arith.AndIOp(self.value, o.value).result)

    def __or__(self, o: "Cond") -> "Cond":
        return Cond(arith.OrIOp(self.value, o.value).result)

    def __invert__(self) -> "Cond":
        true = arith.ConstantOp.from_int_and_width(1, 1).result
        return Cond(arith.XOrIOp(self.value, true).result)

    def __bool__(self):
        raise ScriptError("a run-time condition has no Python truth value; branch on it with "
                          "`if` inside @Tx.kernel, combine with `&`, `|`, `~`")


def scope_id(op_cls, dim: int | str | None = None) -> Index:
    """A scope id (``Tx.cta_id()``, ``Tx.warp_id()``...): the op ``op_cls`` for one dim."""
    if isinstance(dim, str):
        if dim not in ("x", "y", "z"):
            raise ScriptError(f"scope id dim '{dim}': use 'x', 'y' or 'z'")
        dim = "xyz".index(dim)
    op = op_cls(dim)
    try:
        op.verify_()  # the launch configuration must provide the scope
    except VerifyException as err:
        raise ScriptError(str(err)) from None
    return Index(op.result)


def divisor(o: "Index | int", symbol: str) -> "Index | int":
    """``o``, unless it is the constant 0 (Python raises ZeroDivisionError; in arith a division
    by zero is undefined behaviour)."""
    if not isinstance(o, Index) and o == 0:
        raise ScriptError(f"`{symbol}` by zero (a constant divisor of 0)")
    return o


def ds(start: "Index | int", size: "Index | int", max: int | None = None) -> slice:  # noqa: A002
    """A dynamic slice of ``size`` starting at ``start`` (like NKI's ``nl.ds``). A size that is
    an index value is a guard: ``max`` is its static maximum (the view's type), e.g.
    ``Tx.ds(i * 128, Tx.min(128, n - i * 128), max=128)``; for ``Tx.min(c, e)`` it defaults
    to the constant ``c``."""
    if isinstance(size, Index):
        max = _guard_max(size) if max is None else _whole(max, "max")
        if max is None:
            raise ScriptError("a slice size that is an index value (a guard) needs its static "
                              "maximum: Tx.ds(start, size, max=128)")
        if max <= 0:
            raise ScriptError(f"Tx.ds: max must be positive (the view's static extent), got "
                              f"{max}")
        return slice(start, ("ds", size, max))
    n = _whole(size, "size")
    if max is not None and _whole(max, "max") < n:
        raise ScriptError(f"Tx.ds: the size {n} exceeds max={max}")
    return slice(start, ("ds", n, n))


def _whole(value: Any, what: str) -> int:
    """``value`` as a Python int (an int or a numpy integer), else a ScriptError: a float or a
    bool is never silently truncated into a size."""
    if not isinstance(value, bool):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise ScriptError(f"Tx.ds: {what} must be an int or an index value, got {value!r}")


def index_min(a: "Index | int", b: "Index | int") -> "Index | int":
    """``min(a, b)`` of index values (``arith.minsi``); of two ints, the int."""
    if not isinstance(a, Index) and not isinstance(b, Index):
        return min(int(a), int(b))
    return Index(arith.MinSIOp(Index.wrap(a), Index.wrap(b)).result)


def index_max(a: "Index | int", b: "Index | int") -> "Index | int":
    """``max(a, b)`` of index values (``arith.maxsi``); of two ints, the int."""
    if not isinstance(a, Index) and not isinstance(b, Index):
        return max(int(a), int(b))
    return Index(arith.MaxSIOp(Index.wrap(a), Index.wrap(b)).result)


def _guard_max(size: "Index") -> int | None:
    """The static maximum of ``Tx.min(c, e)`` (either operand order): the constant ``c``."""
    from tirx_mlir.dialects.tirx.access import constant_value

    owner = size.value.owner
    if isinstance(owner, arith.MinSIOp):
        for v in (owner.lhs, owner.rhs):
            c = constant_value(v)
            if isinstance(c, int):
                return c
    return None


def _expr(v) -> IndexExpr:
    return IndexExpr.of(v.value) if isinstance(v, Index) else IndexExpr(int(v))


def _slice_size(start, stop) -> tuple["int | Index", int]:
    """(size, static maximum) of ``start:stop``: a constant difference, a ``Tx.ds``, or a stop
    ``Tx.min(start + c, e)`` (the guarded last tile, ``A[i*128 : Tx.min((i+1)*128, n)]``),
    whose size is ``min(c, e - start)`` at most ``c``."""
    if isinstance(stop, tuple) and stop[0] == "ds":
        return stop[1], stop[2]
    diff = _expr(stop) + _expr(start).scale(-1)
    if diff.is_const():
        return diff.const, diff.const
    owner = stop.value.owner if isinstance(stop, Index) else None
    if isinstance(owner, arith.MinSIOp):
        for a, b in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            span = IndexExpr.of(a) + _expr(start).scale(-1)
            if span.is_const():
                size = index_min(span.const, Index(b) - start)
                return size, span.const
    raise ScriptError("slice bounds must differ by a constant, or stop at Tx.min(start + c, "
                      "n) (a guarded tile); else use Tx.ds(start, size, max=...)")


# --- buffers ------------------------------------------------------------------------------------


class Buffer:
    """A buffer (or view) value: ``buf[0:64, i * 128 : i * 128 + 128]`` makes a tirx.slice."""

    def __init__(self, value: SSAValue):
        self.value = value

    def __class_getitem__(cls, spec) -> "BufferSpec":
        """``Tx.Buffer[(128, 512), "f32"]`` (scope, layout optional): a parameter annotation."""
        return BufferSpec.of(spec, output=False)

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
        offsets, sizes, strides, maxima = [], [], [], []
        for k, dim in zip(key, self.shape):
            if isinstance(k, slice):
                start = 0 if k.start is None else k.start
                stop = dim if k.stop is None else k.stop
                step = 1 if k.step is None else k.step
                span, most = _slice_size(start, stop)
                if isinstance(span, Index):
                    if step != 1:
                        raise ScriptError("a guarded slice (an index-valued size) takes no step")
                    size: "int | SSAValue" = span.value
                else:
                    size = span if isinstance(stop, tuple) else -(-span // step)
                    most = size
            else:  # a single index keeps the dim with extent 1
                start, size, step, most = k, 1, 1, 1
            offsets.append(start.value if isinstance(start, Index) else int(start))
            sizes.append(size)
            maxima.append(most)
            strides.append(step)
        view = SliceOp(self.value, offsets, sizes, strides, max_sizes=maxima).result
        view.name_hint = assigned_name()
        return Buffer(view)

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
    """A tile-op operand: a Buffer, an Index, a scalar value (``Tx.const``, a backend op's
    result), a Python number (an f32 constant)."""
    if isinstance(v, (Buffer, Index, Cond)) or isinstance(getattr(v, "value", None), SSAValue):
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
    name = name or assigned_name()
    if name:
        result.name_hint = name
    return Buffer(result)


class BufferSpec:
    """A buffer parameter of ``@Tx.kernel``: ``Tx.Buffer[shape, dtype, scope, layout]`` (an
    input) or ``Tx.Out[...]`` (an output). Shapes may use the kernel's constexpr parameters."""

    def __init__(self, shape, dtype="f32", scope="global", layout=None, output=False):
        self.shape, self.dtype, self.scope, self.layout = shape, dtype, scope, layout
        self.output = output

    @classmethod
    def of(cls, spec, output: bool) -> "BufferSpec":
        spec = spec if isinstance(spec, tuple) and spec and isinstance(spec[0], (tuple, list)) \
            else (spec,)
        if not 1 <= len(spec) <= 4:
            raise ScriptError("write Buffer[shape, dtype, scope, layout] (dtype, scope and "
                              "layout optional)")
        return cls(*spec, output=output)

    def buffer_type(self) -> BufferType:
        if not all(isinstance(d, int) and not isinstance(d, bool) for d in self.shape):
            raise ScriptError(f"buffer shape {tuple(self.shape)} must be Python ints (constexpr "
                              f"parameters and captured constants are)")
        return buffer_type(tuple(self.shape), self.dtype, self.scope, self.layout)


class Out:
    """``Tx.Out[(128, 512), "f32"]``: an output buffer parameter of ``@Tx.kernel``."""

    def __class_getitem__(cls, spec) -> BufferSpec:
        return BufferSpec.of(spec, output=True)


# --- kernels and loops --------------------------------------------------------------------------


class KernelBuilder:
    """Builds one ``tirx.kernel``; enter it with ``with`` to add ops to its body."""

    def __init__(self, name: str, inputs: dict[str, BufferType], outputs: dict[str, BufferType],
                 grid=(1,), threads=(1,), cluster=None, target: str | None = None,
                 module: ModuleOp | None = None):
        self.op = KernelOp(name, list(inputs.values()), list(outputs.values()), grid, threads,
                           cluster, target)
        loc = here()
        if loc is not None:
            self.op.location = loc.attr()
        for arg, arg_name in zip(self.op.body.block.args, [*inputs, *outputs]):
            arg.name_hint = arg_name
        self.args = tuple(Buffer(a) for a in self.op.body.block.args)
        self.module = module if module is not None else ModuleOp([])
        self.module.body.block.add_op(self.op)
        self._ctx: contextlib.ExitStack | None = None

    def __enter__(self) -> "KernelBuilder":
        self._ctx = contextlib.ExitStack()
        self._ctx.enter_context(ImplicitBuilder(located_builder(self.op.body.block)))
        return self

    def __exit__(self, *exc) -> None:
        assert self._ctx is not None
        self._ctx.close()
        if exc[0] is None:
            ret = ReturnOp()
            ret.location = self.op.location
            self.op.body.block.add_op(ret)


@contextlib.contextmanager
def for_range(start: int | Index, stop: int | Index, step: int = 1) -> Iterator[Index]:
    """``with Tx.range(0, 8) as i:`` builds an ``scf.for`` and yields its induction variable."""
    lb, ub, st = Index.wrap(start), Index.wrap(stop), Index.wrap(step)
    body = Block(arg_types=[IndexType()])
    loop = scf.ForOp(lb, ub, st, [], Region(body))
    with ImplicitBuilder(located_builder(body)):
        yield Index(body.args[0])
        scf.YieldOp()
    del loop
