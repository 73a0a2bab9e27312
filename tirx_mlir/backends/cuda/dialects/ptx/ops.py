"""The ``ptx`` ops, one per table row (``ptx.<row name>``), generated from table.ROWS.

Custom form::

    %r0, %r1 = ptx.ld "global.nc.v2.f32" [%p] : (i64) -> (f32, f32)
    ptx.cp_async "cg.shared.global" [%s], [%g], 16 : (i32, i64) -> ()
    %d:4 = ptx.mma_sync "m16n8k16.f32.f16.f16.f32" {%a0, %a1, %a2, %a3}, {%b0, %b1},
        {%c0, %c1, %c2, %c3} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, ...)

* the string holds the row's modifier values in template order (only those present); the
  fixed parts of the mnemonic (``mma.sync.aligned``, ``row.col``) are implied by the row;
* then the operands the instruction reads, in PTX order: ``%v`` a register, ``{%a, %b}`` a
  vector, ``[%a]`` an address, ``[%tmap, {%c0, %c1}]`` a tensor map with coordinates, and an
  integer for an immediate; the registers it writes are the op's results;
* the function type gives the types of the read values and of the results.

Generic form: ``"ptx.ld"(%p) <{space = "global", nc = "nc", vec = "v2", type = "f32"}> :
(i64) -> (f32, f32)``; immediates are i64 properties named after their operand.

The verifier checks the modifiers against the row (`forms.check_mods`), the operand and result
counts and register types it implies, that the kernel's target has the instruction, and that a
collective instruction (``mma.sync``, ``ldmatrix``, ``wgmma``...) runs in a block of whole warps
or warpgroups (`collective.launch_error`).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import IRDLOperation, opt_prop_def, var_operand_def, var_result_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.cuda.dialects.ptx import collective, forms
from tirx_mlir.backends.cuda.dialects.ptx.arch import Arch, Need, requirement
from tirx_mlir.backends.cuda.dialects.ptx.schema import Entry
from tirx_mlir.backends.cuda.dialects.ptx.table import ROWS
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.kernel import enclosing_kernel
from tirx_mlir.dialects.tirx.op_build import direct_fields, new_op
from tirx_mlir.type_tests import IsInstance

_IS_INTEGER_ATTR = IsInstance(IntegerAttr)
_INT_WIDTH = {1: "i1", 16: "i16", 32: "i32", 64: "i64"}

_VERDICTS: dict[tuple, str | None] = {}
"""`PtxOp.verify_`'s verdicts (None: valid, else the error) by (op class, properties, operand
types, result types, target text)."""
_MAX_VERDICTS = 4096
_UNKNOWN = object()


_VARIANTS: dict[tuple, Variant] = {}
"""`PtxOp.variant`'s answers by (op class, properties)."""


class Variant:
    """What a row means for one op's modifiers, computed once per (op class, properties): the
    modifier map, `forms.check_mods`'s complaint (None when legal), and for a legal map the
    present operand places and the mnemonic. Read-only: ``mods`` is shared by every op of the
    same variant."""

    __slots__ = ("error", "mnemonic", "mods", "places")

    def __init__(self, entry: Entry, mods: dict[str, object]) -> None:
        self.mods = mods
        try:
            forms.check_mods(entry, mods)
            self.error: str | None = None
        except forms.ModifierError as err:
            self.error = str(err)
        legal = self.error is None
        self.places: tuple[forms.Place, ...] | None = \
            tuple(forms.places(entry, mods)) if legal else None
        self.mnemonic: str | None = forms.mnemonic(entry, mods) if legal else None


_ADDRESS_TYPES = (IntegerType(32), IntegerType(64))
_PRED = IntegerType(1)
_FLOATS = {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32", Float64Type: "f64"}


def accepts(ptx_type: str, t: Attribute) -> bool:
    """Whether an SSA value of type ``t`` can live in a register of ``ptx_type``: bit types
    take any type of their width, signed/unsigned types integers, float types their float."""
    width = forms.PTX_REG_WIDTH[ptx_type]
    if ptx_type == "pred":
        return t == _PRED
    if isinstance(t, IntegerType):
        return t.width.data == width and ptx_type[0] in "bus"
    name = _FLOATS.get(type(t))
    if name is None:
        return False
    return name == ptx_type or (ptx_type[0] == "b" and forms.PTX_REG_WIDTH[name] == width)


def _type_hint(place: forms.Place) -> str:
    if place.operand.kind in ("addr", "tensor"):
        return "i32 or i64 (an address)"
    if place.type in forms.FLOAT_PTX:
        return place.type
    return f"{_INT_WIDTH[forms.PTX_REG_WIDTH[place.type]]} (.{place.type})"


class PtxOp(IRDLOperation):
    """Base of the generated ptx ops; ``ENTRY`` is the table row."""

    ENTRY: ClassVar[Entry]
    VERIFY_READS: ClassVar[str] = "kernel"
    """Its checks read its class, properties, operand and result types and the target
    (`tirx_mlir.verification`)."""
    args = var_operand_def()
    res = var_result_def()

    # ---- the variant ----
    def mods(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for name, attr in self.properties.items():
            out[name] = attr.value.data if _IS_INTEGER_ATTR(attr) else \
                getattr(attr, "data", attr)
        return out

    def variant(self) -> Variant:
        """The op's `Variant` (properties are immutable attributes: equal ones, one answer)."""
        key = (type(self), tuple(self.properties.items()))
        found = _VARIANTS.get(key)
        if found is None:
            if len(_VARIANTS) >= _MAX_VERDICTS:
                _VARIANTS.clear()
            found = _VARIANTS[key] = Variant(self.ENTRY, self.mods())
        return found

    def need(self) -> Need:
        """The arch and PTX version this instruction needs."""
        return requirement(self.ENTRY, self.mods())

    # ---- verification ----
    def verify_(self) -> None:
        """The row's rules, whose answer depends only on the op's class, properties and operand
        and result types (all immutable), and on the kernel's target: each distinct
        combination is checked once (`_VERDICTS`), then its verdict repeats. A collective
        row's launch rule reads the kernel's threads, and is checked every time."""
        from tirx_mlir.backends.cuda.dialects.cuda.checks import target_text

        text = target_text(self)
        key = (type(self), tuple(sorted(self.properties.items())),
               tuple(v.type for v in self.args), tuple(r.type for r in self.res), text)
        verdict = _VERDICTS.get(key, _UNKNOWN) if text is not None else _UNKNOWN
        if verdict is _UNKNOWN:
            try:
                self._verify_row()
                verdict = None
            except VerifyException as err:
                verdict = str(err)
            if text is not None:  # no target: `target_of` reads the current `with Target`
                if len(_VERDICTS) >= _MAX_VERDICTS:
                    _VERDICTS.clear()
                _VERDICTS[key] = verdict
        if verdict is not None:
            raise VerifyException(verdict)
        if self.ENTRY.collective:
            self._verify_launch()

    def _verify_launch(self) -> None:
        kernel = enclosing_kernel(self)
        if kernel is None:
            return
        unit, threads = self.ENTRY.collective, kernel.thread_dims()
        message = collective.launch_error(self.name, unit, threads)
        if message is not None:
            raise VerifyException(f"{message}; {collective.launch_hint(unit, threads)}")

    def _verify_row(self) -> None:
        try:
            mods = self.mods()
            forms.check_mods(self.ENTRY, mods)
        except forms.ModifierError as err:
            raise VerifyException(str(err)) from None
        self._verify_values(forms.places(self.ENTRY, mods))
        self._verify_arch()

    def _verify_values(self, places: list[forms.Place]) -> None:
        reads = [p for p in places if p.operand.rw != "w" and p.operand.kind != "imm"]
        writes = [p for p in places if p.operand.rw != "r"]
        self._check_group("operand", reads, list(self.args))
        self._check_group("result", writes, list(self.res))

    def _check_group(self, what: str, places: list[forms.Place], values: list[SSAValue]) -> None:
        want = sum(p.values for p in places)
        if want != len(values):
            layout = ", ".join(f"{p.operand.name} x{p.values}" for p in places) or "none"
            raise VerifyException(f"{self.name} with these modifiers takes {want} {what}s "
                                  f"({layout}), got {len(values)}")
        i = 0
        for place in places:
            for lane in range(place.values):
                t = values[i].type
                i += 1
                is_addr = place.operand.kind == "addr" or (place.operand.kind == "tensor" and
                                                           lane == 0)
                ok = t in _ADDRESS_TYPES if is_addr else \
                    accepts(place.type, t)
                if not ok:
                    hint = "i32 or i64 (an address)" if is_addr else _type_hint(place)
                    raise VerifyException(f"{what} '{place.operand.name}' of {self.name} must "
                                          f"be {hint}, got {t}")

    def _verify_arch(self) -> None:
        from tirx_mlir.target import target_of

        target = target_of(self)
        if target is None:
            return
        if target.kind_name != "cuda":
            raise VerifyException(f"ptx instructions need a cuda target, but the kernel targets "
                                  f"'{target}'")
        if target.arch is None:
            return
        arch = Arch.parse(target.arch)
        need = self.need()
        if not need.allows(arch):
            raise VerifyException(f"{forms.mnemonic(self.ENTRY, self.mods())} needs "
                                  f"{need.describe()}; the kernel targets {arch}")

    # ---- syntax ----
    @classmethod
    def parse(cls, parser: Parser) -> "PtxOp":
        entry = cls.ENTRY
        props: dict[str, Attribute] = {}
        text = parser.parse_optional_str_literal()
        try:
            slot_mods = forms.parse_mods(entry, text or "")
        except forms.ModifierError as err:
            parser.raise_error(str(err))
        props.update({name: StringAttr(value) for name, value in slot_mods.items()})
        unresolved = []
        first = True
        for place in forms.places(entry, slot_mods):
            if place.operand.rw == "w":
                continue
            if not first:
                parser.parse_punctuation(",", f" before operand '{place.operand.name}' of "
                                              f"{cls.name}")
            first = False
            if place.operand.kind == "imm":
                props[place.operand.name] = IntegerAttr(parser.parse_integer(), i64)
            else:
                unresolved.extend(_parse_place(parser, place))
        attrs = parser.parse_optional_attr_dict()
        inputs: list[Attribute] = []
        outputs: list[Attribute] = []
        if parser.parse_optional_punctuation(":") is not None:
            ftype = parser.parse_function_type()
            inputs, outputs = list(ftype.inputs.data), list(ftype.outputs.data)
        if len(inputs) != len(unresolved):
            parser.raise_error(f"{cls.name} reads {len(unresolved)} values but its type lists "
                               f"{len(inputs)}")
        operands = [parser.resolve_operand(u, t) for u, t in zip(unresolved, inputs)]
        op = cls.build(operands=[operands], result_types=[outputs], properties=props)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        mods = self.mods()
        text = forms.format_mods(self.ENTRY, mods)
        if text:
            printer.print_string(f' "{text}"')
        items = self._syntax_items(mods)
        for i, item in enumerate(items):
            printer.print_string(", " if i else " ")
            if isinstance(item, str):
                printer.print_string(item)
            elif isinstance(item, tuple):
                _print_place(printer, *item)
            else:
                printer.print_operand(item)
        printer.print_op_attributes(self.attributes)
        if self.args or self.res:
            printer.print_string(" : ")
            printer.print_function_type([v.type for v in self.args], [r.type for r in self.res])

    def _syntax_items(self, mods: dict[str, object]) -> list:
        """What the custom form lists after the modifiers: immediates, and (place, values) per
        read operand; for an op that does not verify, its operands as they are."""
        try:
            forms.check_mods(self.ENTRY, mods)
            places = [p for p in forms.places(self.ENTRY, mods) if p.operand.rw != "w"]
        except forms.ModifierError:
            return list(self.args)
        if sum(p.values for p in places if p.operand.kind != "imm") != len(self.args):
            return list(self.args)
        values = iter(self.args)
        return [str(mods[p.operand.name]) if p.operand.kind == "imm" else
                (p, [next(values) for _ in range(p.values)]) for p in places]


def _parse_place(parser: Parser, place: forms.Place) -> list:
    kind, lanes = place.operand.kind, place.lanes
    if kind == "addr":
        parser.parse_punctuation("[")
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation("]")
        return [value]
    if kind == "tensor":
        parser.parse_punctuation("[")
        tmap = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        coords = _parse_vector(parser, lanes)
        parser.parse_punctuation("]")
        return [tmap, *coords]
    if lanes > 1 or place.operand.vector:
        return _parse_vector(parser, lanes)
    return [parser.parse_unresolved_operand()]


def _parse_vector(parser: Parser, lanes: int) -> list:
    values = parser.parse_comma_separated_list(parser.Delimiter.BRACES,
                                               parser.parse_unresolved_operand)
    if len(values) != lanes:
        parser.raise_error(f"expected {lanes} values in braces, got {len(values)}")
    return values


def _print_vector(printer: Printer, values: list[SSAValue]) -> None:
    printer.print_string("{")
    printer.print_list(values, printer.print_operand)
    printer.print_string("}")


def _print_place(printer: Printer, place: forms.Place, values: list[SSAValue]) -> None:
    if place.operand.kind == "addr":
        printer.print_string("[")
        printer.print_operand(values[0])
        printer.print_string("]")
    elif place.operand.kind == "tensor":
        printer.print_string("[")
        printer.print_operand(values[0])
        printer.print_string(", ")
        _print_vector(printer, values[1:])
        printer.print_string("]")
    elif place.lanes > 1 or place.operand.vector:
        _print_vector(printer, values)
    else:
        printer.print_operand(values[0])


def _class_name(entry: Entry) -> str:
    return "".join(part.capitalize() for part in entry.name.split("_")) + "Op"


def _make_op(entry: Entry) -> type[PtxOp]:
    namespace: dict[str, object] = {
        "name": f"ptx.{entry.name}", "ENTRY": entry,
        "__doc__": f"``{entry.template}``: {entry.doc}.",
        "__module__": __name__, "__qualname__": _class_name(entry),
        "__annotations__": {"ENTRY": ClassVar[Entry]},
    }
    for slot in entry.slots:
        namespace[f"m_{slot.name}"] = opt_prop_def(StringAttr, prop_name=slot.name)
    for op in forms.imm_operands(entry):
        namespace[f"m_{op.name}"] = opt_prop_def(IntegerAttr, prop_name=op.name)
    return irdl_op_definition(type(_class_name(entry), (PtxOp,), namespace))


PTX_OPS: tuple[type[PtxOp], ...] = tuple(_make_op(entry) for entry in ROWS)
OPS_BY_ROW: dict[str, type[PtxOp]] = {cls.ENTRY.name: cls for cls in PTX_OPS}


_DEFAULT_TYPES: dict[str, Attribute] = {
    "pred": IntegerType(1), "f16": Float16Type(), "bf16": BFloat16Type(), "f32": Float32Type(),
    "f64": Float64Type(), **{t: IntegerType(forms.PTX_REG_WIDTH[t])
                             for t in forms.PTX_REG_WIDTH if t[0] in "bus"},
}


def default_type(ptx_type: str) -> Attribute:
    """The MLIR type of a result register of ``ptx_type`` (bit types: the integer)."""
    return _DEFAULT_TYPES[ptx_type]


def make(row: str, operands: list[SSAValue], result_types: list[Attribute] | None = None,
         **mods: object) -> PtxOp:
    """Build ``ptx.<row>`` from the values it reads (PTX order) and its modifiers (slot values
    as strings, immediates as ints); result types follow from the table unless given (a
    ``.bN`` register may hold any type of N bits, e.g. f16 for ``.b16``). The modifiers are
    checked (`forms.ModifierError`); operands and target are left to the verifier."""
    cls = OPS_BY_ROW[row]
    mods = {name: value for name, value in mods.items() if value is not None}
    forms.check_mods(cls.ENTRY, mods)
    props: dict[str, Attribute] = {
        name: IntegerAttr(value, i64) if isinstance(value, int) else StringAttr(str(value))
        for name, value in mods.items()}
    places = forms.places(cls.ENTRY, mods)
    results = [default_type(p.type) for p in places if p.operand.rw != "r"
               for _ in range(p.values)]
    if result_types is not None:
        if len(result_types) != len(results):
            raise ValueError(f"{row} has {len(results)} results, {len(result_types)} types given")
        results = list(result_types)
    if direct_fields(cls) and all(isinstance(v, SSAValue) for v in operands):
        # ``cls.build``'s op (one variadic operand and result group, no segment sizes, no
        # property defaults) without `irdl_op_init`: a flash attention builds ~140 a compile
        return new_op(cls, operands, results, props)
    return cls.build(operands=[operands], result_types=[results], properties=props)
