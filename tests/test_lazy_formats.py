"""`tirx_mlir.lazy_formats`: an op's declarative assembly format is parsed the first time the
op is parsed or printed, with the same text both ways and xDSL's error for a malformed format."""

import pytest
from xdsl.dialects.builtin import IndexType
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def
from xdsl.irdl import operations
from xdsl.utils.exceptions import PyRDLOpDefinitionError

from tirx_mlir import lazy_formats
from tirx_mlir.located_parser import parse_module


def test_install_is_idempotent_and_replaces_xdsl_function():
    lazy_formats.install()
    installed = operations.get_accessors_from_op_def
    lazy_formats.install()
    assert operations.get_accessors_from_op_def is installed
    assert getattr(installed, "lazy_formats", False)


def test_a_malformed_format_is_reported_at_first_parse_not_at_definition():
    lazy_formats.install()

    @irdl_op_definition
    class BadFormatOp(IRDLOperation):  # defining it does not parse the format
        name = "test.bad_format"
        x = operand_def(IndexType)
        assembly_format = "$x attr-dict `:` type($nonexistent)"

    with pytest.raises(PyRDLOpDefinitionError, match="assembly format"):
        BadFormatOp.parse(None)  # type: ignore[arg-type]


def test_formatted_ops_parse_and_print_as_with_eager_formats():
    lazy_formats.install()

    @irdl_op_definition
    class PairOp(IRDLOperation):
        name = "test.pair"
        lhs = operand_def(IndexType)
        rhs = operand_def(IndexType)
        res = result_def(IndexType)
        assembly_format = "$lhs `,` $rhs attr-dict `:` type($res)"

    text = ("builtin.module {\n  %0 = arith.constant 1 : index\n"
            "  %1 = arith.addi %0, %0 : index\n  %2 = arith.muli %1, %0 : index\n}")
    module = parse_module(text, "<lazy>")
    assert str(module) == text
    op = PairOp.create(operands=[module.body.block.first_op.results[0]] * 2,
                       result_types=[IndexType()])
    module.body.block.add_op(op)
    assert str(module).splitlines()[-2].strip() == "%3 = test.pair %0, %0 : index"


def test_every_format_the_tools_load_parses():
    # formats are no longer parsed at import, so a malformed one in any dialect tirx-opt loads
    # (ours, the backends', xDSL's) would surface only at its op's first use: parse them all here
    from xdsl.irdl.declarative_assembly_format import FormatProgram

    from tirx_mlir import registry
    from tirx_mlir.located_parser import make_context

    ctx = make_context()
    checked = []
    for name in registry.list_dialects():
        for op in ctx.get_dialect(name).operations:
            if not hasattr(op, "get_irdl_definition"):  # builtin's UnregisteredOp
                continue
            op_def = op.get_irdl_definition()
            if op_def.assembly_format is not None:
                FormatProgram.from_str(op_def.assembly_format, op_def)
                checked.append(op_def.name)
    assert len(checked) > 50 and "arith.addi" in checked
