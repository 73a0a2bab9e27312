"""tirx-check-bounds: what the IR decides statically is refused at compile time with a located
error (the bound and the CTA / loop values that break it); what it cannot decide is left alone,
so a correct program is never refused."""

from __future__ import annotations

import pytest

from tirx_mlir.diagnostics import PassError
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.transforms.check_bounds import CheckBoundsPass

BUF = "!tirx.buffer<64x8xf32, global>"


def kernel(body: str, grid: str = "4") -> str:
    return (f"tirx.kernel @k(%A: {BUF}) -> (%C: {BUF}) grid [{grid}] threads [1] {{\n"
            f"  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            f"  %c16 = arith.constant 16 : index\n  %cta = tirx.cta_id x : index\n"
            f"{body}\n  tirx.return\n}}\n")


def check(text: str) -> None:
    CheckBoundsPass().apply(make_context(), parse_module(text, "t.mlir"))


def refused(text: str, code: str) -> PassError:
    with pytest.raises(PassError) as info:
        check(text)
    assert info.value.code == code
    return info.value


def slice_at(offset: str, rows: int = 16) -> str:
    return (f"  %v = tirx.slice %A[{offset}, 0] [{rows}, 8] : {BUF} -> "
            f"!tirx.buffer<{rows}x8xf32, global>")


def test_a_slice_in_bounds_in_every_cta_and_iteration_is_accepted():
    check(kernel(f"""  %row = arith.muli %cta, %c16 : index
{slice_at("%row")}
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %r2 = arith.muli %i, %c16 : index
  {slice_at("%r2").replace("%v =", "%w =")}
    scf.yield
  }}"""))


def test_a_constant_offset_out_of_bounds():
    err = refused(kernel(f"""  %c60 = arith.constant 60 : index
{slice_at("%c60")}"""), "out-of-bounds")
    assert err.message == "dim 0: elements [60, 75] are out of bounds for extent 64"
    assert err.op.name == "tirx.slice"


def test_out_of_bounds_only_in_the_last_cta_names_it():
    err = refused(kernel(f"""  %row = arith.muli %cta, %c16 : index
{slice_at("%row")}""", grid="5"), "out-of-bounds")
    assert err.message == ("dim 0: elements [64, 79] are out of bounds for extent 64 "
                           "(when cta_id x = 4)")


def test_a_negative_offset_in_the_first_iteration():
    err = refused(kernel(f"""  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %r = arith.subi %i, %c1 : index
  {slice_at("%r")}
    scf.yield
  }}"""), "out-of-bounds")
    assert err.message.endswith("(when %i = 0)")


def test_load_and_store_indices():
    err = refused(kernel("""  %c64 = arith.constant 64 : index
  %x = tirx.load %A[%c64, %c0] : !tirx.buffer<64x8xf32, global>"""), "out-of-bounds")
    assert err.op.name == "tirx.load"


@pytest.mark.parametrize("guard", [
    # under scf.if: it may never run for the bad values
    ("  %t = arith.constant true\n  scf.if %t {{\n{0}\n  }}"),
    # in a loop that runs no iteration
    ("  scf.for %i = %c1 to %c0 step %c1 {{\n{0}\n  }}"),
])
def test_code_that_may_not_run_is_left_to_the_interpreter(guard):
    check(kernel(guard.format(f"  %c60 = arith.constant 60 : index\n{slice_at('%c60')}")))


def test_values_the_ir_does_not_fix_are_left_to_the_interpreter():
    check(kernel(f"""  %x = tirx.load %A[%c0, %c0] : !tirx.buffer<64x8xf32, global>
  %xi = arith.fptosi %x : f32 to i64
  %o = arith.index_cast %xi : i64 to index
{slice_at("%o")}
  %sq = arith.muli %cta, %cta : index
  %v2 = tirx.slice %A[%sq, 0] [16, 8] : {BUF} -> !tirx.buffer<16x8xf32, global>
  %cl = tirx.cta_id_in_cluster x : index
  %mix = arith.subi %cta, %cl : index
  %d = arith.divui %c16, %mix : index""", grid="4") .replace(
        "grid [4] threads [1]", "grid [4] threads [1] cluster [2]"))


def test_division_by_a_constant_zero():
    err = refused(kernel("  %d = arith.divsi %c16, %c0 : index"), "div-by-zero")
    assert err.message == "the divisor is zero"
    assert err.op.name == "arith.divsi"


def test_division_by_zero_in_one_cta_and_iteration_names_them():
    err = refused(kernel("""  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    %s = arith.addi %i, %cta : index
    %den = arith.subi %s, %c3 : index
    %d = arith.remsi %c16, %den : index
    scf.yield
  }"""), "div-by-zero")
    assert err.message == "the divisor is zero (when %i = 0, cta_id x = 3)"


def test_a_divisor_that_misses_zero_is_accepted():
    check(kernel("""  %c2 = arith.constant 2 : index
  %e = arith.muli %cta, %c2 : index
  %den = arith.addi %e, %c1 : index
  %d = arith.floordivsi %c16, %den : index"""))


@pytest.mark.parametrize("body, reaches", [
    ("""  %big = arith.constant 4611686018427387904 : index
  %c4 = arith.constant 4 : index
  %x = arith.muli %big, %c4 : index""", "it reaches 18446744073709551616"),
    ("""  %big = arith.constant 9223372036854775800 : index
  %x = arith.addi %big, %cta : index
  %y = arith.addi %x, %c16 : index""", "(when cta_id x = 3)"),
    ("""  %m = arith.constant -9223372036854775807 : index
  %x = arith.subi %m, %c16 : index""", "it reaches -9223372036854775823"),
])
def test_index_overflow(body, reaches):
    err = refused(kernel(body), "index-overflow")
    assert err.message.startswith("the result overflows index: ")
    assert reaches in err.message


def test_i32_overflow_and_out_of_range_constants():
    err = refused(kernel("""  %a = arith.constant 2147483647 : i32
  %one = arith.constant 1 : i32
  %b = arith.addi %a, %one : i32"""), "index-overflow")
    assert "overflows i32" in err.message
    err = refused(kernel("  %a = arith.constant 18446744073709551616 : index"), "index-overflow")
    assert "does not fit in index" in err.message


def test_a_constant_non_positive_step():
    err = refused(kernel("""  scf.for %i = %c0 to %c16 step %c0 {
    scf.yield
  }"""), "loop-step")
    assert err.message == "the loop step is 0; an scf.for step must be positive"
