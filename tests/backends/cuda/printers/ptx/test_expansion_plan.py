"""printers/ptx/expansion_plan.py: the register-loop expansion planned as records (the
printed form is checked against the expanded copy by test_direct_loops.py)."""

from __future__ import annotations

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda.printers.ptx.expansion_plan import Rec, Tok, plan_register_loops
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError

from tirx_testing.register_loops import KERNEL

load("cuda")


def _plan(text: str):
    module = parse_module(text, "direct.mlir")
    return module, plan_register_loops(module, lambda message, op: PrintError(message, op))


def test_the_plan_places_records_in_the_outermost_loops_and_counts_their_uses():
    module, plan = _plan(KERNEL)
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


def test_a_reassociated_add_keeps_the_flags_both_adds_had():
    module, plan = _plan(KERNEL)
    adds = [rec for loop in plan.loops for rec in plan.records[id(loop)]
            if rec.op is not None and rec.op.name == "arith.addi" and rec.props is not None]
    # (base + k) + 1 -> base + (k + 1) in the nested pair's 8 iterations but the first, where
    # base + 0 folded to base (an identity) and base + 1 has no inner add to reassociate
    assert len(adds) == 7
    for rec in adds:
        x, c = rec.operands
        assert not isinstance(x, Tok) and x.name_hint == "base"
        assert isinstance(c, Tok) and c.rec.op is None
        assert [str(f) for f in rec.props["overflowFlags"].data] == ["nsw"]
    assert sorted(rec.operands[1].const for rec in adds) == list(range(2, 9))


def test_a_module_without_register_loops_has_no_plan():
    text = KERNEL.replace("%acc = tirx.alloc : !tirx.buffer<16xf32, local>",
                          "%acc = tirx.alloc : !tirx.buffer<16xf32, shared>")
    text = text.replace("!tirx.buffer<16xf32, local>", "!tirx.buffer<16xf32, shared>")
    text = text.replace("%regs = tirx.alloc : !tirx.buffer<4xf32, local>",
                        "%regs = tirx.alloc : !tirx.buffer<4xf32, shared>")
    text = text.replace("!tirx.buffer<4xf32, local>", "!tirx.buffer<4xf32, shared>")
    text = text.replace("%spill = tirx.alloc : !tirx.buffer<256xf32, local>",
                        "%spill = tirx.alloc : !tirx.buffer<256xf32, shared>")
    text = text.replace("!tirx.buffer<256xf32, local>", "!tirx.buffer<256xf32, shared>")
    _, plan = _plan(text)
    assert plan is None
