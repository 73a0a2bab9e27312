"""`tirx_mlir.verification`: ops of a ``VERIFY_FINGERPRINT_LATER`` class (the tile primitives,
the nki ops) met new have no fingerprint (`verification._unbuilt`); a later verification keys
them instead. An op so left is still found when it changes in place (its key reads what its
check reads), and the audit still finds one a pass changed without reporting it."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import StringAttr, UnitAttr
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.trn.dialects.nki.movement import StoreOp, TensorCopyOp
from tirx_mlir.backends.trn.dialects.nki.tensor_engine import MatmulOp
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp, int_array
from tirx_mlir.dialects.tirx.tile_ops import CopyOp
from tirx_mlir.located_parser import parse_module
from tirx_mlir.verification import ModuleVerifier, UnreportedChange
from tirx_testing.reports import ReportingPass

T = 'target "aws/trn1/trn1.2xlarge"'
SB = "!tirx.buffer<128x128xf32, trn.sbuf>"
PS = "!tirx.buffer<128x128xf32, trn.psum>"
G = "!tirx.buffer<128x128xf32, global>"
MATMUL = f"""
tirx.kernel @mm(%AT: {G}, %B: {G}) -> (%C: {G}) grid [1] threads [1] {T} {{
  %at = tirx.alloc {{trn.addr = 0 : i64}} : {SB}
  %b = tirx.alloc {{trn.addr = 512 : i64}} : {SB}
  %c = tirx.alloc {{trn.addr = 1024 : i64}} : {SB}
  nki.load %at, %AT : {SB}, {G}
  nki.load %b, %B : {SB}, {G}
  %p = tirx.alloc {{trn.addr = 0 : i64}} : {PS}
  nki.matmul %p, %at, %b : {PS}, {SB}, {SB}
  nki.tensor_copy %c, %p : {SB}, {PS}
  nki.store %C, %c : {G}, {SB}
  tirx.return
}}
"""
WARP = f"""
tirx.kernel @w(%A: {G}) -> (%B: {G}) grid [1] threads [32] {{
  tirx.copy warp %B, %A : {G}, {G}
  tirx.return
}}
"""


def ops_of(module, kind) -> list:
    return [op for op in module.walk() if isinstance(op, kind)]


def known_good(text: str):
    module = parse_module(text)
    verifier = ModuleVerifier()
    verifier.verify(module)
    return module, verifier


def fingerprint_of(verifier: ModuleVerifier, op):
    """The fingerprint of ``op``'s memo entry (its first item None: left unbuilt)."""
    entry = verifier._ops[id(op)]  # noqa: SLF001
    assert entry[0] is op
    return entry[1]


def is_unbuilt(verifier: ModuleVerifier, op) -> bool:
    return fingerprint_of(verifier, op)[0] is None


def error_of(verify, module) -> str:
    with pytest.raises(VerifyException) as err:
        verify(module)
    return str(err.value)


def assert_caught(verifier: ModuleVerifier, module, fragment: str) -> None:
    """The memoising verifier rejects ``module`` with the plain verifier's error."""
    got = error_of(verifier.verify, module)
    assert fragment in got
    assert got == error_of(lambda m: m.verify(), module)


def count_calls(monkeypatch, cls, method: str) -> list:
    calls: list = []
    original = getattr(cls, method)
    monkeypatch.setattr(cls, method, lambda self, *args: (calls.append(self),
                                                          original(self, *args))[1])
    return calls


def test_new_nki_and_tile_ops_are_left_unbuilt_others_are_not():
    module, verifier = known_good(MATMUL)
    nki = [op for op in module.walk() if op.name.startswith("nki.")]
    assert len(nki) == 5 and all(is_unbuilt(verifier, op) for op in nki)
    assert not any(is_unbuilt(verifier, op) for op in ops_of(module, AllocOp))
    assert fingerprint_of(verifier, nki[0])[2] is nki[0].parent  # its place is kept
    module, verifier = known_good(WARP)
    assert is_unbuilt(verifier, ops_of(module, CopyOp)[0])


def test_an_unbuilt_op_unchanged_is_keyed_and_found_without_a_check(monkeypatch):
    module, verifier = known_good(MATMUL)
    checks = count_calls(monkeypatch, ModuleVerifier, "_check")
    keyed: list = []
    local_key = ModuleVerifier._local_key
    monkeypatch.setattr(ModuleVerifier, "_local_key", lambda self, op, plan: (
        keyed.append(op.name), local_key(self, op, plan))[1])
    verifier.verify(module)
    assert checks == []  # found: the key of each is the one found valid
    assert set(keyed) >= {"nki.load", "nki.matmul", "nki.tensor_copy", "nki.store"}
    assert "tirx.alloc" not in keyed  # fingerprinted: compared, not keyed
    assert all(is_unbuilt(verifier, op) for op in ops_of(module, MatmulOp))


def _retype_psum(module) -> None:
    psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
    sbuf = ops_of(module, AllocOp)[0].result.type
    psum.result._type = sbuf  # noqa: SLF001 - in place, as a careless pass would


def _engine_gpsimd(module) -> None:
    ops_of(module, TensorCopyOp)[0].properties["engine"] = StringAttr("gpsimd")


def _redirect_stationary(module) -> None:
    matmul = ops_of(module, MatmulOp)[0]
    psum = matmul.operands[0]
    matmul.operands = [psum, psum, matmul.operands[2]]


def _bank_crossed(module) -> None:
    from xdsl.dialects.builtin import IntegerAttr, i64

    psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
    psum.attributes["trn.addr"] = IntegerAttr(1792, i64)


@pytest.mark.parametrize("change, fragment", [
    (_retype_psum, "psum"),  # an operand retyped in place
    (_engine_gpsimd, "GpSimd cannot access PSUM"),  # a property replaced
    (_redirect_stationary, ""),  # an operand redirected to a PSUM tile
    (_bank_crossed, "bank"),  # the allocation's address the matmul's bank rule reads
])
def test_an_unbuilt_op_changed_in_place_is_caught_with_the_plain_error(change, fragment):
    module, verifier = known_good(MATMUL)
    assert all(is_unbuilt(verifier, op) for op in module.walk() if op.name.startswith("nki."))
    change(module)
    got = error_of(verifier.verify, module)
    assert fragment.lower() in got.lower()
    assert got == error_of(lambda m: m.verify(), module)


def test_an_unbuilt_tile_op_sees_its_kernel_launch_change():
    module, verifier = known_good(WARP)
    assert is_unbuilt(verifier, ops_of(module, CopyOp)[0])
    ops_of(module, KernelOp)[0].properties["threads"] = int_array([16])
    assert_caught(verifier, module, "multiple of 32 threads")


def _audited(edit):
    module, verifier = known_good(MATMUL)
    verifier.audit = True
    verifier.run_pass(ReportingPass(edit), None, module)
    return module, verifier


def test_the_audit_finds_an_unbuilt_op_redirected_without_a_report():
    def edit(module, log):
        c = ops_of(module, AllocOp)[2]
        c.attributes["test.mark"] = UnitAttr()
        log.changed(c, inside=False)
        store = ops_of(module, StoreOp)[0]
        store.operands = [store.operands[0], ops_of(module, AllocOp)[0].result]  # not reported

    module, verifier = _audited(edit)
    with pytest.raises(UnreportedChange, match="nki.store"):
        verifier.check(module)


def test_the_audit_finds_an_unbuilt_op_given_another_key_without_a_report():
    def edit(module, log):
        copy = ops_of(module, TensorCopyOp)[0]
        copy.properties["engine"] = StringAttr("scalar")  # valid, but not reported
        log.changed(ops_of(module, AllocOp)[2], inside=False)

    module, verifier = _audited(edit)
    with pytest.raises(UnreportedChange, match="nki.tensor_copy"):
        verifier.check(module)


def test_the_audit_passes_unbuilt_ops_the_report_left_as_they_were():
    def edit(module, log):
        c = ops_of(module, AllocOp)[2]
        c.attributes["test.mark"] = UnitAttr()
        log.changed(c, inside=False)

    module, verifier = _audited(edit)
    verifier.check(module)
    verifier.check(module)
