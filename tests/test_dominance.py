"""SSA dominance: checked by every parse and by the tools' verifier, with the use located."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.utils.exceptions import ParseError

from tirx_mlir.dominance import DominanceError, check_dominance
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.tools.diagnostics_cli import ReportedError, verify_located

CTX = make_context(allow_unregistered=True)


def parse(text: str):
    return parse_module(text, "dom.mlir", CTX)


def error_of(text: str) -> str:
    with pytest.raises(ParseError) as info:
        parse(text)
    return str(info.value)


def test_use_before_definition_in_a_block() -> None:
    message = error_of("func.func @f() {\n  %x = arith.addi %y, %y : index\n"
                       "  %y = arith.constant 1 : index\n  func.return\n}\n")
    assert "dom.mlir:2:19" in message
    assert "operand #0 (%y) is used before it is defined" in message


def test_loop_bound_defined_inside_its_own_loop() -> None:
    message = error_of("func.func @f() {\n  %c0 = arith.constant 0 : index\n"
                       "  scf.for %i = %c0 to %n step %c0 {\n    %n = arith.constant 4 : index\n"
                       "  }\n  func.return\n}\n")
    assert "dom.mlir:3:23" in message
    assert "(%n)" in message


def test_value_of_a_sibling_region_is_not_visible() -> None:
    message = error_of("func.func @f(%c: i1) {\n  scf.if %c {\n    %v = arith.constant 1 : index\n"
                       "  }\n  %w = arith.addi %v, %v : index\n  func.return\n}\n")
    assert "%v" in message  # xDSL reports it itself: "values used but not defined"


def test_block_dominance_across_a_cfg() -> None:
    ok = ('func.func @f(%c: i1) {\n  %a = arith.constant 1 : index\n'
          '  "test.br"(%c)[^t, ^e] : (i1) -> ()\n^t:\n  %b = arith.addi %a, %a : index\n'
          '  "test.br"()[^j] : () -> ()\n^e:\n  "test.br"()[^j] : () -> ()\n'
          '^j:\n  %d = arith.addi %a, %a : index\n  func.return\n}\n')
    parse(ok)
    bad = ok.replace("%d = arith.addi %a, %a", "%d = arith.addi %b, %a")
    message = error_of(bad)
    assert "(%b)" in message and "dom.mlir:10:19" in message


def test_outer_values_and_graph_regions_are_fine() -> None:
    parse("func.func @f(%n: index) {\n  %c0 = arith.constant 0 : index\n"
          "  scf.for %i = %c0 to %n step %n {\n    %s = arith.addi %i, %n : index\n  }\n"
          "  func.return\n}\n")
    parse('"test.a"(%0) : (i32) -> ()\n%0 = "test.b"() : () -> i32\n')  # module: graph region


def test_a_pass_that_breaks_dominance_is_caught_by_the_verifier() -> None:
    module = parse("func.func @f() {\n  %a = arith.constant 1 : index\n"
                   "  %b = arith.addi %a, %a : index\n  func.return\n}\n")
    add = next(op for op in module.walk() if isinstance(op, arith.AddiOp))
    late = arith.ConstantOp.from_int_and_width(2, IndexType())
    add.parent_block().insert_op_after(late, add)
    add.operands[0] = late.result
    with pytest.raises(DominanceError):
        check_dominance(module)
    with pytest.raises(ReportedError, match="after pass 'x'"):
        verify_located(module, "dom.mlir", "after pass 'x'")


def test_tirx_run_reports_it_instead_of_a_key_error(tmp_path: Path) -> None:
    path = tmp_path / "k.mlir"
    path.write_text("tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) grid [1] "
                    "threads [128] {\n  %x = arith.addi %y, %y : index\n"
                    "  %y = arith.constant 1 : index\n  tirx.return\n}\n")
    result = subprocess.run([sys.executable, "-m", "tirx_mlir.tools.tirx_run", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert (f"{path}:2:19: error: 'arith.addi' op operand #0 (%y) is used before it is defined"
            in result.stderr)
    assert "Traceback" not in result.stderr and "KeyError" not in result.stderr



def test_defined_in_tells_a_loops_own_values_from_those_before_it():
    from xdsl.dialects import scf

    from tirx_mlir.dominance import defined_in

    module = parse_module("""
func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = arith.addi %acc, %i : index
    %t = scf.for %j = %c0 to %n step %c1 iter_args(%b = %s) -> (index) {
      %u = arith.addi %b, %j : index
      scf.yield %u : index
    }
    scf.yield %t : index
  }
  func.return
}
""")
    outer, inner = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    names = {v.name_hint: v for op in module.walk() for v in op.results}
    names |= {a.name_hint: a for loop in (outer, inner) for a in loop.body.block.args}
    inside_outer = {n for n, v in names.items() if defined_in(outer, v)}
    assert inside_outer == {"i", "acc", "s", "t", "j", "b", "u"}  # not its result %r
    assert {n for n, v in names.items() if defined_in(inner, v)} == {"j", "b", "u"}
