"""``Tx.cuda``, ``Tx.ptx`` and ``Tx.nvshmem``: build the CUDA backend's ops from Python.

    @Tx.kernel(target="cuda -arch=sm_80", grid=(256,), threads=(256,))
    def warp_sum(X: Tx.Buffer[(65536,), "f32"], Sum: Tx.Out[(1,), "f32"]):
        i = Tx.cuda.block_idx("x") * 256 + Tx.cuda.thread_idx("x")
        x = Tx.cuda.load(X, i, nc=True)
        for k in Tx.unroll(5):
            x = x + Tx.cuda.shfl_sync("xor", -1, x, 16 >> k)
        if Tx.cuda.lane_id() == 0:
            Tx.cuda.atomic("add", Sum, 0, x)

* ``Tx.cuda.<op>`` / ``Tx.nvshmem.<op>``: one function per op of the ``cuda`` / ``nvshmem``
  dialects, named after it. The head word of the IR form (``cuda.shfl_sync xor ...``) is the
  first argument (``"xor"``) or its keyword (``mode="xor"``); then the operands in the op's
  order; properties as keywords (``nc=True``, ``cache="cg"``, ``width=16``). TIRx's names
  ``cta_sync``, ``warp_sync``, ``cluster_sync``, ``grid_sync`` name the sync ops too.
* ``Tx.ptx.<row>``: one function per row of the PTX instruction table (dialects/ptx/table.py),
  generated from it: the modifier string of the IR form first (``"global.nc.v4.f32"``) and/or
  the modifiers as keywords (``space="global", vec="v4", type="f32"``), then the values the
  instruction reads in PTX order, a list for a vector operand (``[a0, a1, a2, a3]``) and a
  Python int for an immediate (``cp_size`` 16).
* A Python number as an operand becomes a constant of the type the operand takes: ``index``
  for a memory index or a count, the buffer's element type for a stored or atomic value, the
  register type for a PTX operand, else ``i32`` (an int) or ``f32`` (a float).
* Results: an ``index`` is an index value, an ``i1`` a condition (``if Tx.cuda.elect_sync(-1):``),
  others scalars with Python arithmetic (`tirx_mlir.script.scalars`); several are a tuple.
  ``result_types=[...]`` sets them where the op cannot infer them (``cuda.cvt``, a ``.b16``
  register holding an f16).

Each op is verified as it is built, so a wrong operand count, type or a target rule is an error
at the Python line that made it; so is an unknown op, with the close names.
"""

from __future__ import annotations

from typing import Any, Callable

SYNC_ALIASES = {"cta_sync": "sync_threads", "warp_sync": "sync_warp",
                "warpgroup_sync": "sync_warpgroup", "cluster_sync": "sync_cluster",
                "grid_sync": "sync_grid"}
"""TIRx's ``T.cuda`` names of the barriers -> the ``cuda`` op."""

INDEX_OPERANDS = ("index", "nelems")
"""Operands whose Python ints are ``index`` constants."""
LIKE_MEMORY = ("value", "compare")
"""Operands whose Python numbers take the element type of the op's first buffer operand."""


def _cuda_table() -> dict[str, Callable[..., Any]]:
    from tirx_mlir.backends.cuda.dialects.cuda import CUDA_OPS, PrintfOp

    table = {op.name.split(".", 1)[1]: _keyword_op_builder(op, "cuda")
             for op in CUDA_OPS if op is not PrintfOp}
    table["printf"] = _printf
    table.update({alias: table[name] for alias, name in SYNC_ALIASES.items()})
    return table


def _nvshmem_table() -> dict[str, Callable[..., Any]]:
    from tirx_mlir.backends.cuda.dialects.nvshmem import NVSHMEM_OPS

    return {op.name.split(".", 1)[1]: _keyword_op_builder(op, "nvshmem") for op in NVSHMEM_OPS}


def _ptx_table() -> dict[str, Callable[..., Any]]:
    from tirx_mlir.backends.cuda.dialects.ptx import PTX_OPS

    return {op.ENTRY.name: _ptx_builder(op) for op in PTX_OPS}


# --- operands --------------------------------------------------------------------------------


def _value(arg: Any, integer_type: Any = None, float_type: Any = None) -> Any:
    """An SSA operand from a front-end value or a Python number (a constant of the given
    types; i32 / f32 by default)."""
    from xdsl.ir import SSAValue

    from tirx_mlir.script.builder import ScriptError
    from tirx_mlir.script.scalars import const

    if isinstance(arg, SSAValue):
        return arg
    if isinstance(arg, bool):
        raise ScriptError("a Python bool is no operand; pass Tx.const(1, 'i1') for a predicate")
    if isinstance(arg, int):
        return const(arg, integer_type or "i32").value
    if isinstance(arg, float):
        return const(arg, float_type or "f32").value
    value = getattr(arg, "value", None)
    if isinstance(value, SSAValue):
        return value
    raise ScriptError(f"cannot use {type(arg).__name__} as an operand")


def _number_type(op_cls: type, name: str, values: dict[str, Any]) -> Any:
    """The type a Python number takes as operand ``name`` of a cuda/nvshmem op."""
    from tirx_mlir.dialects.tirx.attributes import BufferType

    if name in INDEX_OPERANDS:
        return "index"
    if name in LIKE_MEMORY:
        for v in values.values():
            t = getattr(getattr(v, "value", v), "type", None)
            if isinstance(t, BufferType):
                return t.element_type
    if op_cls.name in ("nvshmem.signal_op", "nvshmem.signal_wait_until") and name == "value":
        return "i64"
    return None


# --- cuda and nvshmem ops (the keyword syntax) --------------------------------------------------


def default_result_types(op_cls: type, operands: list[Any], head: str | None) -> list | None:
    """The result types a ``Tx.cuda``/``Tx.nvshmem`` call gives when ``result_types`` is not
    passed (None: the op needs them); ``-t tx`` prints ``result_types=`` where they differ."""
    from xdsl.dialects.builtin import IntegerType

    from tirx_mlir.backends.cuda.memory import SHARED_SCOPES

    if not op_cls.get_irdl_definition().results:
        return []
    if op_cls.RESULTS or op_cls.RESULT_LIKE is not None:
        return op_cls._default_result_types(operands)
    memory = operands[0].type if operands and operands[0] is not None else None
    if op_cls.name == "cuda.load" and memory is not None:
        return [memory.element_type]
    if op_cls.name == "cuda.address" and memory is not None:
        return [IntegerType(32 if memory.scope_name in SHARED_SCOPES else 64)]
    if op_cls.name == "cuda.vote":
        return [IntegerType(32 if head == "ballot" else 1)]
    return None


def _keyword_op_builder(op_cls: type, dialect: str) -> Callable[..., Any]:
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.script.builder import ScriptError, bind_arguments
    from tirx_mlir.script.scalars import parse_type, wrap_results

    short = op_cls.name.split(".", 1)[1]
    what = f"Tx.{dialect}.{short}"
    names = [n for n, _ in op_cls.get_irdl_definition().operands]

    def build(*args: Any, result_types: Any = None, **kwargs: Any) -> Any:
        head = None
        if op_cls.HEAD is not None:
            prop, choices = op_cls.HEAD
            if args and isinstance(args[0], str):
                head, args = args[0], args[1:]
            head = kwargs.pop(prop, head)
            if head is None:
                raise ScriptError(f"{what} needs its {prop} first: one of {', '.join(choices)} "
                                  f"(e.g. {what}({choices[0]!r}, ...))")
            if head not in choices:
                raise ScriptError(f"{what}: {prop} {head!r} is not one of {', '.join(choices)}")
        values, props = bind_arguments(op_cls, args, kwargs, what)
        operands = [_value(values[n], _number_type(op_cls, n, values)) if n in values else None
                    for n in names]
        types = _result_types(result_types, parse_type)
        if types is None:
            types = default_result_types(op_cls, operands, head)
            if types is None:
                raise ScriptError(f"{what} cannot infer its result type: pass "
                                  f"result_types=[...] (e.g. ['f32'])")
        if head is not None:
            props[op_cls.HEAD[0]] = head
        try:
            op = op_cls(*operands, result_types=types, **props)
        except ValueError as err:
            raise ScriptError(f"{what}: {err}") from None
        _verify(op, what, VerifyException, ScriptError)
        return wrap_results(op)

    build.__name__ = short
    build.__doc__ = op_cls.__doc__
    return build


def _printf(fmt: str, *args: Any) -> None:
    """``cuda.printf``: ``Tx.cuda.printf("block %d: %f\\n", b, s)``."""
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.backends.cuda.dialects.cuda import PrintfOp
    from tirx_mlir.script.builder import ScriptError

    if not isinstance(fmt, str):
        raise ScriptError("Tx.cuda.printf takes the format string first")
    op = PrintfOp(fmt, [_value(a) for a in args])
    _verify(op, "Tx.cuda.printf", VerifyException, ScriptError)


def _result_types(spec: Any, parse_type: Callable[[Any], Any]) -> list | None:
    if spec is None:
        return None
    items = spec if isinstance(spec, (list, tuple)) else [spec]
    return [parse_type(t) for t in items]


def _verify(op: Any, what: str, verify_error: type, script_error: type) -> None:
    try:
        op.verify_()  # the op's rules, with the kernel's launch and target (it is inserted)
    except verify_error as err:
        raise script_error(f"{what}: {err}") from None


# --- ptx rows (generated from the table) -------------------------------------------------------


def _ptx_builder(op_cls: type) -> Callable[..., Any]:
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.backends.cuda.dialects.ptx import forms
    from tirx_mlir.backends.cuda.dialects.ptx.ops import default_type, make
    from tirx_mlir.script.builder import ScriptError
    from tirx_mlir.script.scalars import parse_type, wrap_results

    entry = op_cls.ENTRY
    what = f"Tx.ptx.{entry.name}"

    def build(*args: Any, result_types: Any = None, **kwargs: Any) -> Any:
        mods: dict[str, object] = {}
        try:
            if args and isinstance(args[0], str):
                mods.update(forms.parse_mods(entry, args[0]))
                args = args[1:]
            mods.update(kwargs)
            read = _read_places(entry, mods, forms)
            operands = _ptx_operands(what, read, list(args), mods, default_type)
            forms.check_mods(entry, mods)
            types = _result_types(result_types, parse_type)
            op = make(entry.name, operands, types, **mods)
        except (forms.ModifierError, ValueError) as err:
            if isinstance(err, ScriptError):
                raise
            raise ScriptError(f"{what}: {err}") from None
        _verify(op, what, VerifyException, ScriptError)
        return wrap_results(op)

    build.__name__ = entry.name
    build.__doc__ = op_cls.__doc__
    return build


def _read_places(entry: Any, mods: dict, forms: Any) -> list:
    """The places the instruction reads (immediates included), for the modifiers given."""
    try:
        places = forms.places(entry, mods)
    except (KeyError, TypeError):  # a slot the layout depends on is missing or wrong
        forms.check_mods(entry, mods)
        raise
    return [p for p in places if p.operand.rw != "w"]


def _ptx_operands(what: str, read: list, args: list, mods: dict,
                  default_type: Callable[[str], Any]) -> list:
    """The SSA operands of a ptx call, filling immediates into ``mods``."""
    from tirx_mlir.script.builder import ScriptError

    layout = ", ".join(f"{p.operand.name}" + (f" [{p.values} values]" if p.values > 1 else "")
                       for p in read if not (p.operand.kind == "imm" and p.operand.name in mods))
    positional = [p for p in read if not (p.operand.kind == "imm" and p.operand.name in mods)]
    if len(args) != len(positional):
        raise ScriptError(f"{what} with these modifiers takes {len(positional)} operands "
                          f"({layout or 'none'}), got {len(args)}")
    operands = []
    for place, arg in zip(positional, args):
        if place.operand.kind == "imm":
            if not isinstance(arg, int) or isinstance(arg, bool):
                raise ScriptError(f"{what}: '{place.operand.name}' is an immediate: pass a "
                                  f"Python int")
            mods[place.operand.name] = arg
            continue
        items = _flatten(arg) if place.values > 1 or place.operand.vector else [arg]
        if len(items) != place.values:
            raise ScriptError(f"{what}: operand '{place.operand.name}' takes {place.values} "
                              f"values (a list), got {len(items)}")
        reg = default_type(place.type) if place.type in _REG_TYPES else None
        for i, item in enumerate(items):
            address = place.operand.kind == "addr" or (place.operand.kind == "tensor" and i == 0)
            if address and isinstance(item, (int, float)):
                raise ScriptError(f"{what}: operand '{place.operand.name}' is an address: pass "
                                  f"Tx.cuda.address(buffer, index)")
            operands.append(_value(item, reg, reg))
    return operands


_REG_TYPES = ("pred", "b16", "u16", "s16", "f16", "bf16", "b32", "u32", "s32", "f32", "b64",
              "u64", "s64", "f64")


def _flatten(arg: Any) -> list:
    if isinstance(arg, (list, tuple)):
        return [x for item in arg for x in _flatten(item)]
    return [arg]


class CudaNamespace:
    """``Tx.cuda`` / ``Tx.ptx`` / ``Tx.nvshmem``: the builders ``table()`` makes on first use
    (registering one imports neither xDSL nor a dialect: start-up time)."""

    def __init__(self, name: str, table: Callable[[], dict[str, Callable[..., Any]]],
                 what: str = "op"):
        self._name, self._make, self._what = name, table, what
        self._table: dict[str, Callable[..., Any]] | None = None

    def functions(self) -> dict[str, Callable[..., Any]]:
        if self._table is None:
            self._table = self._make()
        return self._table

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        from tirx_mlir.script.namespace import lookup

        return lookup(self._name, self.functions(), name, self._what)

    def __dir__(self) -> list[str]:
        return sorted(self.functions())

    def __repr__(self) -> str:
        return f"<script namespace Tx.{self._name}>"

    def script_call(self, op: Any, operand: Callable[[Any], str]) -> str | None:
        """The call of this namespace that builds ``op`` (``-t tx``), with ``operand(value)``
        the source of an operand; None for an op of another dialect."""
        if not op.name.startswith(f"{self._name}."):
            return None
        if self._name == "ptx":
            return _ptx_call(op, operand)
        return _keyword_call(op, operand, self._name)


CUDA = CudaNamespace("cuda", _cuda_table)
PTX = CudaNamespace("ptx", _ptx_table, "instruction")
NVSHMEM = CudaNamespace("nvshmem", _nvshmem_table)
NAMESPACES = {"cuda": CUDA, "ptx": PTX, "nvshmem": NVSHMEM}
"""What ``register_backend`` publishes as ``Tx.<name>``."""


# --- back to source (``-t tx``): the calls above, from the ops -----------------------------------


def _keyword_call(op: Any, operand: Callable[[Any], str], dialect: str) -> str:
    from xdsl.dialects.builtin import IntegerAttr, StringAttr, UnitAttr
    from xdsl.irdl import OptOperandDef, VarOperandDef

    from tirx_mlir.script.scalars import type_text

    short = op.name.split(".", 1)[1]
    if op.name == "cuda.printf":
        return f"Tx.cuda.printf({', '.join([repr(op.format.data), *map(operand, op.args)])})"
    head = op.head if op.HEAD is not None else None
    args = [repr(head)] if head is not None else []
    keywords = []
    for name, odef in op.get_irdl_definition().operands:
        value = getattr(op, name)
        if isinstance(odef, OptOperandDef):
            if value is not None:
                keywords.append(f"{name}={operand(value)}")
        elif isinstance(odef, VarOperandDef):
            keywords.append(f"{name}=[{', '.join(map(operand, value))}]")
        else:
            args.append(operand(value))
    for key in op.KEYWORDS:
        attr = op.properties.get(key)
        if isinstance(attr, UnitAttr):
            keywords.append(f"{key}=True")
        elif isinstance(attr, IntegerAttr):
            keywords.append(f"{key}={attr.value.data}")
        elif isinstance(attr, StringAttr):
            keywords.append(f"{key}={attr.data!r}")
    types = list(op.result_types)
    if types != default_result_types(type(op), list(op.operands), head):
        keywords.append(f"result_types={[type_text(t) for t in types]!r}")
    return f"Tx.{dialect}.{short}({', '.join(args + keywords)})"


def _ptx_call(op: Any, operand: Callable[[Any], str]) -> str:
    from tirx_mlir.backends.cuda.dialects.ptx import forms
    from tirx_mlir.backends.cuda.dialects.ptx.ops import default_type
    from tirx_mlir.script.scalars import type_text

    entry, mods = op.ENTRY, op.mods()
    text = forms.format_mods(entry, mods)
    args = [repr(text)] if text else []
    places = forms.places(entry, mods)
    values = iter(op.args)
    for place in places:
        if place.operand.rw == "w":
            continue
        if place.operand.kind == "imm":
            args.append(str(mods[place.operand.name]))
            continue
        taken = [operand(next(values)) for _ in range(place.values)]
        vector = place.values > 1 or place.operand.vector
        args.append(f"[{', '.join(taken)}]" if vector else taken[0])
    defaults = [default_type(p.type) for p in places if p.operand.rw != "r"
                for _ in range(p.values)]
    if list(op.result_types) != defaults:
        args.append(f"result_types={[type_text(t) for t in op.result_types]!r}")
    return f"Tx.ptx.{entry.name}({', '.join(args)})"
