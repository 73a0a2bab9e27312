"""The nvshmem dialect from Python: builders make ops that verify, the verifiers enforce
symmetric memory, element and signal types and the closed sets of groups, signal operations and
comparisons, and every op is covered by the lit round trips."""

from __future__ import annotations

import pathlib

import pytest
from tirx_testing.cuda import buffer, value
from xdsl.dialects.builtin import IndexType, f16, f32, i32, i64
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.cuda.dialects import nvshmem

LIT = pathlib.Path(__file__).parents[3] / "filecheck" / "backends" / "cuda" / "dialects" / "nvshmem"


def test_every_op_has_lit_round_trips_and_a_docstring_example():
    ops_text = (LIT / "ops.mlir").read_text()
    interop = (LIT / "mlir_interop.mlir").read_text()
    for op in nvshmem.NVSHMEM_OPS:
        assert f'"{op.name}"' in ops_text, f"{op.name} has no generic-form check"
        assert op.name in interop, f"{op.name} is not read back from mlir-opt"
        assert op.__doc__ and op.name in op.__doc__, f"{op.name} needs a docstring example"


def _rma(dest_scope="global", src_scope="global", src_elem=f32, n=IndexType(), pe=i32):
    return (buffer([256], f32, dest_scope), buffer([256], src_elem, src_scope), value(n), value(pe))


def test_builders_make_verified_ops():
    sig, one = buffer([1], i64), value(i64)
    ops = [
        nvshmem.MyPeOp(), nvshmem.NPesOp(),
        nvshmem.PutOp(*_rma(src_scope="shared"), group="warp", nbi=True),
        nvshmem.GetOp(buffer([256], f32, "shared.dyn"), buffer([256], f32), value(IndexType()),
                      value(i32), group="block"),
        nvshmem.PutSignalOp(*_rma()[:3], sig, one, value(i32), signal_op="add", nbi=True),
        nvshmem.SignalOpOp(sig, one, value(i32), signal_op="set"),
        nvshmem.SignalWaitUntilOp(sig, one, cmp="ge"),
        nvshmem.WaitUntilOp(buffer([1], i32), value(i32), cmp="ne"),
        nvshmem.BarrierAllOp(group="block"), nvshmem.SyncAllOp(), nvshmem.QuietOp(),
        nvshmem.FenceOp(),
    ]
    for op in ops:
        op.verify()
    assert ops[0].result.type == i32 and ops[6].result.type == i64
    assert ops[2].flag("nbi") and ops[2].name_prop("group") == "warp"
    assert ops[4].head == "add"


@pytest.mark.parametrize("op,message", [
    (lambda: nvshmem.PutOp(*_rma(dest_scope="shared")),
     "operand 'dest' is in shared, but it must be symmetric memory"),
    (lambda: nvshmem.GetOp(*_rma(src_scope="shared")),
     "operand 'source' is in shared, but it must be symmetric memory"),
    (lambda: nvshmem.PutOp(*_rma(src_elem=f16)), "dest holds f32 but source holds f16"),
    (lambda: nvshmem.PutOp(*_rma(n=i64)), "operand 'nelems' must be index, got i64"),
    (lambda: nvshmem.PutOp(*_rma(pe=i64)), "operand 'pe' must be i32, got i64"),
    (lambda: nvshmem.PutOp(*_rma(), group="cta"), "group 'cta' is not thread, warp or block"),
    (lambda: nvshmem.SignalOpOp(buffer([1], i32), value(i64), value(i32), signal_op="set"),
     "a signal is a 64-bit word: use an i64 buffer"),
    (lambda: nvshmem.SignalOpOp(buffer([1], i64), value(i64), value(i32), signal_op="or"),
     "signal_op 'or' is not set or add"),
    (lambda: nvshmem.SignalWaitUntilOp(buffer([1], i64), value(i64), cmp="gte"),
     "cmp 'gte' is not eq, ne, gt, ge, lt or le"),
    (lambda: nvshmem.WaitUntilOp(buffer([1], f32), value(f32), cmp="eq"),
     "a wait variable is i32, ui32 or i64"),
    (lambda: nvshmem.SyncAllOp(group="grid"), "group 'grid' is not thread, warp or block"),
])
def test_verifier_rejects(op, message):
    with pytest.raises(VerifyException) as info:
        op().verify()
    assert message in str(info.value)
