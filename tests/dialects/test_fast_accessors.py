"""`tirx_mlir.dialects.fast_accessors`: named operands, results and regions read by position give
what xDSL's accessors give, on every op the trn pipeline reads or makes; lazily completed op
classes get them; writing one is still xDSL's error."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import IndexType
from xdsl.irdl import IRDLOperation, operand_def, operations, region_def, result_def
from xdsl.irdl.operations import BeforeVariadicSingleAccessor

from tirx_mlir import lazy_op_definitions as lazy
from tirx_mlir.dialects.fast_accessors import (FixedConstruct, FixedOperand, FixedResult,
                                               install_fast_accessors)
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline

ROOT = Path(__file__).resolve().parents[2]
TRN_EXAMPLES = sorted((ROOT / "examples" / "trn").glob("*.mlir"))


def _compare(module) -> int:
    """Every fixed accessor of every op of ``module`` against the xDSL accessor it replaced;
    returns how many were compared."""
    seen = 0
    for op in module.walk():
        for name, accessor in vars(type(op)).items():
            if isinstance(accessor, FixedConstruct):
                assert getattr(op, name) is accessor.original.__get__(op, type(op)), \
                    (op.name, name)
                seen += 1
    return seen


def test_every_trn_op_reads_what_xdsls_accessors_read():
    seen = 0
    for path in TRN_EXAMPLES:
        ctx = make_context()
        module = parse_module(path.read_text(), ctx=ctx)
        seen += _compare(module)  # tile level: tirx, arith, scf
        get_pipeline("trn").apply(module, ctx)
        seen += _compare(module)  # nki level, with the loops and index arithmetic dispatch made
    assert seen > 1000


def test_a_class_completed_lazily_gets_them():
    @operations.irdl_op_definition  # the installed, lazy decorator (located_parser installs it)
    class FixedTestOp(IRDLOperation):
        name = "test.fixed_accessors"
        lhs = operand_def(IndexType)
        rhs = operand_def(IndexType)
        res = result_def(IndexType)
        body = region_def()

    assert lazy.is_pending(FixedTestOp)
    value = parse_module("%0 = arith.constant 1 : index").body.block.first_op.results[0]
    other = parse_module("%0 = arith.constant 2 : index").body.block.first_op.results[0]
    op = FixedTestOp.create(operands=[value, other], result_types=[IndexType()],
                            regions=[operations.Region()])
    kinds = {name: type(vars(FixedTestOp)[name]) for name in ("lhs", "rhs", "res", "body")}
    assert kinds == {"lhs": FixedOperand, "rhs": FixedOperand, "res": FixedResult,
                     "body": FixedConstruct}
    assert op.lhs is value and op.rhs is other and op.res is op.results[0]
    assert op.body is op.regions[0]
    assert isinstance(FixedTestOp.lhs, FixedOperand)  # on the class: the descriptor itself
    with pytest.raises(NotImplementedError):
        op.lhs = other  # xDSL's: named constructs cannot be written
    assert install_fast_accessors(FixedTestOp) == 0  # once only


def test_an_eager_class_is_left_to_xdsl_until_installed():
    @operations.irdl_op_definition.eager  # xDSL's own decorator: not seen by the hook
    class EagerTestOp(IRDLOperation):
        name = "test.fixed_accessors_eager"
        lhs = operand_def(IndexType)

    assert type(vars(EagerTestOp)["lhs"]) is BeforeVariadicSingleAccessor
    assert install_fast_accessors(EagerTestOp) == 1
    assert type(vars(EagerTestOp)["lhs"]) is FixedOperand
