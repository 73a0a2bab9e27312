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
index passes build most, as their xDSL constructors would.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from xdsl.dialects import arith
from xdsl.dialects.arith import (IntegerOverflowAttr, SignlessIntegerBinaryOperation,
                                 SignlessIntegerBinaryOperationWithOverflow)
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, OptOperandDef, VarOperandDef
from xdsl.irdl.operations import AttrSizedOperandSegments, VarResultDef

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


def _build_directly(op: IRDLOperation, operands: Sequence,
                    properties: Mapping[str, Attribute | None],
                    result_types: Sequence[Attribute]) -> bool:
    plan = _plan(type(op))
    if plan is None:
        return False
    kinds, results, segments = plan
    if len(operands) != len(kinds) or len(result_types) != results or \
            not all(isinstance(t, Attribute) for t in result_types):
        return False
    flat: list[SSAValue] = []
    sizes: list[int] = []
    for group, kind in zip(operands, kinds):
        if kind == "single":
            if not isinstance(group, SSAValue):
                return False
            flat.append(group)
            sizes.append(1)
            continue
        if not isinstance(group, (list, tuple)) or (kind == "optional" and len(group) > 1) or \
                not all(isinstance(v, SSAValue) for v in group):
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
    Operation.__init__(op, operands=flat, result_types=result_types, properties=built)
    return True


# --- arith ops, as their xDSL constructors make them ------------------------------------------
# Passes and dispatch build thousands of integer constants, binary ops and index casts; each of
# these functions makes the op its xDSL constructor makes (the same operands, result type and
# properties), through `Operation.create` instead of `irdl_op_init`. An ImplicitBuilder still
# receives the op (xDSL inserts it from `Operation.__post_init__`).

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
    return arith.ConstantOp.create(result_types=(type_,),
                                   properties={"value": integer_attr(int(value), type_)})


def arith_binary(op_cls: type[IRDLOperation], lhs: SSAValue, rhs: SSAValue,
                 overflow: IntegerOverflowAttr | None = None) -> IRDLOperation:
    """``op_cls(lhs, rhs)`` (``overflow=overflow`` when given) for an integer binary op of
    arith; other classes go through their constructor."""
    init = op_cls.__init__
    if init is SignlessIntegerBinaryOperationWithOverflow.__init__:
        return op_cls.create(operands=(lhs, rhs), result_types=(lhs.type,),
                             properties={"overflowFlags": overflow or _NO_OVERFLOW})
    if init is SignlessIntegerBinaryOperation.__init__ and overflow is None:
        return op_cls.create(operands=(lhs, rhs), result_types=(lhs.type,))
    return op_cls(lhs, rhs) if overflow is None else op_cls(lhs, rhs, overflow=overflow)


def arith_index_cast(value: SSAValue, type_: Attribute) -> arith.IndexCastOp:
    """``arith.IndexCastOp(value, type_)``."""
    return arith.IndexCastOp.create(operands=(value,), result_types=(type_,))
