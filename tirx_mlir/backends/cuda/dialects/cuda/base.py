"""What every ``cuda`` (and ``nvshmem``) op shares: one custom syntax and the verifier skeleton.

Custom form (one grammar for all ops of both dialects)::

    %r = cuda.<op> <head>? <operands> (<keyword> <value>)* attr-dict?
             : <operand types> -> <result types>

* ``<head>`` is the op's kind word where it has one: a dimension (``cuda.thread_idx x``), a
  shuffle mode (``cuda.shfl_sync xor``), an atomic operation (``cuda.atomic add``), a scope
  (``cuda.fence gpu``)...; it is a string property in the generic form (``<{dim = "x"}>``);
* operands, keywords and operand types follow `tirx_mlir.dialects.tirx.op_syntax.KeywordOp`;
  result types follow ``->`` (``: <result types>`` for an op without operands).

A subclass declares its operands, results and properties with IRDL, names the head property and
its choices in ``HEAD``, the keyword kinds in ``KEYWORDS``, the lowest compute capability in
``MIN_SM`` (with ``FEATURE`` naming it), fixed result types in ``RESULTS`` (or the operand whose
type the result takes in ``RESULT_LIKE``), and its rules in ``verify_cuda(launch)``.
"""

from __future__ import annotations

from typing import ClassVar, Sequence

from xdsl.dialects.builtin import IndexType, StringAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.op_syntax import KeywordOp
from tirx_mlir.dialects.tirx.rules import RuleError


def spelled_type(name: str) -> Attribute:
    """The type of an MLIR spelling (``index``, ``i32``, ``f32``...); one object per spelling
    (types are immutable values; building ``IndexType()`` costs ~6 us)."""
    found = _SPELLED.get(name)
    if found is None:
        found = _SPELLED[name] = IndexType() if name == "index" else dtypes.element_type(name)
    return found


_SPELLED: dict[str, Attribute] = {}


class CudaOp(KeywordOp):
    """Base class of the ``cuda`` and ``nvshmem`` ops."""

    DSTS: ClassVar[tuple[str, ...]] = ()
    VERIFY_READS: ClassVar[str] = "kernel"
    """Its checks read its types, properties, constant operands (`checks.constant_index`), its
    kernel's launch and the target (`tirx_mlir.verification`)."""
    HEAD: ClassVar[tuple[str, tuple[str, ...]] | None] = None
    """(property name, choices) of the kind word written right after the op name."""
    MIN_SM: ClassVar[int] = 0
    """Lowest compute capability the op exists on (checked against a known target)."""
    FEATURE: ClassVar[str] = ""
    """What the op is called in the architecture message (``elect.sync``, ``clusters``)."""
    RESULTS: ClassVar[tuple[str, ...]] = ()
    """Fixed result types, by spelling."""
    RESULT_LIKE: ClassVar[str | None] = None
    """The operand whose type the (single) result has."""

    def __init__(self, *operands: SSAValue | None, result_types: Sequence[Attribute] | None = None,
                 **props: object):
        """Operands in declaration order; the head word and the keyword properties by name;
        result types default to ``RESULTS`` / ``RESULT_LIKE``."""
        extra: dict[str, Attribute] = {}
        if self.HEAD is not None:
            prop, choices = self.HEAD
            word = props.pop(prop, None)
            if word is None:
                raise ValueError(f"{self.name} needs {prop}= one of {', '.join(choices)}")
            extra[prop] = StringAttr(str(word))
        if result_types is None:
            result_types = self._default_result_types(operands)
        super().__init__(*operands, extra_properties=extra, result_types=result_types, **props)

    @classmethod
    def _default_result_types(cls, operands: Sequence[SSAValue | None]) -> list[Attribute]:
        if cls.RESULTS:
            return [spelled_type(n) for n in cls.RESULTS]
        if cls.RESULT_LIKE is not None:
            names = [n for n, _ in cls.get_irdl_definition().operands]
            return [operands[names.index(cls.RESULT_LIKE)].type]  # type: ignore[union-attr]
        return []

    @property
    def head(self) -> str:
        """The kind word (``x``, ``xor``, ``add``, ``gpu``...)."""
        assert self.HEAD is not None, f"{self.name} has no head word"
        return self.properties[self.HEAD[0]].data  # type: ignore[union-attr]

    # ---- syntax: the head word ----
    @classmethod
    def parse_head(cls, parser: Parser) -> dict[str, Attribute]:
        if cls.HEAD is None:
            return {}
        prop, choices = cls.HEAD
        word = parser.parse_optional_keyword_in(choices)
        if word is None:
            parser.raise_error(f"{cls.name} expects its {prop} ({' | '.join(choices)})")
        return {prop: StringAttr(word)}

    def print_head(self, printer: Printer) -> None:
        if self.HEAD is not None:
            printer.print_string(f" {self.head}")

    # ---- verification ----
    def verify_(self) -> None:
        try:
            launch = checks.launch_of(self)
            if self.HEAD is not None:
                checks.check_choice(self.HEAD[0], self.head, self.HEAD[1])
            if self.MIN_SM:
                checks.require_sm(launch, self.MIN_SM, self.FEATURE or self.name)
            self._verify_result_types()
            self.verify_cuda(launch)
        except RuleError as err:
            raise VerifyException(str(err)) from None  # tools prefix "'<op>' op"

    def _verify_result_types(self) -> None:
        if self.RESULTS:
            expected = [spelled_type(n) for n in self.RESULTS]
            if list(self.result_types) != expected:
                raise RuleError(f"the result type must be {', '.join(self.RESULTS)}, got "
                                f"{', '.join(map(str, self.result_types))}")
        elif self.RESULT_LIKE is not None:
            like = getattr(self, self.RESULT_LIKE).type
            checks.check_same_type("the result", like, self.result_types[0],
                                   f"it is the type of operand '{self.RESULT_LIKE}'")

    def verify_cuda(self, launch: checks.Launch) -> None:
        """Op-specific rules; raise RuleError."""
