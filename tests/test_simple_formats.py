"""`tirx_mlir.simple_formats` does what xDSL's ``FormatProgram`` does for its three formats: the
same op from the same text (compared in the generic form), the same error for bad text, the same
printed text; any other format or op shape is left to xDSL."""

from __future__ import annotations

import io

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.irdl import AnyAttr, IRDLOperation, irdl_op_definition, prop_def, result_def
from xdsl.irdl.declarative_assembly_format import FormatProgram
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError, VerifyException

from tirx_mlir import simple_formats
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import ReturnOp
from tirx_mlir.located_parser import make_context

CASES = {
    arith.ConstantOp: [" 1 : index", " -7 : i32", " 2.5 : f32", " true", " 0 : i1",
                       " {tag = \"x\"} 3 : i64", " dense<[1, 2]> : tensor<2xi32>",
                       " dense<1.0> : vector<4xf16>", " {value = 9 : i8} 4 : i16",
                       # bad text: xDSL's error, word for word
                       "", " : i32", " {a} ", " \"text\"", " 1 : !tirx.buffer<4xf32, shared>",
                       " {a = 1 2 : i32"],
    AllocOp: [" : !tirx.buffer<128x512xf32, shared>", " {align = 64 : i64} : "
              "!tirx.buffer<4x4xbf16, local>", " : i32", " !tirx.buffer<4xf32, shared>",
              " :", " {x} : !tirx.buffer<2xf32, shared>"],
    ReturnOp: ["", " {note = \"done\"}", " {}", " {a = 1 : i32, b}", " {a = "],
}


def _outcome(program, op_type, text: str) -> tuple[str, str]:
    ctx = make_context()
    parser = Parser(ctx, text, "<t>")
    try:
        op = program.parse(parser, op_type)
    except (ParseError, VerifyException) as err:
        return "error", f"{type(err).__name__}: {err}"
    generic, custom = io.StringIO(), io.StringIO()
    Printer(stream=generic, print_generic_format=True).print_op(op)
    Printer(stream=custom).print_op(op)
    return generic.getvalue(), custom.getvalue()


@pytest.mark.parametrize("op_type", list(CASES), ids=lambda t: t.name)
def test_parse_and_print_as_xdsl_programs_do(op_type):
    op_def = op_type.get_irdl_definition()
    ours = simple_formats.program(op_def.assembly_format, op_def)
    theirs = FormatProgram.from_str(op_def.assembly_format, op_def)
    assert ours is not None
    for text in CASES[op_type]:
        expected = _outcome(theirs, op_type, text)
        assert _outcome(ours, op_type, text) == expected, text
    # and printing an op both ways, whichever program parsed it
    op = theirs.parse(Parser(make_context(), CASES[op_type][1], "<t>"), op_type)
    for program in (ours, theirs):
        out = io.StringIO()
        program.print(Printer(stream=out), op)
        assert out.getvalue() == _printed(theirs, op)


def _printed(program, op) -> str:
    out = io.StringIO()
    program.print(Printer(stream=out), op)
    return out.getvalue()


def test_the_tools_read_every_examples_trn_kernel_the_same_with_either_program():
    from pathlib import Path

    from tirx_mlir import lazy_formats
    from tirx_mlir.located_parser import parse_module

    lazy_formats.install()
    examples = sorted((Path(__file__).resolve().parents[1] / "examples" / "trn").glob("*.mlir"))
    assert len(examples) > 10
    for path in examples:
        module = parse_module(path.read_text(), str(path))
        for op in module.walk():
            op_def = getattr(type(op), "get_irdl_definition", None)
            text = op_def().assembly_format if op_def else None
            if text not in simple_formats.TEXTS:
                continue
            theirs = FormatProgram.from_str(text, op_def())
            assert _printed(simple_formats.program(text, op_def()), op) == \
                _printed(theirs, op), path.name


def test_other_formats_and_shapes_are_left_to_xdsl():
    assert simple_formats.program("$lhs `,` $rhs attr-dict `:` type($result)",
                                  arith.AddiOp.get_irdl_definition()) is None
    # the right text on an op of another shape
    assert simple_formats.program("attr-dict", AllocOp.get_irdl_definition()) is None
    assert simple_formats.program("attr-dict `:` type($result)",
                                  ReturnOp.get_irdl_definition()) is None

    @irdl_op_definition
    class UniqueBaseOp(IRDLOperation):  # xDSL prints this property without its type prefix
        name = "test.unique_base"
        value = prop_def(IntegerAttr)
        result = result_def(IndexType)
        assembly_format = "attr-dict $value `:` type($result)"

    assert simple_formats.program("attr-dict $value", UniqueBaseOp.get_irdl_definition()) is None

    @irdl_op_definition
    class NotInferredOp(IRDLOperation):  # the result type cannot come from the property
        name = "test.not_inferred"
        value = prop_def(AnyAttr())
        result = result_def(IntegerType)
        assembly_format = "attr-dict $value `:` type($result)"

    assert simple_formats.program("attr-dict $value",
                                  NotInferredOp.get_irdl_definition()) is None


def test_a_compile_does_not_import_xdsls_format_parser(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    probe = ("import sys\nsys.argv = ['tirx-opt', '--pass-pipeline=trn', sys.argv[1], '-t', "
             "'nki', '-o', sys.argv[2]]\nfrom tirx_mlir.tools.tirx_opt import main\n"
             "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code\n"
             "print('declarative_assembly_format_parser' in str(list(sys.modules)))\n")
    run = subprocess.run([sys.executable, "-c", probe, str(root / "examples/trn/nki_add_1.mlir"),
                          str(tmp_path / "out.py")], capture_output=True, text=True,
                         check=True, cwd=root)
    assert run.stdout.split()[-1] == "False"
