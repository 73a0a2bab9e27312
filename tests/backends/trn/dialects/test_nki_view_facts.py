"""The nki ops' verification keyed by what their checks read of each view
(`checks.tile_view_facts`, `checks.psum_view_facts`, ``NkiOp.VERIFY_VIEW_FACTS``).

The key leaves out what the checks do not read (the buffer viewed, beyond its type; the free
offsets; the values an offset is computed from), so ops differing only in that share one verdict.
Each test that breaks an op checks that the verifier which verified the whole pipeline (its memo
full) still reports it after the pass that did it, with the plain verifier's error: an op mutated
in place (a property replaced, an operand retyped), an operand redirected to another view, a view
moved in place under an op the pass does not name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, StringAttr
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.backends.trn.dialects.nki.movement import LoadOp
from tirx_mlir.backends.trn.dialects.nki.tensor_engine import MatmulOp
from tirx_mlir.dialects.tirx.access import resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import SliceOp
from tirx_mlir.dominance import check_dominance
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_mlir.verification import ModuleVerifier, VerdictMismatch
from tirx_testing.reports import ReportingPass

ROOT = Path(__file__).resolve().parents[4]
T = 'target "aws/trn1/trn1.2xlarge"'


def lowered(name: str):
    """examples/trn/``name`` after the trn pipeline, and the verifier that verified it after
    each pass (``compare`` and the audit on)."""
    ctx = make_context()
    module = parse_module((ROOT / "examples" / "trn" / f"{name}.mlir").read_text(), name, ctx)
    verifier = ModuleVerifier()
    verifier.compare = verifier.audit = True
    get_pipeline("trn").apply(module, ctx, verifier=verifier)
    return module, verifier


def plain_error(module) -> str:
    with pytest.raises(VerifyException) as err:
        check_dominance(module)
        module.verify()
    return str(err.value)


def caught_after(module, verifier, edit) -> str:
    verifier.run_pass(ReportingPass(edit), None, module)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert not isinstance(err.value, VerdictMismatch)
    assert str(err.value) == plain_error(module)
    return str(err.value)


def ops(module, name: str) -> list:
    return [op for op in module.walk() if op.name == name]


def the_slice(module, offsets: tuple[int, int], sizes: tuple[int, int]) -> SliceOp:
    return next(op for op in ops(module, "tirx.slice")
                if tuple(DenseArrayBase.get_values(op.static_offsets)) == offsets
                and op.sizes() == sizes and op.source.type.scope_name == "trn.sbuf")


def counted_verifier() -> ModuleVerifier:
    """A verifier without ``compare`` (`COMPARE_ENV`), whose plain verification would run every
    check again."""
    verifier = ModuleVerifier()
    verifier.compare = False
    return verifier


def counting(monkeypatch, cls) -> list:
    """The ops whose ``verify_nki`` ran."""
    seen: list = []
    original = cls.verify_nki
    monkeypatch.setattr(cls, "verify_nki", lambda op, limits: (seen.append(op),
                                                               original(op, limits))[1])
    return seen


# ---- the facts ------------------------------------------------------------------------------
TWO_TILES = f"""
tirx.kernel @k(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] {T} {{
  %x = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %c = arith.constant 64 : index
  %0 = tirx.slice %x[0, 0] [32, 64] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<32x64xf32, trn.sbuf>
  %1 = tirx.slice %y[0, 256] [32, 64] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<32x64xf32, trn.sbuf>
  %2 = tirx.slice %x[32, 0] [32, 64] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<32x64xf32, trn.sbuf>
  %3 = tirx.slice %x[0, %c] [32, 64] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<32x64xf32, trn.sbuf>
  %4 = tirx.slice %x[%c, 0] [32, 64] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<32x64xf32, trn.sbuf>
  %5 = tirx.slice %x[0, 0] [32, 64] strides [1, 2] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<32x64xf32, trn.sbuf>
  tirx.return
}}
"""


def test_the_facts_leave_out_the_buffer_and_the_free_offsets_only():
    module = parse_module(TWO_TILES)
    facts = [checks.tile_view_facts(resolve_access(op.result)) for op in ops(module, "tirx.slice")]
    same_x, other_buffer, partition_32, free_value, partition_value, strided = facts
    assert other_buffer == same_x == free_value  # another buffer / free offset: one verdict
    assert partition_32 != same_x and partition_32[2] == 32  # the partition start is read
    assert partition_value[2] == 64  # folded: the constant's number
    assert strided != same_x  # the steps are read
    psum = [checks.psum_view_facts(resolve_access(op.result)) for op in ops(module, "tirx.slice")]
    assert psum[0] != psum[1]  # the matmul's bank check reads every numeric offset


def test_nki_ops_on_other_buffers_and_free_offsets_share_one_check(monkeypatch):
    text = f"""
tirx.kernel @k(%A: !tirx.buffer<128x1024xf32, global>) -> (%B: !tirx.buffer<128x1024xf32, global>) grid [1] threads [1] {T} {{
  %x = tirx.alloc : !tirx.buffer<128x1024xf32, trn.sbuf>
  %y = tirx.alloc : !tirx.buffer<128x1024xf32, trn.sbuf>
  %0 = tirx.slice %x[0, 0] [128, 512] : !tirx.buffer<128x1024xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
  %1 = tirx.slice %A[0, 0] [128, 512] : !tirx.buffer<128x1024xf32, global> -> !tirx.buffer<128x512xf32, global>
  nki.load %0, %1 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  %2 = tirx.slice %y[0, 512] [128, 512] : !tirx.buffer<128x1024xf32, trn.sbuf> -> !tirx.buffer<128x512xf32, trn.sbuf>
  %3 = tirx.slice %A[0, 512] [128, 512] : !tirx.buffer<128x1024xf32, global> -> !tirx.buffer<128x512xf32, global>
  nki.load %2, %3 : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  tirx.return
}}
"""
    seen = counting(monkeypatch, LoadOp)
    counted_verifier().verify(parse_module(text))
    assert len(seen) == 1
    parse_module(text).verify()  # the plain verifier checks both
    assert len(seen) == 3


def test_a_matmul_crossing_a_bank_at_another_free_offset_is_not_given_the_others_verdict():
    """Two matmuls alike but for their output's free offset: the second crosses a PSUM bank
    (bytes [1024, 3071] of each partition); `checks.psum_view_facts` keeps their keys apart."""
    ps = "!tirx.buffer<128x1024xf32, trn.psum>"
    out = "!tirx.buffer<128x512xf32, trn.psum>"
    sb = "!tirx.buffer<128x128xf32, trn.sbuf>"
    mv = "!tirx.buffer<128x512xf32, trn.sbuf>"
    text = f"""
tirx.kernel @k(%A: !tirx.buffer<128x128xf32, global>) -> (%B: !tirx.buffer<128x128xf32, global>) grid [1] threads [1] {T} {{
  %a = tirx.alloc {{trn.addr = 0 : i64}} : {sb}
  %b = tirx.alloc {{trn.addr = 512 : i64}} : {mv}
  %p = tirx.alloc {{trn.addr = 0 : i64}} : {ps}
  %0 = tirx.slice %p[0, 0] [128, 512] : {ps} -> {out}
  nki.matmul %0, %a, %b : {out}, {sb}, {mv}
  %1 = tirx.slice %p[0, 256] [128, 512] : {ps} -> {out}
  nki.matmul %1, %a, %b : {out}, {sb}, {mv}
  tirx.return
}}
"""
    module = parse_module(text)
    with pytest.raises(VerifyException, match="bank boundary") as err:
        ModuleVerifier().verify(module)
    assert str(err.value) == plain_error(module)


# ---- a pass breaking an nki op, after a whole pipeline ------------------------------------
def test_a_view_moved_in_place_under_an_unnamed_op_is_caught():
    """A pass moves a slice to partition 16 and names only the slice: the loads and reductions
    reading it (104 partitions: they must start at partition 0) are reached through it, and
    their key holds the new partition offset, so they are checked again."""
    module, verifier = lowered("softmax_1000x1000")

    def edit(module, log):
        view = the_slice(module, (0, 7000), (104, 1000))
        view.properties["static_offsets"] = DenseArrayBase.from_list(IntegerType(64), [16, 7000])
        log.changed(view)

    assert "starts at partition 16" in caught_after(module, verifier, edit)


def test_an_operand_redirected_to_another_view_is_caught():
    module, verifier = lowered("softmax_1000x1000")

    def edit(module, log):
        view = the_slice(module, (0, 7000), (104, 1000))
        load = next(use.operation for use in view.result.uses if use.operation.name == "nki.load")
        moved = SliceOp(view.source, [16, 7000], [104, 1000])
        load.parent.insert_op_before(moved, load)
        load.operands = [moved.result, *load.operands[1:]]
        log.changed(load)

    assert "starts at partition 16" in caught_after(module, verifier, edit)


def test_an_operand_redirected_to_a_view_with_the_same_facts_keeps_its_verdict(monkeypatch):
    """The same tile at another free offset: nothing the load's checks read changed, so they do
    not run again, and the verdict (valid) is the plain verifier's."""
    module, verifier = lowered("softmax_1000x1000")

    def edit(module, log):
        view = the_slice(module, (0, 7000), (104, 1000))
        load = next(use.operation for use in view.result.uses if use.operation.name == "nki.load")
        moved = SliceOp(view.source, [0, 6000], [104, 1000])
        load.parent.insert_op_before(moved, load)
        load.operands = [moved.result, *load.operands[1:]]
        log.changed(load)

    verifier.compare = False  # the plain verifier would run every check
    seen = counting(monkeypatch, LoadOp)
    verifier.run_pass(ReportingPass(edit), None, module)
    verifier.check(module)
    assert seen == []
    module.verify()  # the plain verifier accepts it too
    assert len(seen) == len(ops(module, "nki.load"))


def test_a_property_replaced_in_place_is_caught():
    module, verifier = lowered("matmul_512")

    def edit(module, log):
        copy = ops(module, "nki.tensor_copy")[0]  # reads PSUM, which GpSimd cannot
        copy.properties["engine"] = StringAttr("gpsimd")
        log.changed(copy, inside=False)

    assert "GpSimd cannot access PSUM" in caught_after(module, verifier, edit)


def test_an_operand_retyped_in_place_is_caught():
    """The PSUM accumulator retyped to bf16 (NeuronCore-v2 matmuls write f32): the matmul reads
    it directly, the tensor_copy too (a bf16 -> f32 copy is valid)."""
    module, verifier = lowered("matmul_512")

    def edit(module, log):
        matmul = ops(module, "nki.matmul")[0]
        acc = matmul.operands[0]
        assert acc.owner.name == "tirx.alloc"
        from xdsl.dialects.builtin import BFloat16Type

        t = acc.type
        acc._type = BufferType(t.get_shape(), BFloat16Type(), t.scope_name)  # noqa: SLF001
        log.changed(acc.owner)

    assert "the PSUM output holds bf16" in caught_after(module, verifier, edit)


def test_the_matmul_checks_again_for_a_new_psum_address(monkeypatch):
    """What the matmul's key reads of its allocation (``trn.addr``) besides the facts."""
    module, verifier = lowered("matmul_512")
    verifier.compare = False  # the plain verifier would run every check
    seen = counting(monkeypatch, MatmulOp)

    def edit(module, log):
        acc = ops(module, "nki.matmul")[0].operands[0].owner
        from xdsl.dialects.builtin import IntegerAttr, i64

        acc.attributes["trn.addr"] = IntegerAttr(0, i64)  # the same address, a new attribute
        log.changed(acc)

    verifier.run_pass(ReportingPass(edit), None, module)
    verifier.check(module)
    assert seen == []  # an equal address: the same key


# ---- the rules that read no view, once per signature (``NkiOp.VERIFY_VIEW_RULES``) -----------
def test_an_op_alike_but_for_its_views_runs_only_the_rules_reading_views(monkeypatch):
    """Two loads of one type into 32-partition tiles at partitions 0 and 32 (both valid starts):
    their keys differ (the partition offset), their types do not, so the second runs
    `NkiOp.verify_views` (the per-tile rules) and not `verify_nki`."""
    sb = "!tirx.buffer<32x64xf32, trn.sbuf>"
    text = f"""
tirx.kernel @k(%A: !tirx.buffer<32x64xf32, global>) -> (%B: !tirx.buffer<32x64xf32, global>) grid [1] threads [1] {T} {{
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %0 = tirx.slice %x[0, 0] [32, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> {sb}
  nki.load %0, %A : {sb}, !tirx.buffer<32x64xf32, global>
  %1 = tirx.slice %x[32, 0] [32, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> {sb}
  nki.load %1, %A : {sb}, !tirx.buffer<32x64xf32, global>
  tirx.return
}}
"""
    own = counting(monkeypatch, LoadOp)
    views: list = []
    original = LoadOp.verify_views
    monkeypatch.setattr(LoadOp, "verify_views", lambda op: (views.append(op), original(op))[1])
    counted_verifier().verify(parse_module(text))
    assert len(own) == 1 and len(views) == 1 and views[0] is not own[0]


def test_a_bad_partition_start_in_an_op_alike_but_for_its_views_is_caught():
    sb = "!tirx.buffer<32x64xf32, trn.sbuf>"
    text = f"""
tirx.kernel @k(%A: !tirx.buffer<32x64xf32, global>) -> (%B: !tirx.buffer<32x64xf32, global>) grid [1] threads [1] {T} {{
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %0 = tirx.slice %x[0, 0] [32, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> {sb}
  nki.load %0, %A : {sb}, !tirx.buffer<32x64xf32, global>
  %1 = tirx.slice %x[16, 0] [32, 64] : !tirx.buffer<128x64xf32, trn.sbuf> -> {sb}
  nki.load %1, %A : {sb}, !tirx.buffer<32x64xf32, global>
  tirx.return
}}
"""
    module = parse_module(text)
    with pytest.raises(VerifyException, match="starts at partition 16") as err:
        ModuleVerifier().verify(module)
    assert str(err.value) == plain_error(module)
