"""The located parser's speed paths give what xDSL's own parsing gives: the common-token lexer
xDSL's token stream, and ops created from a template of an earlier op of the same text the op
xDSL's parser builds (class, operands, properties, attributes, result types, names and
locations), with the same located errors."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRTokenKind

from tirx_mlir import located_parser
from tirx_mlir.located_parser import LocatedParser, make_context, parse_module

ROOT = Path(__file__).resolve().parents[1]
INPUTS = sorted((ROOT / "examples").rglob("*.mlir")) + \
    sorted((ROOT / "tests" / "filecheck").rglob("*.mlir"))


class _UntemplatedParser(LocatedParser):
    """xDSL's parsing of every op (no op is created from a template)."""

    def _from_template(self, line, start, resume=True):
        return None


def _generic(text: str, parser_class: type[LocatedParser]) -> str:
    try:
        module = parser_class(make_context(), text, "in.mlir").parse_module()
    except ParseError as err:
        return f"error: {err}"
    out = StringIO()
    Printer(stream=out, print_generic_format=True, print_debuginfo=True).print_op(module)
    return out.getvalue()


def _text(path: Path) -> str | None:
    try:
        return path.read_text()
    except UnicodeDecodeError:
        return None


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_templated_ops_are_the_ops_xdsl_builds(path):
    text = _text(path)
    if text is None:
        pytest.skip("not UTF-8 (a bad-input test)")
    assert _generic(text, LocatedParser) == _generic(text, _UntemplatedParser)


class _CountingParser(LocatedParser):
    created = 0

    def _from_template(self, line, start, resume=True):
        op = super()._from_template(line, start, resume)
        self.created += op is not None
        return op


def test_the_examples_use_templates():
    """Most of the gemm example's 276 ops are created from templates (the check above would
    pass vacuously if none were)."""
    text = (ROOT / "examples" / "cuda" / "gemm_mma_sync.mlir").read_text()
    parser = _CountingParser(make_context(), text)
    parser.parse_module()
    assert parser.created > 200


KERNEL = ('tirx.kernel @k(%G: !tirx.buffer<64xi32, global>) grid [1] threads [32] '
          'target "cuda -arch=sm_80" {{\n{body}\n  tirx.return\n}}\n')


@pytest.mark.parametrize("body,message,line", [
    # the second constant does not fit its type: the template's literal slot is checked
    ("  %a = arith.constant 1 : i8\n  %b = arith.constant 300 : i8", "300", 3),
    # a name defined twice, on a templated line
    (("  %a = arith.constant 1 : index\n  %b = arith.addi %a, %a : index\n"
      "  %b = arith.addi %a, %a : index"), "already defined", 4),
    # the same text with operands of another type than the template's
    (("  %a = arith.constant 1 : index\n  %i = arith.constant 1 : i32\n"
      "  %b = arith.addi %a, %a : index\n  %c = arith.addi %i, %i : index"), "type", 5),
])
def test_templated_lines_report_xdsls_errors(body, message, line):
    text = KERNEL.format(body=body)
    with pytest.raises(ParseError) as err:
        parse_module(text, "in.mlir")
    assert message in str(err.value)
    assert f"in.mlir:{line}:" in str(err.value)
    assert _generic(text, LocatedParser) == _generic(text, _UntemplatedParser)


def test_a_template_keeps_names_and_locations():
    body = "\n".join(f"  %v{i} = arith.addi %x, %y : index" for i in range(3))
    text = KERNEL.format(body="  %x = arith.constant 2 : index\n  %y = arith.constant 3 : index\n"
                         + body)
    module = parse_module(text, "in.mlir")
    adds = [op for op in module.walk() if op.name == "arith.addi"]
    assert [op.results[0].name_hint for op in adds] == ["v0", "v1", "v2"]
    assert [op.location.line.data for op in adds] == [4, 5, 6]
    assert all(op.lhs.name_hint == "x" and op.rhs.name_hint == "y" for op in adds)
    assert adds[1].properties is not adds[2].properties


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_common_token_lexer_gives_xdsls_tokens(path):
    text = _text(path)
    if text is None:
        pytest.skip("not UTF-8 (a bad-input test)")
    ours = located_parser._CommonTokenLexer(Input(text, "in.mlir"))
    theirs = located_parser._LinearTimeLexer(Input(text, "in.mlir"))
    while True:
        got, want = _token(ours), _token(theirs)
        assert got == want and ours.pos == theirs.pos
        if got[0] in (MLIRTokenKind.EOF, "error"):
            break


def _token(lexer) -> tuple:
    try:
        token = lexer.lex()
    except ParseError as err:
        return ("error", str(err))
    return (token.kind, token.span.start, token.span.end)


def test_a_value_named_twice_is_part_of_the_template():
    """`%a, %a` and `%x, %y` are different templates of one text: each op gets its own
    operands in the parser's order."""
    body = ("  %x = arith.constant 2 : index\n  %y = arith.constant 3 : index\n"
            "  %s = arith.addi %x, %x : index\n  %t = arith.addi %x, %y : index\n"
            "  %u = arith.addi %y, %y : index\n  %v = arith.addi %y, %x : index\n"
            "  %w = arith.subi %y, %x : index\n  %z = arith.subi %x, %x : index")
    text = KERNEL.format(body=body)
    assert _generic(text, LocatedParser) == _generic(text, _UntemplatedParser)
    module = parse_module(text, "in.mlir")
    got = {op.results[0].name_hint: [v.name_hint for v in op.operands]
           for op in module.walk() if op.name in ("arith.addi", "arith.subi")}
    assert got == {"s": ["x", "x"], "t": ["x", "y"], "u": ["y", "y"], "v": ["y", "x"],
                   "w": ["y", "x"], "z": ["x", "x"]}


def test_templates_are_kept_across_parses_of_one_context_signature():
    text = KERNEL.format(body="  %x = arith.constant 2 : index\n  %s = arith.addi %x, %x : index")
    located_parser.clear_shared_caches()  # no templates from other tests
    parse_module(text)
    parser = _CountingParser(make_context(), text)
    parser.parse_module()
    assert parser.created == 3  # every line op (tirx.return too), from the first parse
    other = _CountingParser(make_context(allow_unregistered=True), text)
    other.parse_module()
    assert other.created == 0  # another signature: its own templates


ALIASED = """!t = {t}
tirx.kernel @k(%A: !tirx.buffer<16x!t, global>) -> (%B: !tirx.buffer<16x!t, global>) grid [1] threads [1] {{
  %c = arith.constant 0 : !t
  %d = arith.constant 1 : !t
  %a = tirx.alloc : !tirx.buffer<16x!t, shared>
  tirx.return
}}
"""


@pytest.mark.parametrize("first, second", [("i32", "i64"), ("f32", "f16")])
def test_an_alias_means_what_each_input_defines(first, second):
    # an alias is the input's own: a text naming it is not the same op or type in another parse
    for t in (first, second):
        module = parse_module(ALIASED.format(t=t))
        types = {str(op.results[0].type) for op in module.walk() if op.results}
        types |= {str(arg.type) for op in module.walk() for r in op.regions
                  for b in r.blocks for arg in b.args}
        assert types == {t, f"!tirx.buffer<16x{t}, global>", f"!tirx.buffer<16x{t}, shared>"}


def test_lazy_patterns_compile_on_first_use_and_match_as_re():
    import re

    lazy = located_parser._LazyPattern(r"%(\w+)(?:#([0-9]+))?", re.ASCII)
    assert "match" not in vars(lazy)  # nothing compiled yet
    assert lazy.match("%x#2 = y").groups() == ("x", "2")
    assert "match" in vars(lazy)  # compiled once, the methods kept
    assert lazy.split("a %b c") == re.compile(lazy.pattern, re.ASCII).split("a %b c")
    assert [m.group(1) for m in lazy.finditer("%a %b")] == ["a", "b"]


def test_a_path_that_is_not_utf8_is_a_located_error(tmp_path):
    """Found by the cuda hostile-input campaign: ``tirx_mlir.compile(path)`` on such a file
    raised UnicodeDecodeError."""
    from tirx_mlir.diagnostics import TirxError
    from tirx_mlir.located_parser import as_module

    path = tmp_path / "bad.mlir"
    path.write_bytes(b"tirx.kernel @k() grid [1] threads [32] {\n \xff\n  tirx.return\n}\n")
    with pytest.raises(TirxError, match=rf"bad.mlir:2:2: the input is not UTF-8 text \(invalid "
                                        rf"start byte at byte 42\)"):
        as_module(str(path), "compile")
