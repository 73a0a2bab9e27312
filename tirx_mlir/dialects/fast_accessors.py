"""Named operands, results and regions of an IRDL op read by their fixed position.

xDSL 0.74 installs one accessor per named construct (``op.source``, ``op.result``,
``op.body``); for one that comes before any variadic construct of its kind (its position is
fixed) it builds the op's ``OpOperands`` view and indexes it at every read: ~2.9 us for
``slice.source`` against ~0.2 us for ``op._operands[0]`` (timeit, one process). The passes, the
printers and the verifiers read named operands thousands of times per compile (a 512x512 trn
GEMM: ~580 ``OpOperands`` views made per compile, bench/README.md).

`install_fast_accessors(cls)` replaces those accessors of an op class (after xDSL completed
it) by `FixedConstruct`s that read the same element directly: the same answer for every op,
since xDSL's accessor answers ``op.operands[i]`` (``op._operands[i]``), ``op.results[i]`` or
``op.regions[i]``. Writing one stays xDSL's error. Named operands of an op with operand segment
sizes get `def_check.SegmentOperand`s (`install_segment_operands`), which keep the decoded
sizes.

    when_defined(SomeOp, install_fast_accessors)   # tirx_mlir/dialects/__init__.py does this
"""

from __future__ import annotations

from xdsl.irdl.operations import BeforeVariadicSingleAccessor, VarIRConstruct

from tirx_mlir.dialects.def_check import install_segment_operands

_WHERE = {VarIRConstruct.OPERAND: "_operands", VarIRConstruct.RESULT: "results",
          VarIRConstruct.REGION: "regions"}
"""The op attribute holding each kind of construct (what ``get_op_constructs`` indexes)."""


class FixedConstruct:
    """A named construct at a fixed position ``index`` of the op's ``where`` tuple."""

    __slots__ = ("original", "where", "index")

    def __init__(self, original: BeforeVariadicSingleAccessor, where: str, index: int):
        self.original, self.where, self.index = original, where, index

    def __get__(self, op, owner=None):
        if op is None:
            return self
        return getattr(op, self.where)[self.index]

    def __set__(self, op, value) -> None:
        self.original.__set__(op, value)  # xDSL's: named constructs cannot be written


class FixedOperand(FixedConstruct):
    """`FixedConstruct` over ``op._operands`` (the common case, without the ``getattr``). The
    element is read with ``tuple.__getitem__``: xDSL's ``SSAValues`` (a tuple) indexes through
    a Python ``__getitem__`` of its own, which answers the same for an int."""

    __slots__ = ()

    def __get__(self, op, owner=None):
        if op is None:
            return self
        try:
            return _ITEM(op._operands, self.index)  # noqa: SLF001
        except TypeError:  # not a tuple (xDSL always makes SSAValues): index it as it is
            return op._operands[self.index]  # noqa: SLF001


class FixedResult(FixedConstruct):
    """`FixedConstruct` over ``op.results`` (read as `FixedOperand` reads operands)."""

    __slots__ = ()

    def __get__(self, op, owner=None):
        if op is None:
            return self
        try:
            return _ITEM(op.results, self.index)
        except TypeError:
            return op.results[self.index]


_ITEM = tuple.__getitem__


_KINDS = {"_operands": FixedOperand, "results": FixedResult, "regions": FixedConstruct}


def install_fast_accessors(cls) -> int:
    """Replace the fixed-position named-construct accessors xDSL gave ``cls`` (complete) by
    `FixedConstruct`s, and its segmented named operands by `SegmentOperand`s; returns how many
    accessors were replaced (none for a class without an IRDL definition: an unregistered
    op's)."""
    if not hasattr(cls, "get_irdl_definition"):
        return 0
    replaced = install_segment_operands(cls)
    for name, value in list(vars(cls).items()):
        if type(value) is not BeforeVariadicSingleAccessor:
            continue
        where = _WHERE.get(value.construct)
        if where is None:
            continue
        setattr(cls, name, _KINDS[where](value, where, value.idx))
        replaced += 1
    return replaced
