"""``Tx.nki``: the nki script namespace builds verified nki ops at the insertion point; the kernel
it builds runs in the interpreter and prints."""

from __future__ import annotations

import numpy as np
import pytest
import tirx_testing.trn  # noqa: F401  (loads the trn backend)

from tirx_mlir import registry
from tirx_mlir import script as Tx
from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.script.builder import ScriptError


def build_matmul_add():
    """C = A.T @ B + 1 over a K loop of two 128-row steps."""
    with Tx.kernel("mm", inputs={"A": Tx.buffer((256, 128), "bf16"),
                                 "B": Tx.buffer((256, 512), "bf16")},
                   outputs={"C": Tx.buffer((128, 512))}, target="aws/trn1/trn1.2xlarge") as k:
        A, B, C = k.args
        a = Tx.alloc((128, 2, 128), "bf16", scope="trn.sbuf", name="a")
        b = Tx.alloc((128, 2, 512), "bf16", scope="trn.sbuf", name="b")
        acc = Tx.alloc((128, 512), scope="trn.psum", name="acc")
        out = Tx.alloc((128, 512), scope="trn.sbuf", name="out")
        with Tx.range(0, 2) as kk:
            Tx.nki.load(a[:, kk, :], A[Tx.ds(kk * 128, 128), :])
            Tx.nki.load(b[:, kk, :], B[Tx.ds(kk * 128, 128), :])
            Tx.nki.matmul(acc, a[:, kk, :], b[:, kk, :], accumulate_if=Tx.nki.nonzero(kk))
        Tx.nki.tensor_scalar(out, acc, 1.0, op0="add")
        Tx.nki.store(C, out)
    return k.module


def test_namespace_is_registered_and_lists_every_op():
    from tirx_mlir.backends.trn.dialects.nki import NKI_OPS

    assert registry.script_namespaces.get("nki") is Tx.nki
    assert {op.name.split(".")[1] for op in NKI_OPS} <= set(dir(Tx.nki))


def test_built_kernel_verifies_runs_and_prints():
    module = build_matmul_add()
    module.verify()
    rng = np.random.default_rng(0)
    import ml_dtypes
    a = rng.standard_normal((256, 128)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((256, 512)).astype(ml_dtypes.bfloat16)
    (c,) = KernelRunner(module, "mm")(a, b)
    ref = a.astype(np.float64).T @ b.astype(np.float64) + 1
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-4)
    text = emit_nki(module)
    assert "accumulate=(i != 0)" in text


def test_integer_scalars_and_properties():
    with Tx.kernel("k", inputs={}, outputs={}, target="aws/trn1/trn1.2xlarge") as k:
        t = Tx.alloc((128, 64), "i32", scope="trn.sbuf")
        f = Tx.alloc((128, 64), scope="trn.sbuf")
        Tx.nki.memset(t, 7)
        Tx.nki.tensor_scalar(t, t, 3, op0="right_shift", operand1=1, op1="bitwise_and")
        Tx.nki.iota(t, pattern=[[1, 64]], channel_multiplier=64)
        Tx.nki.affine_select(f, f, pattern=[[-1, 64]], channel_multiplier=1,
                             cmp="greater_equal", on_false=float("-inf"))
        Tx.nki.tensor_reduce(f[:, 0:1], f, op="maximum", axes=[-1], keepdims=True)
    k.module.verify()
    text = str(k.module)
    assert "nki.memset %" in text and ": !tirx.buffer<128x64xi32, trn.sbuf>, i32" in text
    assert "op0 right_shift operand1" in text and "on_false -inf" in text


def test_limits_are_reported_at_the_call():
    with Tx.kernel("k", inputs={}, outputs={}, target="aws/trn1/trn1.2xlarge"):
        w = Tx.alloc((128, 256), "bf16", scope="trn.sbuf")
        x = Tx.alloc((128, 512), "bf16", scope="trn.sbuf")
        acc = Tx.alloc((256, 512), scope="trn.psum")
        with pytest.raises(ScriptError, match="spans 256 partitions"):
            Tx.nki.matmul(acc, w, x)
        with pytest.raises(ScriptError, match="has no operand or property 'op'"):
            Tx.nki.tensor_scalar(x, x, 1.0, op="add")
        with pytest.raises(AttributeError, match="Tx.nki has no op 'gemm'"):
            Tx.nki.gemm  # noqa: B018
