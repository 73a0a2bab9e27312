"""nki ops run prepared (`NkiFunctions.prepare_op`, what a plain run takes) and through their
xDSL implementations (what a run with listeners takes): the same values, the same errors."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.trn import buf, nki_kernel
from xdsl.interpreter import OpCounter

from tirx_mlir.backends.trn.interpreter import NkiFunctions
from tirx_mlir.interpreter import InterpretError, KernelRunner
from tirx_mlir.located_parser import parse_module

RNG = np.random.default_rng(11)
S = lambda shape, dt="f32": buf(shape, dt, "trn.sbuf")  # noqa: E731
P = lambda shape, dt="f32": buf(shape, dt, "trn.psum")  # noqa: E731

# a K loop of accumulating matmuls (views with a dynamic free offset), an engine op, a
# fused reduction and a copy back: the usual shape of a lowered kernel
BODY = f"""  %c2 = arith.constant 2 : index
  scf.for %k = %c0 to %c2 step %c1 {{
    %acc = arith.cmpi sgt, %k, %c0 : index
    %sv = tirx.slice %s[0, %k, 0] [128, 1, 64] : {S((128, 2, 64), 'bf16')} -> {S((128, 1, 64), 'bf16')}
    %mv = tirx.slice %m[0, %k, 0] [128, 1, 512] : {S((128, 2, 512), 'bf16')} -> {S((128, 1, 512), 'bf16')}
    nki.matmul %y, %sv, %mv accumulate_if %acc : {P((64, 512))}, {S((128, 1, 64), 'bf16')}, {S((128, 1, 512), 'bf16')}, i1
  }}
  nki.activation_reduce %z, %r, %y func exp : {S((64, 512))}, {S((64, 1))}, {P((64, 512))}
  nki.tensor_tensor %z, %z, %y op add : {S((64, 512))}, {S((64, 512))}, {P((64, 512))}"""


def _runner(body: str = BODY) -> KernelRunner:
    import ml_dtypes

    bf16 = np.dtype(ml_dtypes.bfloat16)
    inputs = {"s": (np.zeros((128, 2, 64), bf16), "trn.sbuf"),
              "m": (np.zeros((128, 2, 512), bf16), "trn.sbuf")}
    outputs = {"y": ((64, 512), "f32", "trn.psum"), "z": ((64, 512), "f32", "trn.sbuf"),
               "r": ((64, 1), "f32", "trn.sbuf")}
    text = nki_kernel(body, inputs, outputs, "aws/trn1/trn1.2xlarge")
    return KernelRunner(parse_module(text, "prepared.mlir"), "k")


def _arrays():
    import ml_dtypes

    bf16 = np.dtype(ml_dtypes.bfloat16)
    return (RNG.standard_normal((128, 2, 64)).astype(bf16),
            (RNG.standard_normal((128, 2, 512)) * 0.1).astype(bf16))


def test_every_nki_op_has_a_prepared_form():
    runner = _runner()
    functions = NkiFunctions()
    ops = [op for op in runner.kernel.walk() if op.name.startswith("nki.")]
    assert ops and all(functions.prepare_op(runner.interpreter, op) is not None for op in ops)


def test_prepared_and_listened_runs_give_the_same_bits():
    args = _arrays()
    prepared = _runner()(*args)
    listened_runner = _runner()
    counter = OpCounter()
    listened_runner.interpreter.listeners = (counter,)
    listened = listened_runner(*args)
    assert counter.ops["nki.matmul"] == 2  # it did run op by op through the implementations
    for a, b in zip(prepared, listened):
        np.testing.assert_array_equal(a, b)
    assert np.isfinite(prepared[1]).all()


@pytest.mark.parametrize("listened", [False, True])
def test_a_limit_violation_is_located_at_the_op_either_way(listened):
    # a matmul whose stationary has more than 128 columns breaks TensorE's limit
    body = (f"  nki.matmul %y, %s, %m : {P((64, 512))}, {S((128, 2, 64), 'bf16')}, "
            f"{S((128, 2, 512), 'bf16')}")
    runner = _runner(body)
    if listened:
        runner.interpreter.listeners = (OpCounter(),)
    with pytest.raises(InterpretError) as info:
        runner(*_arrays())
    assert info.value.op is not None and info.value.op.name == "nki.matmul"


# no run-time flag, no dynamic views: matmul, tensor_tensor and the DMA run their direct form
DIRECT_BODY = f"""  %s0 = tirx.slice %s[0, 0, 0] [128, 1, 64] : {S((128, 2, 64), 'bf16')} -> {S((128, 1, 64), 'bf16')}
  %m0 = tirx.slice %m[0, 1, 0] [128, 1, 512] : {S((128, 2, 512), 'bf16')} -> {S((128, 1, 512), 'bf16')}
  nki.matmul %y, %s0, %m0 : {P((64, 512))}, {S((128, 1, 64), 'bf16')}, {S((128, 1, 512), 'bf16')}
  nki.tensor_copy %z, %y : {S((64, 512))}, {P((64, 512))}
  nki.tensor_tensor %z, %z, %y op multiply : {S((64, 512))}, {S((64, 512))}, {P((64, 512))}
  nki.tensor_reduce %r, %z op add axes [1] keepdims : {S((64, 1))}, {S((64, 512))}"""


def test_direct_forms_give_the_bits_of_the_implementations():
    runner = _runner(DIRECT_BODY)
    functions = NkiFunctions()
    kinds = {op.name: functions.prepare_op(runner.interpreter, op).__qualname__
             for op in runner.kernel.walk() if op.name.startswith("nki.")}
    assert kinds["nki.matmul"].startswith("_direct_matmul")
    assert kinds["nki.tensor_tensor"].startswith("_direct_tensor_tensor")
    assert not kinds["nki.tensor_copy"].startswith("_direct")
    args = _arrays()
    prepared = runner(*args)
    listened_runner = _runner(DIRECT_BODY)
    listened_runner.interpreter.listeners = (OpCounter(),)
    for a, b in zip(prepared, listened_runner(*args)):
        np.testing.assert_array_equal(a, b)
    assert np.isfinite(prepared[1]).all()


# the ScalarE / VectorE ops a lowered softmax or layernorm runs, with every optional operand
# and flag their direct forms decode once: scale (a tile, a scalar), bias, negate, reverse, op1
ENGINE_BODY = f"""  %x = tirx.alloc : {S((64, 512))}
  %b = tirx.alloc : {S((64, 1))}
  %q = tirx.alloc : {S((64, 1))}
  nki.tensor_copy %x, %y : {S((64, 512))}, {P((64, 512))}
  nki.tensor_reduce %b, %x op maximum axes [1] negate keepdims : {S((64, 1))}, {S((64, 512))}
  nki.activation_reduce %z, %r, %x func exp bias %b : {S((64, 512))}, {S((64, 1))}, {S((64, 512))}, {S((64, 1))}
  nki.reciprocal %q, %r : {S((64, 1))}, {S((64, 1))}
  nki.tensor_scalar %z, %z, %q op0 multiply : {S((64, 512))}, {S((64, 512))}, {S((64, 1))}
  nki.tensor_scalar %x, %x, %b op0 subtract reverse0 operand1 %two op1 divide reverse1 : {S((64, 512))}, {S((64, 512))}, {S((64, 1))}, f32
  nki.activation %x, %x func tanh bias %b scale %q : {S((64, 512))}, {S((64, 512))}, {S((64, 1))}, {S((64, 1))}
  nki.activation %x, %x func sigmoid scale %two : {S((64, 512))}, {S((64, 512))}, f32
  nki.tensor_tensor %z, %z, %x op add : {S((64, 512))}, {S((64, 512))}, {S((64, 512))}"""


def test_engine_ops_run_direct_forms_with_the_bits_of_the_implementations():
    """What `_DIRECT` adds for ScalarE and VectorE: the op's properties decoded once, the
    same semantics functions on the positional values."""
    text = BODY.split("  nki.activation_reduce")[0] + ENGINE_BODY  # %two: nki_kernel's
    runner = _runner(text)
    functions = NkiFunctions()
    kinds = {op: functions.prepare_op(runner.interpreter, op).__qualname__
             for op in runner.kernel.walk() if op.name.startswith("nki.")}
    for name in ("activation", "activation_reduce", "reciprocal", "tensor_reduce",
                 "tensor_scalar"):
        ran = [k for op, k in kinds.items() if op.name == f"nki.{name}"]
        assert ran and all(k.startswith(f"_direct_{name}.") for k in ran), (name, ran)
    args = _arrays()
    prepared = runner(*args)
    listened_runner = _runner(text)
    counter = OpCounter()
    listened_runner.interpreter.listeners = (counter,)
    listened = listened_runner(*args)
    assert counter.ops["nki.tensor_scalar"] == 2 and counter.ops["nki.activation"] == 2
    for a, b in zip(prepared, listened):
        np.testing.assert_array_equal(a, b)
    assert np.isfinite(prepared[1]).all() and np.isfinite(prepared[2]).all()


def test_inputs_nki_ops_only_read_are_not_copied():
    from tirx_mlir.interpreter.launch import written_inputs

    assert written_inputs(_runner().kernel) == set()  # %in_s and %in_m are only loaded
    m_type = S((128, 2, 512), "bf16")
    body = (f"  %c = arith.constant 0.0 : f32\n  nki.memset %m, %c : {m_type}, f32\n"
            f"  nki.store %in_m, %m : {buf((128, 2, 512), 'bf16', 'global')}, {m_type}")
    runner = _runner(body)
    assert written_inputs(runner.kernel) == {1}  # the store writes %in_m
    s, m = _arrays()
    before = m.copy()
    runner(s, m)
    assert np.array_equal(m, before)  # written on a copy: the caller's array is untouched


def test_what_an_nki_op_writes_is_its_dsts(monkeypatch):
    """`written_buffers` (what the launch copies) and ``DSTS`` (what the op declares it writes)
    are one rule: an op that declares another written operand has it copied too."""
    from tirx_mlir.backends.trn.dialects import nki
    from tirx_mlir.interpreter.launch import written_inputs

    runner = _runner()
    store = next(op for op in runner.kernel.walk() if isinstance(op, nki.StoreOp))
    assert store.written_buffers() == [store.dst]
    monkeypatch.setattr(nki.LoadOp, "DSTS", ("dst", "src"))
    assert written_inputs(runner.kernel) != set()  # the loads now declare writing their src
