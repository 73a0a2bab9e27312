"""Three declarative assembly formats run without xDSL's format machinery.

Every Trainium compile parses ops of three formats: ``attr-dict`` (``tirx.return``),
``attr-dict `:` type($result)`` (``tirx.alloc``) and ``attr-dict $value`` (``arith.constant``).
Running them through xDSL's ``FormatProgram`` imports ``xdsl.irdl.declarative_assembly_format``
and its format parser and parses each format: ~5 ms of CPU, a tenth of what a compile adds to
``tirx-opt`` on an empty module (bench/README.md, "Start-up, fifth round").

`program(text, op_def)` gives, for one of `TEXTS` and an op definition of the shape the text
implies, an object with ``FormatProgram``'s ``parse(parser, op_type)`` and ``print(printer, op)``
that does what xDSL's program for that text does, directive by directive (the attribute
dictionary, then the ``:`` punctuation and the result's type, or the property's attribute; the
constraint variables verified and the result type inferred as ``FormatProgram.parse`` does); for
anything else it gives None and `tirx_mlir.lazy_formats` builds xDSL's program. The shape: no
operands, regions, successors or attribute definitions; ``attr-dict`` alone: no result and no
property; ``type($R)``: one single result ``R`` and no property; ``$P``: one required property
``P`` without default, whose constraint has no unique base class (xDSL then prints it as a plain
attribute), and one single result whose type its constraint variables infer.
"""

from __future__ import annotations

from typing import Any

TEXTS = ("attr-dict", "attr-dict `:` type($result)", "attr-dict $value")


def program(text: str, op_def: Any) -> "_Program | None":
    """The program running ``text`` for ops of ``op_def``, or None (use xDSL's)."""
    from xdsl.irdl.operations import OptionalDef, PropertyDef, ResultDef

    if text not in TEXTS or op_def.operands or op_def.regions or op_def.successors or \
            op_def.attributes:
        return None
    results, properties = op_def.results, op_def.properties
    single = len(results) == 1 and type(results[0][1]) is ResultDef
    if text == "attr-dict":
        return _Program(None, None) if not results and not properties else None
    if text.endswith("type($result)"):
        return _Program(results[0], None) if single and results[0][0] == "result" and \
            not properties else None
    prop = properties.get("value")
    if not single or len(properties) != 1 or type(prop) is not PropertyDef or \
            isinstance(prop, OptionalDef) or prop.default_value is not None:
        return None
    bases = prop.constr.get_bases()
    if bases is not None and len(bases) == 1:
        return None  # xDSL prints such a property without its name (a unique-base variable)
    if not results[0][1].constr.can_infer(prop.constr.variables(), length_known=False):
        return None
    return _Program(None, ("value", prop))


class _Program:
    """``attr-dict``, then ``:`` and the type of ``result`` (a (name, def) pair) when given, or
    the property ``prop`` (a (name, def) pair) when given."""

    __slots__ = ("result", "prop")

    def __init__(self, result: tuple | None, prop: tuple | None):
        self.result, self.prop = result, prop

    def parse(self, parser: Any, op_type: type) -> Any:
        from xdsl.irdl.constraints import VerificationContext

        attributes = parser.parse_optional_attr_dict()
        properties: dict[str, Any] = {}
        result_types: list[Any] = []
        context = VerificationContext()
        op_def = op_type.get_irdl_definition()
        if self.result is not None:
            parser.parse_punctuation(":")
            types = (parser.parse_type(),)
            self.result[1].constr.verify(types, context)
            result_types.append(types)
        if self.prop is not None:
            name, prop_def = self.prop
            properties[name] = parser.parse_attribute()
            prop_def.constr.verify(properties[name], context)
            result_types.append(op_def.results[0][1].constr.infer(context, length=None))
        return op_type.build(result_types=tuple(result_types), operands=(),
                             attributes=attributes, properties=properties, regions=[],
                             successors=[])

    def print(self, printer: Any, op: Any) -> None:
        printer.print_op_attributes(op.attributes, reserved_attr_names=set(), print_keyword=False)
        # xDSL's printing state is now "a space is due, the last element was no punctuation",
        # whether the dictionary printed or not
        if self.result is not None:
            printer.print_string(" :")  # ':' after a non-punctuation element: a space first
            printer.print_string(" ")
            printer.print_list((getattr(op, self.result[0]).type,), printer.print_attribute)
        if self.prop is not None:
            attr = op.properties.get(self.prop[0])
            if attr is not None:
                printer.print_string(" ")
                printer.print_attribute(attr)
