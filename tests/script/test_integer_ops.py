"""``Tx.udiv`` / ``urem`` / ``truncdiv`` / ``truncmod`` / ``cmp`` / ``zext``
(`tirx_mlir.script.integer_ops`): the arith op each builds, constants of the operand's type,
and the SIMT interpreter's answers."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import arith

from tirx_mlir import script as Tx

SM80 = "cuda -arch=sm_80"


@Tx.kernel(target=SM80, threads=(64,))
def integer_ops(X: Tx.Buffer[(64,), "i32"], Y: Tx.Out[(64,), "i32"], Z: Tx.Out[(64,), "i64"]):
    t = Tx.cuda.thread_idx("x")
    x = Tx.cuda.load(X, t)
    q = Tx.truncdiv(x, 3) + Tx.truncmod(x, 3) * 100
    if Tx.cmp("ult", t, 32):
        Tx.cuda.store(Y, Tx.udiv(t, 32) * 32 + Tx.urem(t, 32), q)
    else:
        Tx.cuda.store(Y, t, x)
    Tx.cuda.store(Z, t, Tx.zext(x, "i64"))


def test_each_function_builds_its_op():
    names = [op.name for op in integer_ops.ir.walk()]
    for op in (arith.DivSIOp, arith.RemSIOp, arith.DivUIOp, arith.RemUIOp, arith.ExtUIOp):
        assert op.name in names
    (cmp,) = [op for op in integer_ops.ir.walk() if isinstance(op, arith.CmpiOp)]
    assert cmp.predicate.value.data == 6  # ult


def test_c_semantics_on_negative_values():
    x = np.arange(-32, 32, dtype=np.int32)
    y, z = integer_ops.interpret(x)
    trunc_div = np.trunc(x / 3).astype(np.int32)
    want = trunc_div + (x - 3 * trunc_div) * 100
    np.testing.assert_array_equal(y[:32], want[:32])
    np.testing.assert_array_equal(y[32:], x[32:])
    np.testing.assert_array_equal(z, x.astype(np.int64) & 0xFFFFFFFF)  # zero-extended
