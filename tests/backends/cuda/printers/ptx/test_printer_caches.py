"""What the PTX printer keeps while it prints (printers/ptx/printer.py `_PtxFacts`,
local_registers.py `_keeps_kind`): answers kept per op and print, per class and properties, or
per op class, never stale when the module changes between prints."""

from __future__ import annotations

from xdsl.dialects import arith, scf

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.printers.ptx import local_registers as L
from tirx_mlir.backends.cuda.printers.ptx.target import PtxPrinter, print_ptx
from tirx_mlir.located_parser import parse_module
from tirx_mlir.type_tests import find_ops

load("cuda")

KERNEL = """tirx.kernel @k(%X: !tirx.buffer<512xf32, global>) -> (%D: !tirx.buffer<512xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %x0 = cuda.load %X, %c0 : !tirx.buffer<512xf32, global>, index -> f32
  %gd = unrealized_conversion_cast %D : !tirx.buffer<512xf32, global> to i64
  ptx.st "MODS" [%gd], {%x0, %x0, %x0, %x0} : (i64, f32, f32, f32, f32) -> ()
  tirx.return
}"""


def _module(mods: str):
    return parse_module(KERNEL.replace("MODS", mods), "caches.mlir")


def _st(module) -> PtxOp:
    ops = [op for op in find_ops(module, lambda op: isinstance(op, PtxOp))]
    assert len(ops) == 1
    return ops[0]


def test_an_op_given_other_properties_prints_them_in_the_next_print():
    """The need and variant are kept per class and properties, the rest per op and print:
    an op whose properties change between two prints prints its new modifiers."""
    module, other = _module("global.v4.f32"), _module("shared.v4.b32")
    assert "st.global.v4.f32 [" in print_ptx(module)
    _st(module).properties = dict(_st(other).properties)
    text = print_ptx(module)
    assert "st.shared.v4.b32 [" in text and "st.global.v4.f32" not in text


def test_facts_are_one_per_op_and_printer():
    module = _module("global.v4.f32")
    op = _st(module)
    first, second = PtxPrinter(module), PtxPrinter(module)
    assert first.ptx_facts(op) is first.ptx_facts(op)
    assert first.ptx_facts(op) is not second.ptx_facts(op)
    assert first.ptx_facts(op).variant() is op.variant()


def test_keeps_locals_per_class_is_the_rule_of_each_class():
    """`_keeps_kind`: ptx ops answer per op (their read-write operands), loops per loop
    (`keeps_loop`), loads and stores, arith / math and the listed cuda ops keep deferred moves,
    other control flow does not."""
    assert L._keeps_kind(type(_st(_module("global.v4.f32")))) is L._PTX_KIND
    assert L._keeps_kind(LoadOp) is True and L._keeps_kind(StoreOp) is True
    assert L._keeps_kind(arith.AddfOp) is True
    assert L._keeps_kind(scf.IfOp) is False
    assert L._keeps_kind(scf.ForOp) is L._LOOP_KIND  # straight-line only when planned
    module = _module("global.v4.f32")
    printer = PtxPrinter(module)
    st = _st(module)
    assert printer.keeps_locals(st) is (not printer.ptx_tied(st)) is True


LOOP = """tirx.kernel @k(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = cuda.thread_idx x : index
  %acc = tirx.alloc : !tirx.buffer<4xf32, local>
  scf.for %i = %c0 to %c4 step %c1 {
    %x = cuda.load %X, %t : !tirx.buffer<1024xf32, global>, index -> f32
    cuda.store %acc, %i, %x : !tirx.buffer<4xf32, local>, index, f32
  }
  scf.for %j = %c0 to %c4 step %c1 {
    %x = cuda.load %X, %j : !tirx.buffer<1024xf32, global>, index -> f32
    cuda.store %Y, %j, %x : !tirx.buffer<1024xf32, global>, index, f32
  }
  tirx.return
}"""


def test_a_loop_keeps_deferred_moves_only_where_its_plan_prints_it():
    module = parse_module(LOOP, "loops.mlir")
    printer = PtxPrinter(module)
    planned, rolled = find_ops(module, lambda op: isinstance(op, scf.ForOp))
    printer.prepare_register_loops()
    assert printer.plan is not None
    assert printer.keeps_locals(planned) is True   # a register loop: its records
    assert printer.keeps_locals(rolled) is False   # a loop printed with labels
    printer.release()


ARENA = """tirx.kernel @k(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %a = cuda.dynamic_shared offset 0 align 16 : !tirx.buffer<64xf32, shared.dyn>
  %p = arith.constant true
  scf.if %p {
    %b = cuda.dynamic_shared offset 256 align ALIGN : !tirx.buffer<64xf32, shared.dyn>
  }
  tirx.return
}"""


def test_the_arena_is_declared_with_the_largest_alignment_its_printed_views_ask():
    """The ``.extern .shared`` line comes from the views the print met (no walk for them):
    the largest alignment, a view nested in a region included."""
    for align in (8, 128):
        text = print_ptx(parse_module(ARENA.replace("ALIGN", str(align)), "arena.mlir"))
        assert f".extern .shared .align {max(16, align)} .b8 tirx_dynamic_smem[];" in text
        assert text.count(".extern") == 1
    assert ".extern" not in print_ptx(_module("global.v4.f32"))
