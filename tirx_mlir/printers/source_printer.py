"""`SourcePrinter`: the base of every source printer a backend registers for ``-t``.

Built on xDSL's `BasePrinter` (output stream, indentation). A printer subclass sets its
`Language` (operators.py: operator table, reserved words, indent, empty-block statement), a
``DESCRIPTION`` and an ``ERROR_CODE`` for its errors, and writes one ``emit_<dialect>_<op>``
method per op it prints (``emit_scf_for`` prints ``scf.for``). The base gives it:

* output: ``line(text)`` writes one line at the current indentation, ``body()`` indents a block
  (and writes the language's empty-block statement if nothing was written in it), ``text()``;
* dispatch: ``emit_block`` / ``emit_op`` call the op's method. Views (``tirx.slice`` /
  ``transpose`` / ``reshape``), ``tirx.cta_id``, ``scf.yield`` and ``arith`` ops print nothing
  where they stand: they are inlined where used. Any other op without a method, and any op
  not registered in the context, is a located `PrintError` naming the op;
* names: ``namer`` (naming.py) for locals, ``function_names`` for the kernels of the module
  (unique across the module, taken in order), ``names`` from SSA value to identifier;
* scalar expressions: ``expr(value)`` writes a constant, a named value or an ``arith`` op on
  them through the language's operator table, with the non-negativity proof the table's
  ``nonneg`` forms need; ``cta_id`` and ``scalar_type`` are the language's hooks;
* safety: attribute strings reach the output only through ``choose(table, key, ...)`` (a value
  not in the printer's closed table is a located error, whatever a verifier said) and integers
  only through ``int_literal`` (outside the signed 64-bit range: a located error); ``emit``
  blames any other failure on the first op that breaks its own IRDL definition (IR that
  skipped verification), so hostile IR is a located error, never a crash.

Errors are `PrintError` (a `TirxError`): ``[<ERROR_CODE>] message`` at the op's location.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import ClassVar

from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, ModuleOp, UnregisteredOp
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.utils.base_printer import BasePrinter

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.dialects.tirx.access import constant_value, shared_views
from tirx_mlir.dialects.tirx.buffer_ops import VIEW_OPS
from tirx_mlir.dialects.tirx.kernel import CtaIdOp, KernelOp
from tirx_mlir.printers.naming import Namer
from tirx_mlir.printers.operators import Language
from tirx_mlir.type_tests import ClassRef, IsInstance

INLINED_OPS = (*VIEW_OPS, CtaIdOp, ClassRef("xdsl.dialects.scf", "YieldOp"))
"""Ops printed where their value is used, not where they stand (with the arith dialect); scf's
yield by name, so that a kernel without loops does not import scf (`type_tests.ClassRef`)."""
_IS_INLINED = IsInstance(*INLINED_OPS)
_IS_FOR = IsInstance(ClassRef("xdsl.dialects.scf", "ForOp"))
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
_NONNEG_OPS = (arith.AddiOp, arith.MuliOp, arith.DivUIOp, arith.FloorDivSIOp, arith.DivSIOp,
               arith.RemSIOp, arith.RemUIOp, arith.MaxSIOp, arith.AndIOp, arith.OrIOp,
               arith.XOrIOp, arith.ShRUIOp, arith.ShRSIOp, arith.ShLIOp)
"""Ops whose result is >= 0 when both operands are (bitwise ops and shifts of non-negative
values included: swizzled addresses are built of them)."""


class PrintError(TirxError):
    """An op or a value the printer cannot write (the IR is not what the printer accepts)."""


def shown(value: object, limit: int = 40) -> str:
    """``value`` quoted for an error message, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


class SourcePrinter(BasePrinter):
    """Prints one module as source text; subclasses set the language and the op methods."""

    LANGUAGE: ClassVar[Language]
    DESCRIPTION: ClassVar[str] = "source printer"
    """Names the printer in errors: 'the <DESCRIPTION> cannot print ...'."""
    ERROR_CODE: ClassVar[str] = "print"
    RESERVED: ClassVar[frozenset[str]] = frozenset()
    """Names of the printed program's own (imports, helpers), on top of the language's."""
    UNPRINTABLE_HINT: ClassVar[str | None] = None

    def __init__(self, module: ModuleOp):
        super().__init__(io.StringIO(), indent_num_spaces=self.LANGUAGE.indent)
        self.module = module
        self.line_count = 0
        self.statement_count = 0
        """Lines that are neither blank nor a comment (what makes a block non-empty)."""
        self.names: dict[SSAValue, str] = {}
        self.function_names: dict[KernelOp, str] = {}
        self.namer = Namer(self.reserved())

    # ---- the entry point ----
    def emit(self) -> str:
        """The module as source text. A failure that is not a `PrintError` is blamed on the
        first op that breaks its own definition (an attribute of the wrong kind, a missing
        operand: IR that skipped verification), as a located error; on well-formed IR it is a
        printer bug and propagates. A printer changes no IR, so each view is resolved once for
        the whole module (`access.shared_views`)."""
        try:
            with shared_views():
                return self.emit_module()
        except PrintError:
            raise
        except Exception:
            malformed = malformed_op(self.module)
            if malformed is None:
                raise
            op, why = malformed
            raise self.fail(f"{op.name} does not satisfy its own definition, so it cannot be "
                            f"printed: {why}", op,
                            hint="verify the IR (drop --disable-verify) to see every "
                                 "problem") from None

    def emit_module(self) -> str:
        raise NotImplementedError

    # ---- output ----
    def line(self, text: str = "") -> None:
        """One line at the current indentation (`BasePrinter.indented` sets it)."""
        indent = " " * (self._indent * self.indent_num_spaces)
        self.stream.write(f"\n{indent}{text}" if self.line_count else indent + text)
        self.line_count += 1
        stripped = text.lstrip()
        if stripped and not stripped.startswith(self.LANGUAGE.comment):
            self.statement_count += 1

    @contextmanager
    def body(self) -> Iterator[None]:
        start = self.statement_count
        with self.indented():
            yield
            if self.statement_count == start and self.LANGUAGE.empty_block:
                self.line(self.LANGUAGE.empty_block)

    def text(self) -> str:
        assert isinstance(self.stream, io.StringIO)
        return self.stream.getvalue() + "\n"

    # ---- errors and closed tables ----
    def fail(self, message: str, op: Operation | None, hint: str | None = None) -> PrintError:
        return PrintError(message, op, hint=hint, code=self.ERROR_CODE)

    def choose(self, table: Mapping[str, str], key: object, what: str,
               op: Operation | None, hint: str | None = None) -> str:
        """``table[key]``: the only way an attribute string reaches the output."""
        if isinstance(key, str) and key in table:
            return table[key]
        raise self.fail(f"{what} {shown(key)} is not one the {self.DESCRIPTION} prints; "
                        f"expected one of {', '.join(table)}", op, hint=hint)

    def int_literal(self, value: int, op: Operation | None) -> str:
        return self.LANGUAGE.operators.int_literal(self.checked_int(value, op))

    def checked_int(self, value: int, op: Operation | None) -> int:
        """``value``, if it is an integer in the signed 64-bit range the printed code computes
        in (else a located error)."""
        if type(value) is int and INT64_MIN <= value <= INT64_MAX:
            return value
        size = f"an integer of {value.bit_length()} bits" if isinstance(value, int) \
            else shown(value)
        raise self.fail(f"{size} is outside the signed 64-bit range the printed code "
                        f"computes in", op)

    def float_literal(self, value: float) -> str:
        return self.LANGUAGE.operators.float_literal(float(value))

    # ---- names ----
    def reserved(self) -> frozenset[str]:
        return self.LANGUAGE.reserved | self.RESERVED

    def module_kernels(self) -> list[KernelOp]:
        """The module's kernels, each given its function name; anything else is an error."""
        others = [op for op in self.module.ops if not isinstance(op, KernelOp)]
        if others:
            raise self.fail(f"the {self.DESCRIPTION} prints tirx.kernel ops; {others[0].name} "
                            f"cannot stand at module level", others[0])
        kernels = [op for op in self.module.ops if isinstance(op, KernelOp)]
        if not kernels:
            raise self.fail("the module holds no tirx.kernel to print", self.module)
        symbols = Namer(self.reserved())
        self.function_names = {k: symbols.fresh(k.kernel_name) for k in kernels}
        return kernels

    def start_function(self, kernel: KernelOp) -> str:
        """Fresh local names for ``kernel`` (none equal to a function name); its name."""
        self.names = {}
        self.namer = Namer(self.reserved() | set(self.function_names.values()))
        return self.function_names[kernel]

    def name_values(self, values: Iterable[SSAValue], default: str) -> None:
        for value in values:
            self.names[value] = self.namer.fresh(value.name_hint or default)

    # ---- dispatch ----
    def emit_block(self, block: Block) -> None:
        op = block.first_op
        while op is not None:  # `block.ops` without its iterator's cost per op
            self.emit_op(op)
            op = op.next_op

    def emit_op(self, op: Operation) -> None:
        key = (type(self), type(op))
        name = _EMITTERS.get(key)
        if name is None:
            name = _EMITTERS[key] = _emitter_name(type(self), op)
        if name == _INLINED:
            return
        method = getattr(self, name) if name else None
        if method is None:
            if isinstance(op, UnregisteredOp):
                raise self.fail(f"the {self.DESCRIPTION} cannot print '{op.op_name.data}', an op "
                                f"of an unregistered dialect (kept opaque by "
                                f"--allow-unregistered-dialect)", op,
                                hint="lower or remove it before printing: a printer emits only "
                                     "the ops it knows")
            raise self.fail(f"the {self.DESCRIPTION} cannot print {op.name}", op,
                            hint=self.UNPRINTABLE_HINT)
        method(op)

    # ---- scalar expressions ----
    def expr(self, value: SSAValue) -> str:
        """A scalar SSA value as an expression (constants, named values, arith on them)."""
        if value in self.names:
            return self.names[value]
        if isinstance(value, BlockArgument):
            raise self.fail("this block argument has no value in the printed code",
                            value.block.parent_op())
        return self.op_expr(value.owner)  # type: ignore[arg-type]

    def op_expr(self, op: Operation) -> str:
        table = self.LANGUAGE.operators
        if isinstance(op, arith.ConstantOp):
            return self.constant(op)
        if isinstance(op, CtaIdOp):
            return self.cta_id(op)
        if isinstance(op, arith.CmpiOp | arith.CmpfOp):
            return self.comparison(op)
        spelling = None if isinstance(op, UnregisteredOp) else table.ops.get(op.name)
        if spelling is None or len(op.results) != 1:
            raise self.fail(f"the {self.DESCRIPTION} cannot use the value of {op.name} in an "
                            f"expression", op, hint="scalars must be constants, loop variables, "
                                                    "CTA ids or arith on them")
        if op.name in table.boolean and op.results[0].type == IntegerType(1):
            template = table.boolean[op.name]
        elif spelling.nonneg is not None and self.operands_nonneg(op):
            template = spelling.nonneg
        elif spelling.template is not None:
            template = spelling.template
        else:
            raise self.fail(f"{op.name} {spelling.why}; its operands are not known to be "
                            f"non-negative", op, hint=spelling.hint or None)
        operands = [self.expr(v) for v in op.operands]
        t = self.scalar_type(op.results[0].type, op) if "{t}" in template else ""
        return template.format(*operands, t=t)

    def operands_nonneg(self, op: Operation) -> bool:
        return all(self.nonneg(v) for v in op.operands)

    def constant(self, op: arith.ConstantOp) -> str:
        table = self.LANGUAGE.operators
        value = op.value
        if isinstance(value, IntegerAttr) and isinstance(value.type, IntegerType) and \
                value.type.width.data == 1:
            return table.true if value.value.data else table.false
        if isinstance(value, IntegerAttr):
            return self.int_literal(value.value.data, op)
        if isinstance(value, FloatAttr):
            return self.float_literal(value.value.data)
        raise self.fail(f"the {self.DESCRIPTION} cannot use a constant {value.name} in an "
                        f"expression", op, hint="scalar constants are integers or floats")

    def comparison(self, op: arith.CmpiOp | arith.CmpfOp) -> str:
        table = self.LANGUAGE.operators
        if isinstance(op, arith.CmpiOp):
            names, spellings = arith.CMPI_COMPARISON_OPERATIONS, table.cmpi
        else:
            names, spellings = arith.CMPF_COMPARISON_OPERATIONS, table.cmpf
        index = op.predicate.value.data
        predicate = names[index] if 0 <= index < len(names) else index
        symbol = self.choose(spellings, predicate, f"{op.name} predicate", op)
        return f"({self.expr(op.lhs)} {symbol} {self.expr(op.rhs)})"

    def nonneg(self, value: SSAValue) -> bool:
        """Whether an integer value is provably >= 0 (constants, loop variables counting up
        from a non-negative bound, CTA ids, zero extensions, and sums/products/quotients/bitwise
        combinations and right shifts of those)."""
        owner = value.owner
        if isinstance(value, BlockArgument):
            loop = value.block.parent_op()
            return _IS_FOR(loop) and self.nonneg(loop.lb) and \
                _const_test(loop.step, lambda s: s > 0)
        if isinstance(owner, arith.ConstantOp):
            return _const_test(value, lambda c: c >= 0)
        if isinstance(owner, CtaIdOp):
            return True
        if isinstance(owner, _NONNEG_OPS):
            return self.nonneg(owner.lhs) and self.nonneg(owner.rhs)
        if isinstance(owner, arith.IndexCastOp):
            return self.nonneg(owner.input)
        return isinstance(owner, arith.ExtUIOp)  # zero-extended: never negative

    # ---- the language's hooks ----
    def cta_id(self, op: CtaIdOp) -> str:
        raise self.fail(f"the {self.DESCRIPTION} has no spelling for {op.name}", op)

    def scalar_type(self, t, op: Operation) -> str:
        """The language's name of a scalar type (for casts)."""
        raise self.fail(f"the {self.DESCRIPTION} has no spelling for the type {t}", op)


_INLINED = "-"
_EMITTERS: dict[tuple[type, type], str] = {}
"""`SourcePrinter.emit_op`'s dispatch by (printer class, op class): the ``emit_`` method's
name, `_INLINED` for an op printed where its value is used, "" for one the printer lacks."""


def _emitter_name(printer: type, op: Operation) -> str:
    if _IS_INLINED(op) or op.dialect_name() == "arith":
        return _INLINED
    if isinstance(op, UnregisteredOp):
        return ""
    name = "emit_" + op.name.replace(".", "_")
    return name if callable(getattr(printer, name, None)) else ""


def _const_test(value: SSAValue, test) -> bool:
    constant = constant_value(value)
    return isinstance(constant, int) and bool(test(constant))


def malformed_op(module: ModuleOp) -> tuple[Operation, str] | None:
    """The first op that fails its IRDL definition (operand, result, region, property and
    attribute constraints, traits), with the reason; else the first op that fails its own
    verifier (a transpose whose permutation is not one, say); None when every op passes both."""
    ops = [op for op in module.walk()
           if isinstance(op, IRDLOperation) and not isinstance(op, UnregisteredOp)]
    checks = (lambda op: type(op).get_irdl_definition().verify(op),
              lambda op: op.verify(verify_nested_ops=False))
    for check in checks:
        for op in ops:
            try:
                check(op)
            except Exception as err:  # a constraint may fail in any way on a foreign attribute
                return op, " ".join(str(err).split("\n")[0].split()) or type(err).__name__
    return None
