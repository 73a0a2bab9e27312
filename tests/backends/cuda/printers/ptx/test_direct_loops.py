"""printers/ptx/direct_loops.py and expansion_plan.py: register loops printed from a plan
(records, no copied ops) give the text the printer gives for the expanded copy (unroll.py),
on loops that exercise each decision of the expansion and each question the printer asks of
the expanded program; loops the plan does not cover print from the copy."""

from __future__ import annotations

import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.printers.ptx.expansion_plan import Rec, plan_register_loops
from tirx_mlir.backends.cuda.printers.ptx.target import PtxPrinter
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError

load("cuda")
PTXAS = toolchain.find_tool("ptxas")

# Nested loops (the inner expanded first, its records cloned by the outer) with: an index
# folded through a multiply by one, an add of a constant reassociated onto an nsw add
# ((base + k) + 1 -> base + (k + 1): the global address's immediate), an andi of constants
# (xDSL's folder), a divui that stays (the folder leaves it), a float constant shared by
# the iterations, a local array at non-constant indices (.local), one at constant indices
# (registers); a sibling loop sharing the constants, with a load stored straight back to its
# element (nothing printed), a division by a constant made per iteration (the multiply-high
# sequence), and global and local addresses without a narrow index.
KERNEL = """
tirx.kernel @direct(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  %eight = arith.constant 8 : i32
  %t = cuda.thread_idx x : index
  %t32 = arith.index_cast %t : index to i32
  %base = arith.muli %t32, %eight overflow<nsw> : i32
  %acc = tirx.alloc : !tirx.buffer<16xf32, local>
  %spill = tirx.alloc : !tirx.buffer<256xf32, local>
  %regs = tirx.alloc : !tirx.buffer<4xf32, local>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %i2 = arith.muli %i, %c2 : index
      %k = arith.addi %i2, %j : index
      %k1 = arith.muli %k, %c1 : index
      %h = arith.divui %k1, %c2 : index
      %k32 = arith.index_cast %k1 : index to i32
      %g0 = arith.addi %base, %k32 overflow<nsw> : i32
      %g1 = arith.addi %g0, %one overflow<nsw> : i32
      %gi = arith.index_cast %g1 : i32 to index
      %x = cuda.load %X, %gi : !tirx.buffer<1024xf32, global>, index -> f32
      %two = arith.constant 2.0 : f32
      %y = arith.mulf %x, %two : f32
      cuda.store %acc, %k1, %y : !tirx.buffer<16xf32, local>, index, f32
      %h8 = arith.addi %h, %c8 : index
      cuda.store %acc, %h8, %x : !tirx.buffer<16xf32, local>, index, f32
      %odd = arith.andi %k1, %c1 : index
      %r0 = cuda.load %regs, %odd : !tirx.buffer<4xf32, local>, index -> f32
      %r1 = arith.addf %r0, %y : f32
      cuda.store %regs, %odd, %r1 : !tirx.buffer<4xf32, local>, index, f32
      scf.yield
    } {cuda.unroll}
    scf.yield
  } {cuda.unroll}
  scf.for %i = %c0 to %c4 step %c1 {
    %v = cuda.load %regs, %i : !tirx.buffer<4xf32, local>, index -> f32
    cuda.store %regs, %i, %v : !tirx.buffer<4xf32, local>, index, f32
    %w = cuda.load %acc, %i : !tirx.buffer<16xf32, local>, index -> f32
    %d = arith.addi %i, %c1 : index
    %q = arith.divui %t, %d : index
    %s = arith.addi %t, %i : index
    cuda.store %spill, %s, %w : !tirx.buffer<256xf32, local>, index, f32
    %r = cuda.load %spill, %q : !tirx.buffer<256xf32, local>, index -> f32
    %o = arith.addi %q, %i : index
    cuda.store %Y, %o, %r : !tirx.buffer<1024xf32, global>, index, f32
    scf.yield
  } {cuda.unroll}
  tirx.return
}
"""


class CopyPrinter(PtxPrinter):
    """The printer without plans: every register loop expanded on a copy (unroll.py)."""

    DIRECT_LOOPS = False


def _both(text: str, name: str = "direct.mlir") -> tuple[PtxPrinter, str, str]:
    printer = PtxPrinter(parse_module(text, name))
    direct = printer.emit()
    return printer, direct, CopyPrinter(parse_module(text, name)).emit()


def test_planned_loops_print_the_text_of_the_expanded_copy():
    printer, direct, copied = _both(KERNEL)
    assert printer.plan is not None
    assert direct == copied
    assert "bra" not in direct  # every loop expanded
    assert ".reg .f32 %regs_<4>;" in direct  # constant indices only: registers
    assert ".local .align 16 .b8 local_acc[64];" in direct  # a divui index: memory
    assert "add.s64 %rd14, %rd14, 4;" in direct  # the reassociated + 1, as an immediate
    assert "mul.hi.u64" in direct  # t / 3 by a constant made in the third iteration
    if PTXAS is not None:
        result = toolchain.assemble(direct, "sm_80", ptxas=PTXAS, extra=("-v",))
        assert result.ok, result.log


def test_the_plan_places_records_in_the_outermost_loops_and_counts_their_uses():
    module = parse_module(KERNEL, "direct.mlir")
    plan = plan_register_loops(module, lambda message, op: PrintError(message, op))
    assert plan is not None and len(plan.loops) == 2  # the nested pair and the sibling
    records = [rec for loop in plan.loops for rec in plan.records[id(loop)]]
    constants = [(rec.value, str(rec.type)) for rec in records if rec.op is None]
    assert len(constants) == len(set(constants))  # each constant placed once per block
    regs = next(op.results[0] for op in module.walk()
                if op.name == "tirx.alloc" and op.results[0].name_hint == "regs")
    # 8 loads and 8 stores in the nested loops, 4 of each in the sibling; none in the input
    users = plan.use_list(regs)
    assert len(users) == 24 and all(isinstance(user, Rec) for user, _ in users)
    # the input is unchanged: its loops are still there
    assert sum(op.name == "scf.for" for op in module.walk()) == 3


def test_a_loop_with_carried_values_prints_from_the_copy():
    text = KERNEL.replace("scf.for %i = %c0 to %c4 step %c1 {\n    %v",
                          "%z = arith.constant 0.0 : f32\n"
                          "  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc_s = %z) -> (f32) {\n"
                          "    %v").replace(
        "    cuda.store %Y, %o, %r : !tirx.buffer<1024xf32, global>, index, f32\n    scf.yield\n",
        "    cuda.store %Y, %o, %r : !tirx.buffer<1024xf32, global>, index, f32\n"
        "    %s2 = arith.addf %acc_s, %r : f32\n    scf.yield %s2 : f32\n")
    assert "iter_args" in text and "scf.yield %s2" in text
    printer, direct, copied = _both(text)
    assert printer.plan is None and direct == copied


def test_a_loop_that_cannot_be_expanded_is_refused_at_the_loop_as_before():
    text = KERNEL.replace("scf.for %i = %c0 to %c4 step %c1 {\n    %v",
                          "%n = arith.remui %t, %c8 : index\n"
                          "  scf.for %i = %c0 to %n step %c1 {\n    %v")
    for printer in (PtxPrinter, CopyPrinter):
        with pytest.raises(PrintError, match="not constants") as err:
            printer(parse_module(text, "dynamic.mlir")).emit()
        assert err.value.op.name == "scf.for"
