"""Building an IRDL op without xDSL's general builder, for the op shapes the compiler builds most.

xDSL's `irdl_op_init` accepts any mix of values, ops, lists and ``None`` for any op definition,
checks every construct against it and encodes segment sizes afresh for every op: about half the
cost of making a tile primitive, an instruction or a view during dispatch. `build_op` does the
same for an op class whose definition has only single results, no regions or successors, and no
option other than operand segment sizes kept as a property, when every operand group is given as
SSA values: the operands flattened, ``None`` properties dropped, the segment sizes (an equal,
shared i32 array) last among the properties, exactly as `irdl_op_init` orders them. For anything
else it calls xDSL's builder, which also reports bad arguments as before.

`arith_constant`, `arith_binary` and `arith_index_cast` make the arith ops that dispatch and the
index passes build most, as their xDSL constructors would. Those ops and the ones `build_op`
builds directly get their fields set as ``Operation.__init__`` sets them, without its setters and
dataclass constructors (`init_fields`), unless an ImplicitBuilder is open.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from xdsl.dialects import arith
from xdsl.dialects.arith import (FloatingPointLikeBinaryOperation, IntegerOverflowAttr,
                                 SignlessIntegerBinaryOperation,
                                 SignlessIntegerBinaryOperationWithOverflow)
from xdsl.builder import _current_builder
from xdsl.dialects.builtin import UNKNOWN_LOC, DenseArrayBase, IntegerAttr, i32
from xdsl.ir import Attribute, Operation, OpResult, SSAValue, SSAValues, Use
from xdsl.irdl import IRDLOperation, OptionalDef, OptOperandDef, VarOperandDef
from xdsl.irdl.operations import AttrSizedOperandSegments, VarResultDef

from tirx_mlir.type_tests import IsInstance

_PLANS: dict[type, tuple[tuple[str, ...], int, bool] | None] = {}
"""op class -> (kind of each operand definition: "single", "optional" or "variadic"; how many
results; whether it has operand segment sizes), or None when `build_op` leaves it to xDSL."""

_SEGMENT_ATTRS: dict[tuple[int, ...], DenseArrayBase] = {}
"""operand segment sizes -> their i32 dense array (an op set has few distinct ones)."""


def _plan(op_cls: type[IRDLOperation]) -> tuple[tuple[str, ...], int, bool] | None:
    if op_cls in _PLANS:
        return _PLANS[op_cls]
    op_def = op_cls.get_irdl_definition()
    options = op_def.options
    segments = any(isinstance(o, AttrSizedOperandSegments) and o.as_property for o in options)
    plan = None
    if not op_def.regions and not op_def.successors and len(options) == segments and \
            not any(isinstance(d, VarResultDef) for _, d in op_def.results):
        kinds = tuple("optional" if isinstance(d, OptOperandDef) else
                      "variadic" if isinstance(d, VarOperandDef) else "single"
                      for _, d in op_def.operands)
        plan = (kinds, len(op_def.results), segments)
    _PLANS[op_cls] = plan
    return plan


def build_op(op: IRDLOperation, operands: Sequence, properties: Mapping[str, Attribute | None],
             result_types: Sequence[Attribute] = ()) -> None:
    """``IRDLOperation.__init__(op, operands=..., properties=..., result_types=...)``, directly
    where the module docstring says it can."""
    if not _build_directly(op, operands, properties, result_types):
        IRDLOperation.__init__(op, operands=operands, properties=properties,
                               result_types=result_types)


_IS_ATTRIBUTE = IsInstance(Attribute)
_IS_VALUE = IsInstance(SSAValue)


def _build_directly(op: IRDLOperation, operands: Sequence,
                    properties: Mapping[str, Attribute | None],
                    result_types: Sequence[Attribute]) -> bool:
    plan = _plan(type(op))
    if plan is None:
        return False
    kinds, results, segments = plan
    if len(operands) != len(kinds) or len(result_types) != results or \
            not all(_IS_ATTRIBUTE(t) for t in result_types):
        return False
    flat: list[SSAValue] = []
    sizes: list[int] = []
    for group, kind in zip(operands, kinds):
        if kind == "single":
            if not _IS_VALUE(group):
                return False
            flat.append(group)
            sizes.append(1)
            continue
        if not isinstance(group, (list, tuple)) or (kind == "optional" and len(group) > 1) or \
                not all(_IS_VALUE(v) for v in group):
            return False
        flat += group
        sizes.append(len(group))
    built = {name: attr for name, attr in properties.items() if attr is not None}
    if segments:
        key = tuple(sizes)
        attr = _SEGMENT_ATTRS.get(key)
        if attr is None:
            attr = _SEGMENT_ATTRS[key] = DenseArrayBase.from_list(i32, key)
        built[AttrSizedOperandSegments.attribute_name] = attr
    if direct_fields(type(op)):
        init_fields(op, flat, result_types, built)
    else:
        Operation.__init__(op, operands=flat, result_types=result_types, properties=built)
    return True


# --- an op's fields, as `Operation.__init__` sets them ----------------------------------------

_Defaults = tuple[tuple[str, Attribute], ...]
_DEFAULTS: dict[type, tuple[_Defaults, _Defaults]] = {}
"""op class -> the (name, default) of each property and attribute `IRDLOperation.__post_init__`
fills in when absent."""


def _defaults_of(op_cls: type) -> tuple[_Defaults, _Defaults]:
    found = _DEFAULTS.get(op_cls)
    if found is None:
        op_def = op_cls.get_irdl_definition()

        def filled(defs: Mapping) -> _Defaults:
            return tuple((name, d.default_value) for name, d in defs.items()
                         if not isinstance(d, OptionalDef) and d.default_value is not None)

        found = _DEFAULTS[op_cls] = (filled(op_def.properties), filled(op_def.attributes))
    return found


def direct_fields(op_cls: type) -> bool:
    """Whether `init_fields` is what ``Operation.__init__`` would do for ``op_cls`` now: its
    ``__post_init__`` is IRDL's (no class of its own runs more) and no ImplicitBuilder is open
    (xDSL inserts each new op into it from ``Operation.__post_init__``)."""
    return _current_builder.builder is None and op_cls.__post_init__ is _IRDL_POST_INIT


_IRDL_POST_INIT = IRDLOperation.__post_init__


def init_fields(op: IRDLOperation, operands: Sequence[SSAValue],
                result_types: Sequence[Attribute], properties: Mapping[str, Attribute],
                attributes: Mapping[str, Attribute] | None = None,
                location: Attribute = UNKNOWN_LOC) -> None:
    """``Operation.__init__(op, operands=..., result_types=..., properties=..., attributes=...,
    location=...)`` and `IRDLOperation.__post_init__`'s defaults, where `direct_fields` says so
    (the caller checks), the fields set directly: the same operands, uses (each put first in
    its value's use list, in operand order, as ``add_use`` does), results, properties and
    attributes (copies), location, no successors, regions or parent. xDSL's version goes through the
    operand and successor setters and the dataclasses' constructors: about half of the cost
    of the ~5,000 arith ops a GEMM's compile builds."""
    op._operands = SSAValues(operands)  # noqa: SLF001
    uses = []
    for i, value in enumerate(operands):
        use = object.__new__(Use)  # Use(op, i), put first in the value's list
        use._operation, use._index, use._prev_use = op, i, None  # noqa: SLF001
        use._next_use = first = value.first_use  # noqa: SLF001
        if first is not None:
            first._prev_use = use  # noqa: SLF001
        value.first_use = use
        uses.append(use)
    op._operand_uses = tuple(uses)  # noqa: SLF001
    results = []
    for i, result_type in enumerate(result_types):
        result = object.__new__(OpResult)  # OpResult(result_type, op, i)
        result._type, result.op, result.index = result_type, op, i  # noqa: SLF001
        result.first_use, result._name = None, None  # noqa: SLF001
        results.append(result)
    op.results = SSAValues(results)
    op.properties, op.attributes = dict(properties), dict(attributes) if attributes else {}
    op.location = location
    op._successors, op._successor_uses, op.regions = (), (), ()  # noqa: SLF001
    op.parent = op._next_op = op._prev_op = None  # noqa: SLF001
    props, attrs = _defaults_of(type(op))
    for name, default in props:
        if name not in op.properties:
            op.properties[name] = default
    for name, default in attrs:
        if name not in op.attributes:
            op.attributes[name] = default


def clone_leaf(op: Operation) -> Operation:
    """``op.clone()`` of an op without regions, successors or operands (a constant): a new op
    of its class with copies of its properties and attributes, its location and result types,
    and its results' name hints (through xDSL's setter, as ``clone`` sets them); `init_fields`
    where `direct_fields` allows, else xDSL's ``clone``."""
    op_cls = type(op)
    if op.regions or op._successors or op._operands or not direct_fields(op_cls):  # noqa: SLF001
        return op.clone()
    new = op_cls.__new__(op_cls)
    init_fields(new, (), [r._type for r in op.results], op.properties,  # noqa: SLF001
                op.attributes, op.location)
    for old, result in zip(op.results, new.results):
        result.name_hint = old._name  # noqa: SLF001
    return new


def new_op(op_cls: type[IRDLOperation], operands: Sequence[SSAValue],
           result_types: Sequence[Attribute], properties: Mapping[str, Attribute] = {}
           ) -> IRDLOperation:
    """``op_cls.create(operands=..., result_types=..., properties=...)``: `init_fields` on a
    new instance, else (`direct_fields`: inside an ImplicitBuilder, which receives the op)
    xDSL's ``create``."""
    if not direct_fields(op_cls):
        return op_cls.create(operands=operands, result_types=result_types,
                             properties=properties)
    op = op_cls.__new__(op_cls)
    init_fields(op, operands, result_types, properties)
    return op


# --- arith ops, as their xDSL constructors make them ------------------------------------------
# Passes and dispatch build thousands of integer constants, binary ops and index casts; each of
# these functions makes the op its xDSL constructor makes (the same operands, result type and
# properties), through `new_op` (`init_fields`) instead of `irdl_op_init`. An ImplicitBuilder
# still receives the op (`new_op` then calls xDSL's ``create``, which inserts it from
# `Operation.__post_init__`).

_NO_OVERFLOW = IntegerOverflowAttr("none")
_INT_ATTRS: dict[tuple[int, Attribute], IntegerAttr] = {}
"""``IntegerAttr(value, type)`` per small value and type (immutable, so ops may share one)."""
_CACHED_INTS = range(-1024, 1 << 20)


def integer_attr(value: int, type_: Attribute) -> IntegerAttr:
    """``IntegerAttr(value, type_)`` (checked by xDSL once per small value and type)."""
    key = (value, type_)
    attr = _INT_ATTRS.get(key)
    if attr is None:
        attr = IntegerAttr(value, type_)
        if value in _CACHED_INTS:
            _INT_ATTRS[key] = attr
    return attr


def arith_constant(value: int, type_: Attribute) -> arith.ConstantOp:
    """``arith.ConstantOp(IntegerAttr(value, type_))``."""
    return new_op(arith.ConstantOp, (), (type_,), {"value": integer_attr(int(value), type_)})


def arith_binary(op_cls: type[IRDLOperation], lhs: SSAValue, rhs: SSAValue,
                 overflow: IntegerOverflowAttr | None = None) -> IRDLOperation:
    """``op_cls(lhs, rhs)`` (``overflow=overflow`` when given) for an integer binary op of
    arith, or a floating-point one (``addf``, ``maximumf``...: no flags, so ``fastmath`` is its
    default); other classes go through their constructor."""
    init = op_cls.__init__
    if init is SignlessIntegerBinaryOperationWithOverflow.__init__:
        return new_op(op_cls, (lhs, rhs), (lhs.type,),
                      {"overflowFlags": overflow or _NO_OVERFLOW})
    if init is SignlessIntegerBinaryOperation.__init__ and overflow is None:
        return new_op(op_cls, (lhs, rhs), (lhs.type,))
    if init is FloatingPointLikeBinaryOperation.__init__ and overflow is None:
        return new_op(op_cls, (lhs, rhs), (lhs.type,))  # fastmath: its default, as xDSL's
    return op_cls(lhs, rhs) if overflow is None else op_cls(lhs, rhs, overflow=overflow)


def arith_index_cast(value: SSAValue, type_: Attribute) -> arith.IndexCastOp:
    """``arith.IndexCastOp(value, type_)``."""
    return new_op(arith.IndexCastOp, (value,), (type_,))
