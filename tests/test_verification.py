"""`tirx_mlir.verification.ModuleVerifier`: the memo of op checks never hides a new error.

Ops change in place during rewriting (attributes set, operands replaced, properties swapped), so
each test verifies a module (filling the memo), makes one such change that breaks a rule, and
expects the same verifier to report exactly what xDSL's plain ``module.verify()`` reports.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.trn.dialects.nki.tensor_engine import MatmulOp
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, SliceOp
from tirx_mlir.dialects.tirx.kernel import int_array
from tirx_mlir.dialects.tirx.tile_ops import CopyOp
from tirx_mlir.located_parser import parse_module
from tirx_mlir.verification import ModuleVerifier, reads_of

T = 'target "aws/trn1/trn1.2xlarge"'
SB = "!tirx.buffer<128x128xf32, trn.sbuf>"
PS = "!tirx.buffer<128x128xf32, trn.psum>"
G = "!tirx.buffer<128x128xf32, global>"
MATMUL = f"""
tirx.kernel @mm(%AT: {G}, %B: {G}) -> (%C: {G}) grid [1] threads [1] {T} {{
  %at = tirx.alloc {{trn.addr = 0 : i64}} : {SB}
  %b = tirx.alloc {{trn.addr = 512 : i64}} : {SB}
  %c = tirx.alloc {{trn.addr = 0 : i64}} : {SB}
  nki.load %at, %AT : {SB}, {G}
  nki.load %b, %B : {SB}, {G}
  %p = tirx.alloc {{trn.addr = 0 : i64}} : {PS}
  nki.matmul %p, %at, %b : {PS}, {SB}, {SB}
  nki.tensor_copy %c, %p : {SB}, {PS}
  nki.store %C, %c : {G}, {SB}
  tirx.return
}}
"""
SLICED = f"""
tirx.kernel @s(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] {T} {{
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.slice %a[0, 0] [128, 256] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x256xf32, trn.sbuf>
  tirx.return
}}
"""


def plain_error(module) -> str:
    with pytest.raises(VerifyException) as err:
        module.verify()
    return str(err.value)


def memo_error(verifier: ModuleVerifier, module) -> str:
    with pytest.raises(VerifyException) as err:
        verifier.verify(module)
    return str(err.value)


def ops_of(module, kind):
    return [op for op in module.walk() if isinstance(op, kind)]


def test_moving_an_allocation_is_seen_by_a_cached_matmul():
    module = parse_module(MATMUL)
    verifier = ModuleVerifier()
    verifier.verify(module)
    psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
    psum.attributes["trn.addr"] = IntegerAttr(1792, i64)  # 512 bytes from 1792: crosses a bank
    got = memo_error(verifier, module)
    assert "bank" in got
    assert got == plain_error(module)
    psum.attributes["trn.addr"] = IntegerAttr(0, i64)
    verifier.verify(module)  # the good state is still known good


def test_replacing_an_operand_is_seen_by_a_cached_load():
    module = parse_module(MATMUL)
    verifier = ModuleVerifier()
    verifier.verify(module)
    psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
    load = next(op for op in module.walk() if op.name == "nki.load")
    load.operands = [psum.result, load.operands[1]]  # DMA cannot write PSUM
    got = memo_error(verifier, module)
    assert "PSUM" in got
    assert got == plain_error(module)


def test_swapping_a_property_is_seen_by_a_cached_slice():
    module = parse_module(SLICED)
    verifier = ModuleVerifier()
    verifier.verify(module)
    view = ops_of(module, SliceOp)[0]
    view.properties["static_offsets"] = int_array([0, 384])  # 384 + 256 > 512
    got = memo_error(verifier, module)
    assert got == plain_error(module)


def test_a_structural_error_is_found_in_an_op_known_good():
    module = parse_module(SLICED)
    verifier = ModuleVerifier()
    verifier.verify(module)
    ret = next(op for op in module.walk() if op.name == "tirx.return")
    ret.detach()  # the slice now ends the kernel body, which needs a terminator
    got = memo_error(verifier, module)
    assert got == plain_error(module)


def test_unchanged_ops_are_checked_once(monkeypatch):
    calls = []
    original = MatmulOp.verify_nki
    monkeypatch.setattr(MatmulOp, "verify_nki", lambda self, limits: (calls.append(self),
                                                                      original(self, limits)))
    module = parse_module(MATMUL)
    calls.clear()
    verifier = ModuleVerifier()
    verifier.verify(module)
    verifier.verify(module)
    assert len(calls) == 1
    module.verify()
    assert len(calls) == 2  # the plain verifier checks it every time


def test_what_each_kind_of_op_states_it_reads():
    module = parse_module(MATMUL)
    matmul = ops_of(module, MatmulOp)[0]
    assert reads_of(matmul) == "views"
    assert reads_of(ops_of(module, AllocOp)[0]) == "local"
    assert reads_of(arith.ConstantOp(IntegerAttr(1, i64))) == "local"
    yield_op = scf.YieldOp()  # HasParent and IsTerminator check where the op is
    assert reads_of(yield_op) is None
    copy = parse_module(f"""
tirx.kernel @c(%A: {G}) -> (%B: {G}) grid [1] threads [1] {T} {{
  tirx.copy %B, %A : {G}, {G}
  tirx.return
}}""")
    assert reads_of(ops_of(copy, CopyOp)[0]) is None  # tile ops: verified in full every time


GUARDED = f"""
tirx.kernel @g(%A: !tirx.buffer<1000x512xf32, global>) -> (%B: !tirx.buffer<1000x512xf32, global>) grid [1] threads [1] {T} {{
  %n = arith.constant 100 : index
  %m = arith.constant 300 : index
  %v = tirx.slice %A[0, 0] [%n, 512] : !tirx.buffer<1000x512xf32, global> -> !tirx.buffer<128x512xf32, global>
  tirx.return
}}
"""


def test_a_guard_given_another_constant_is_checked_again():
    """A slice's constant guard is read from its defining constant: a slice with the same types
    and properties whose guard is another constant is a different check."""
    module = parse_module(GUARDED)
    verifier = ModuleVerifier()
    verifier.verify(module)
    too_big = [c for c in ops_of(module, arith.ConstantOp) if c.value.value.data == 300][0]
    ops_of(module, SliceOp)[0].operands[1] = too_big.result  # 300 rows, at most 128
    got = memo_error(verifier, module)
    assert "guarded size is 300" in got
    assert got == plain_error(module)
