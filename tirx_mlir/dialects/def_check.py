"""An op's IRDL definition checked without xDSL's generic per-op machinery.

xDSL's ``irdl_op_definition`` gives every op class a ``verify_`` that runs ``OpDef.verify`` (the
operand, result, region and successor counts and constraints, the properties, the attributes and
the traits) and then the class's own ``verify_``. ``OpDef.verify`` works out the variadic segment
sizes of every construct on every call, which costs more than the checks themselves for an op
whose constructs are all single (``arith.addi``, ``tirx.return``).

`irdl_op_definition` here is xDSL's decorator plus a ``verify_`` with the same outcome: a check
compiled from the definition (`compile_def_check`: the same constraint objects called on the same
values in the same order, with the counts compared directly, and operand segment sizes decoded
once rather than at each named operand) and then the class's own ``verify_``. When the compiled
check fails for any reason, xDSL's ``OpDef.verify`` runs instead and raises its own error, so
every message is xDSL's. A definition the compiler does not cover (other options than one
operand segment-size property or attribute; without it, several variadic or optional operands
or results) keeps xDSL's ``verify_`` unchanged. `install_def_check` does the
same for a class xDSL's decorator already made (the upstream dialects' ops, when tirx_mlir loads
them). `install_segment_operands` gives an op class with operand segment sizes named-operand
accessors that keep the decoded sizes (`SegmentOperand`; the nki ops use them).
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Operation
from xdsl.irdl import irdl_op_definition as xdsl_op_definition
from xdsl.irdl.constraints import VerificationContext
from xdsl.irdl.operations import (
    AttrSizedOperandSegments,
    OpDef,
    OptAttributeDef,
    OptionalDef,
    OptPropertyDef,
    VariadicDef,
    VarIRConstruct,
    irdl_op_verify_regions,
    verify_variadic_size,
)
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.lazy_op_definitions import when_defined


def _arg_check(defs) -> tuple[str, tuple] | None:
    """How to check one construct's list: ``("single", constraints)`` when every definition is
    a single value, ``("variadic", (constraint,))`` for one non-optional variadic definition
    alone (any count), ``("one variadic", (its position, whether it is optional,
    constraints))`` for one variadic or optional definition among single ones (a tile
    primitive's trailing workspace), None otherwise."""
    kinds = [d for _, d in defs]
    variadic = [i for i, d in enumerate(kinds) if isinstance(d, VariadicDef)]
    if not variadic:
        return "single", tuple(d.constr for d in kinds)
    if len(kinds) == 1 and not isinstance(kinds[0], OptionalDef):
        return "variadic", (kinds[0].constr,)
    if len(variadic) == 1:
        at = variadic[0]
        return "one variadic", (at, isinstance(kinds[at], OptionalDef),
                                tuple(d.constr for d in kinds))
    return None


def _check_one_variadic(spec: tuple, values, context) -> None:
    """xDSL's ``verify_variadic_same_size`` and per-definition constraints for one variadic (or
    optional) definition at position ``at`` among single ones: it takes what the single ones
    leave (an optional one at most one value), each definition's constraint is verified in
    order on its values' types."""
    at, optional, constrs = spec
    extra = len(values) - (len(constrs) - 1)
    if extra < 0 or (optional and extra > 1):
        raise VerifyException("count")
    for k, constr in enumerate(constrs):
        if k < at:
            constr.verify((values[k].type,), context)
        elif k == at:
            constr.verify(tuple(v.type for v in values[at:at + extra]), context)
        else:
            constr.verify((values[k + extra - 1].type,), context)


def _segment_check(defs, option: AttrSizedOperandSegments) -> tuple[str, tuple]:
    """How to check operands whose counts a segment-size property or attribute gives:
    ``("segments", (where, its name, ((least, most), constraint) of each definition))``."""
    bounds = tuple(((0, 1) if isinstance(d, OptionalDef) else (0, None)
                    if isinstance(d, VariadicDef) else (1, 1), d.constr) for _, d in defs)
    return "segments", ("properties" if option.as_property else "attributes",
                        option.attribute_name, bounds)


def _check_segments(spec: tuple, op: Operation, values, context) -> None:
    """xDSL's ``verify_variadic_attr_size`` and per-definition constraints, the sizes decoded
    once."""
    where, attr_name, bounds = spec
    attr = getattr(op, where).get(attr_name)
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i32:
        raise VerifyException("segments")
    sizes = attr.get_values()
    if len(sizes) != len(bounds) or sum(sizes) != len(values):
        raise VerifyException("segment count")
    start = 0
    for size, ((least, most), constr) in zip(sizes, bounds):
        if size < least or (most is not None and size > most):
            raise VerifyException("segment size")
        constr.verify(tuple(v.type for v in values[start:start + size]), context)
        start += size


def compile_def_check(op_def: OpDef) -> Callable[[Operation], None] | None:
    """A function that raises when ``op_def.verify(op)`` would and returns when it passes
    (its exception may differ: callers fall back to ``op_def.verify`` for the message); None
    for a definition it does not cover."""
    segments = [o for o in op_def.options if isinstance(o, AttrSizedOperandSegments)]
    if len(segments) != len(op_def.options) or len(segments) > 1:
        return None
    operands = _arg_check(op_def.operands) if not segments else \
        _segment_check(op_def.operands, segments[0])
    results = _arg_check(op_def.results)
    if operands is None or results is None:
        return None
    (operand_kind, operand_constrs), (result_kind, result_constrs) = operands, results
    has_regions, has_successors = bool(op_def.regions), bool(op_def.successors)
    properties = tuple((name, isinstance(d, OptPropertyDef), d.constr)
                       for name, d in op_def.properties.items())
    property_names = frozenset(op_def.properties)
    attributes = tuple((name, isinstance(d, OptAttributeDef), d.constr)
                       for name, d in op_def.attributes.items())
    traits = tuple(isolated_from_above if type(t) is IsolatedFromAbove else t.verify
                   for t in op_def.traits)

    def check_values(kind: str, constrs: tuple, values, context) -> None:
        if kind == "one variadic":
            _check_one_variadic(constrs, values, context)
            return
        if kind == "variadic":
            constrs[0].verify(tuple(v.type for v in values), context)
            return
        if len(values) != len(constrs):
            raise VerifyException("count")
        for constr, value in zip(constrs, values):
            constr.verify((value.type,), context)

    def check_named(defs: tuple, present, context) -> None:
        for name, optional, constr in defs:
            attr = present.get(name)
            if attr is None:
                if optional:
                    continue
                raise VerifyException(name)
            constr.verify(attr, context)

    def generic(op: Operation) -> None:
        context = VerificationContext()
        if operand_kind == "segments":
            _check_segments(operand_constrs, op, op.operands, context)
        else:
            check_values(operand_kind, operand_constrs, op.operands, context)
        check_values(result_kind, result_constrs, op.results, context)
        if has_regions:
            irdl_op_verify_regions(op, op_def, context)
        elif op.regions:
            raise VerifyException("regions")
        if has_successors:
            verify_variadic_size(op, op_def, VarIRConstruct.SUCCESSOR)
        elif op.successors:
            raise VerifyException("successors")
        check_named(properties, op.properties, context)
        for name in op.properties:
            if name not in property_names:
                raise VerifyException("property")
        check_named(attributes, op.attributes, context)

    def check(op: Operation) -> None:
        generic(op)
        for verify in traits:
            verify(op)

    check.generic = generic  # type: ignore[attr-defined] - without the traits
    return check


def isolated_from_above(op: Operation) -> None:
    """xDSL's ``IsolatedFromAbove.verify`` in one walk: every operand of an op in ``op``'s
    regions (not inside a nested isolated op, which checks itself) is owned by an op or a block
    nested in ``op`` (xDSL asks ``op.is_ancestor`` of each owner: a walk up per operand)."""
    inside: set[int] = set()
    checked: list[Operation] = []
    stack = [(region, True) for region in op.regions]
    while stack:
        region, check = stack.pop()
        for block in region.blocks:
            inside.add(id(block))
            for child in block.ops:
                inside.add(id(child))
                if check:
                    checked.append(child)
                nested = check and not child.has_trait(IsolatedFromAbove)
                stack.extend((r, nested) for r in child.regions)
    for child in checked:
        for operand in child.operands:
            owner = operand.owner
            if owner is op or id(owner) not in inside:
                IsolatedFromAbove().verify(op)  # xDSL's walk words the error


def _with_check(cls, op_def: OpDef, own) -> bool:
    """Give ``cls`` a ``verify_`` that runs the compiled check of ``op_def`` (xDSL's
    ``OpDef.verify`` when it fails) and then ``own``; False when the definition is not covered."""
    check = compile_def_check(op_def)
    if check is None:
        return False

    def verify_(self) -> None:
        try:
            check(self)
        except Exception:  # noqa: BLE001 - xDSL's check decides, and words the error
            op_def.verify(self)
        if own is not None:
            own(self)

    verify_.__qualname__ = f"{cls.__qualname__}.verify_"
    verify_.__wrapped_def_check__ = True  # type: ignore[attr-defined]
    verify_.__split__ = (tuple(op_def.traits), own)  # type: ignore[attr-defined]
    """The traits and the class's own check: `tirx_mlir.verification` runs only these when
    the definition's checks passed before on equal types and attributes."""
    verify_.__generic__ = check.generic  # type: ignore[attr-defined]
    """The definition's checks without the traits (raises when they fail; xDSL's
    ``OpDef.verify`` words the error): `tirx_mlir.verification` runs them, then the traits it
    does not answer itself (a known ``IsolatedFromAbove``), when the checks are new."""
    cls.verify_ = verify_
    return True


def irdl_op_definition(cls):
    """xDSL's ``irdl_op_definition``, with the definition checked by `compile_def_check`."""
    own = getattr(cls, "verify_", None)  # what xDSL's decorator calls after OpDef.verify
    cls = xdsl_op_definition(cls)
    when_defined(cls, lambda defined: _with_check(defined, defined.get_irdl_definition(), own))
    return cls


_XDSL_VERIFY_FREEVARS = (("custom_verify", "op_def"), ("op_def",))
"""The closures xDSL 0.74's ``irdl_op_definition`` gives ``verify_`` (with and without a
custom verifier)."""


def install_def_check(cls) -> bool:
    """Give an op class already made by xDSL's ``irdl_op_definition`` (an upstream dialect's)
    the compiled check, keeping its own verifier; only when its ``verify_`` is the one that
    decorator generated for its own definition (else, or for a definition not covered, the class
    is left as it is). Returns whether it was installed."""
    generated = cls.__dict__.get("verify_")
    code = getattr(generated, "__code__", None)
    if code is None or getattr(generated, "__wrapped_def_check__", False) or \
            generated.__module__ != OpDef.__module__ or \
            code.co_freevars not in _XDSL_VERIFY_FREEVARS:
        return False
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in generated.__closure__)))
    op_def = cells["op_def"]
    if op_def is not cls.get_irdl_definition():
        return False
    return _with_check(cls, op_def, cells.get("custom_verify"))


# --- named operands of a segmented op ------------------------------------------------------------


class SegmentOperand:
    """A named operand (single, optional or variadic) of an op whose operand segment sizes a
    property or attribute gives: xDSL's accessor decodes the sizes at every access; this one
    keeps the span of each operand per segment-size attribute object (`_spans`). An op whose
    sizes are missing or malformed gets xDSL's accessor's answer (or its exception)."""

    __slots__ = ("original", "index", "kind", "where", "attr_name")

    def __init__(self, original, index: int, kind: str, where: str, attr_name: str):
        self.original, self.index, self.kind = original, index, kind
        self.where, self.attr_name = where, attr_name

    def __get__(self, op, owner=None):
        if op is None:
            return self
        attr = getattr(op, self.where).get(self.attr_name)
        spans = _spans(attr)
        if spans is None:
            return self.original.__get__(op, owner)
        start, stop = spans[self.index]
        if self.kind == "variadic":
            return op._operands[start:stop]  # noqa: SLF001 - what op.operands[start:stop] gives
        if self.kind == "optional" and start == stop:
            return None
        # the operand tuple's item, without xDSL's SSAValues.__getitem__ (a Python call)
        return _item(op._operands, start)  # noqa: SLF001

    def __set__(self, op, value) -> None:
        self.original.__set__(op, value)  # xDSL's: named operands cannot be written


_item = tuple.__getitem__

_SPAN_CACHE: dict[int, tuple] = {}
_SPAN_CACHE_SIZE = 4096


def _spans(attr) -> tuple[tuple[int, int], ...] | None:
    """(start, stop) of each segment of a well-formed i32 segment-size array, by the object's
    id (the entry holds the object, so the id is not reused while it is kept; the cache is
    emptied when it grows past `_SPAN_CACHE_SIZE`); None for anything else."""
    entry = _SPAN_CACHE.get(id(attr))
    if entry is not None and entry[0] is attr:
        return entry[1]
    if not isinstance(attr, DenseArrayBase) or attr.elt_type != i32:
        return None
    spans, start = [], 0
    for size in attr.get_values():
        if size < 0:
            return None
        spans.append((start, start + size))
        start += size
    if len(_SPAN_CACHE) >= _SPAN_CACHE_SIZE:
        _SPAN_CACHE.clear()
    _SPAN_CACHE[id(attr)] = (attr, tuple(spans))
    return tuple(spans)


def install_segment_operands(cls) -> int:
    """Replace the named-operand accessors of an IRDL op class with one operand segment-size
    option by `SegmentOperand`s; returns how many were replaced (0: no such option)."""
    op_def = cls.get_irdl_definition()
    options = [o for o in op_def.options if isinstance(o, AttrSizedOperandSegments)]
    if len(options) != 1:
        return 0
    option = options[0]
    where = "properties" if option.as_property else "attributes"
    replaced = 0
    for index, (name, definition) in enumerate(op_def.operands):
        original = cls.__dict__.get(name)
        if original is None or type(original).__name__ not in (
                "SingleAttrAccessor", "OptionalAttrAccessor", "VariadicAttrAccessor"):
            continue
        kind = "optional" if isinstance(definition, OptionalDef) else \
            "variadic" if isinstance(definition, VariadicDef) else "single"
        setattr(cls, name, SegmentOperand(original, index, kind, where, option.attribute_name))
        replaced += 1
    return replaced
