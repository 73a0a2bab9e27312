"""printers/ptx/target.py: `print_ptx` (``-t ptx`` and `emit_ptx`) gives the printer's text and
leaves none of its plan to the cyclic collector: the expansion plan's records and tokens name
each other, and `release` breaks those cycles before the collector comes back on."""

from __future__ import annotations

import gc
import io

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.backends.cuda.printers.ptx.expansion_plan import Rec, Tok
from tirx_mlir.backends.cuda.printers.ptx.target import PtxPrinter, PtxTarget, print_ptx
from tirx_mlir.located_parser import parse_module

from tirx_testing.register_loops import KERNEL

load("cuda")


def _garbage_after(print_once) -> list:
    """The objects the cyclic collector finds after ``print_once()`` (the collector off
    around it, so only what it left behind is counted)."""
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        print_once()
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was:
            gc.enable()
    return found


def _plan_objects(objects: list) -> list:
    return [o for o in objects if isinstance(o, (Rec, Tok, PtxPrinter))]


def test_print_ptx_is_the_printers_text_and_leaves_no_plan_cycles():
    module = parse_module(KERNEL, "target.mlir")
    expected = PtxPrinter(module).emit()
    assert print_ptx(module) == expected == emit_ptx(module)
    out = io.StringIO()
    PtxTarget().emit(None, module, out)
    assert out.getvalue() == expected
    assert _plan_objects(_garbage_after(lambda: print_ptx(module))) == []


def test_without_release_the_plan_is_cyclic_garbage():
    """What `release` is for: the same print, the printer dropped without it, leaves the
    plan's records to the collector."""
    module = parse_module(KERNEL, "target.mlir")

    def unreleased():
        printer = PtxPrinter(module)
        printer.emit()
        assert printer.plan is not None

    found = _plan_objects(_garbage_after(unreleased))
    assert any(isinstance(o, Rec) for o in found) and any(isinstance(o, Tok) for o in found)


def test_release_empties_the_plan():
    printer = PtxPrinter(parse_module(KERNEL, "target.mlir"))
    printer.emit()
    plan = printer.plan
    records = [rec for recs in plan.records.values() for rec in recs]
    assert records and any(rec.results for rec in records)
    printer.release()
    assert printer.plan is None and not plan.records and not plan.keep
    assert all(rec.results == () for rec in records)
