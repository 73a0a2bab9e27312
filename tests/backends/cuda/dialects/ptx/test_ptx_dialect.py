"""The ptx dialect: every table variant round-trips in custom and generic form; the verifier
rejects bad modifiers, immediates, operands and targets with a message naming the rule; render
produces the exact PTX text and refuses register names that are not PTX identifiers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tirx_testing.ptx_kernels import in_module, instance
from tirx_testing.trn import parse, print_ir
from xdsl.dialects import test
from xdsl.dialects.builtin import Float32Type, IntegerAttr, IntegerType, StringAttr, i64
from xdsl.utils.exceptions import ParseError, VerifyException

from tirx_mlir.backends.cuda.dialects.ptx import OPS_BY_ROW, PTX_OPS, forms
from tirx_mlir.backends.cuda.dialects.ptx.ops import make
from tirx_mlir.backends.cuda.dialects.ptx.render import (RenderError, register_types, render,
                                                         tied_values)
from tirx_mlir.backends.cuda.dialects.ptx.table import ROWS


def test_one_op_per_row_each_in_the_filecheck_round_trip():
    assert [op.name for op in PTX_OPS] == [f"ptx.{row.name}" for row in ROWS]
    assert len({row.name for row in ROWS}) == len(ROWS)
    ops_mlir = (Path(__file__).resolve().parents[4] / "filecheck" / "backends" / "cuda" /
                "dialects" / "ptx" / "ops.mlir").read_text()
    source, checks = ops_mlir.split("// CHECK:", 1)
    for part in (source, checks):
        missing = {r.name for r in ROWS} - set(re.findall(r"\bptx\.(\w+)", part))
        assert not missing, f"rows without a line in filecheck/.../ptx/ops.mlir: {missing}"


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_every_variant_round_trips(row):
    variants = forms.representative_variants(row, exhaustive_up_to=32)
    assert variants, f"{row.name} has no legal variant"
    for mods in variants:
        assert forms.parse_mods(row, forms.format_mods(row, mods)) == \
            {k: v for k, v in mods.items() if k in {s.name for s in row.slots}}
    module = in_module([instance(row.name, mods) for mods in variants])
    for generic in (False, True):
        text = print_ir(module, generic)
        assert print_ir(parse(text), generic) == text


def _values(*types):
    return list(test.TestOp(result_types=list(types)).results)


I32, I64, F32 = IntegerType(32), IntegerType(64), Float32Type()


def _error(op) -> str:
    with pytest.raises(VerifyException) as info:
        op.verify()
    return str(info.value)


@pytest.mark.parametrize("row, operands, mods, message", [
    ("ld", [I64], {"space": "global", "type": "f8"}, "'f8' is not a valid 'type' modifier"),
    ("ld", [I64], {"space": "global"}, "needs its 'type' modifier"),
    ("ld", [I64], {"space": "shared", "nc": "nc", "type": "f32"}, ".nc is for weak .global"),
    ("ld", [I64], {"sem": "acquire", "space": "global", "type": "b32"}, "need a scope"),
    ("cvt", [F32], {"dtype": "s32", "atype": "f32"}, "needs an integer rounding"),
    ("mma_sync", [I32] * 10, {"shape": "m16n8k8", "dtype": "f32", "atype": "s8", "btype": "s8",
                              "ctype": "f32"}, "is not a supported form"),
    ("cp_async", [I32, I64], {"cache": "cg", "space": "shared", "cp_size": 8},
     "cp.async.cg copies 16 bytes"),
    ("cp_async", [I32, I64], {"cache": "ca", "space": "shared", "cp_size": 12},
     "must be one of 4, 8, 16"),
    ("setmaxnreg", [], {"action": "inc", "count": 300}, "must be in \\[24, 256\\]"),
    ("setmaxnreg", [], {"action": "inc", "count": 100}, "multiple of 8"),
    ("wgmma_wait_group", [], {}, "needs the integer immediate 'n'"),
    ("redux_sync", [F32], {"op": "add", "type": "f32", "membermask": 1}, ".min/.max only"),
])
def test_modifier_rules(row, operands, mods, message):
    """The verifier (e.g. of an op read in generic form) and the builder state the same rule."""
    props = {k: IntegerAttr(v, i64) if isinstance(v, int) else StringAttr(v)
             for k, v in mods.items()}
    raw = OPS_BY_ROW[row].build(operands=[_values(*operands)], result_types=[[]],
                                properties=props)
    with pytest.raises(VerifyException, match=message):
        raw.verify()
    with pytest.raises(forms.ModifierError, match=message):
        make(row, _values(*operands), **mods)


def test_operand_count_and_types():
    ld = make("ld", _values(F32), space="global", type="f32")
    assert "operand 'addr' of ptx.ld must be i32 or i64 (an address), got f32" in _error(ld)
    st = make("st", _values(I64, I32), space="global", vec="v2", type="f32")
    assert "takes 3 operands (addr x1, src x2), got 2" in _error(st)
    mov = make("mov", _values(F32), type="s32")
    assert "operand 'src' of ptx.mov must be i32 (.s32), got f32" in _error(mov)


@pytest.mark.parametrize("text, message", [
    ('ptx.ld "global.f33" [%p] : (i64) -> f32', "expects its 'type' modifier .* got 'f33'"),
    ('ptx.ld "f32" [%p] : (i64) -> f32', "expects its 'space' modifier"),
    ('ptx.ld "global.v2.f32" [%p] : (i64) -> (f32, f32, f32)', "takes 2 results"),
    ('ptx.cp_async_wait_group : () -> ()', "integer"),
])
def test_custom_syntax_errors(text, message):
    with pytest.raises((ParseError, VerifyException), match=message):
        parse('%p = "test.op"() : () -> i64\n' + text)


def _kernel(target: str, body: str) -> str:
    return (f'tirx.kernel @k() grid [1] threads [128] target "{target}" {{\n{body}\n'
            f'  tirx.return\n}}')


def test_arch_comes_from_the_kernel_target():
    body = "  ptx.wgmma_fence"
    parse(_kernel("cuda -arch=sm_90a", body))
    with pytest.raises(VerifyException, match="needs sm_90a \\(PTX ISA 8.0\\); the kernel "
                                              "targets sm_90\\n"):
        parse(_kernel("cuda -arch=sm_90", body))
    with pytest.raises(VerifyException, match="ptx instructions need a cuda target"):
        parse(_kernel("aws/trn1/trn1.2xlarge", body))
    fp8 = ('  %a = "test.op"() : () -> i32\n  %c = "test.op"() : () -> f32\n'
           '  %d:4 = ptx.mma_sync "m16n8k32.f32.e4m3.e4m3.f32" {%a, %a, %a, %a}, {%a, %a}, '
           '{%c, %c, %c, %c} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> '
           '(f32, f32, f32, f32)')
    parse(_kernel("nvidia/nvidia-l4", fp8))
    with pytest.raises(VerifyException, match="needs sm_89 or newer \\(PTX ISA 8.4\\); the "
                                              "kernel targets sm_80"):
        parse(_kernel("nvidia/nvidia-a100", fp8))


def test_a_verdict_is_remembered_per_target():
    """verify_ remembers each (op, types, target) verdict: a repeat gives the same answer, and
    the same op under another target is judged afresh."""
    body = "  ptx.wgmma_fence"
    for _ in range(2):
        parse(_kernel("cuda -arch=sm_90a", body))
        with pytest.raises(VerifyException, match="needs sm_90a"):
            parse(_kernel("cuda -arch=sm_90", body))
    load = '  %p = "test.op"() : () -> i64\n  %x = ptx.ld "global.f32" [%p] : (i64) -> {}'
    for _ in range(2):
        with pytest.raises(VerifyException, match="result 'dst' of ptx.ld must be f32, got i32"):
            parse(_kernel("cuda -arch=sm_80", load.format("i32")))
        parse(_kernel("cuda -arch=sm_80", load.format("f32")))


def _names(op):
    names = {}
    return lambda v: names.setdefault(v, f"%r{len(names)}")


def test_render_text():
    ld = make("ld", _values(I64), space="global", nc="nc", l1="L1::no_allocate", vec="v4",
              type="f32")
    assert render(ld, _names(ld)) == "ld.global.nc.L1::no_allocate.v4.f32 {%r0, %r1, %r2, %r3}, " \
                                     "[%r4];"
    elect = make("elect_sync", [], membermask=0xFFFFFFFF)
    assert render(elect, _names(elect)) == "elect.sync %r0|%r1, 4294967295;"
    tma = make("cp_async_bulk_tensor_g2s", _values(I32, I64, I32, I32, I32), dim="2d",
               space="shared::cluster")
    assert render(tma, _names(tma)) == ("cp.async.bulk.tensor.2d.shared::cluster.global"
                                        ".mbarrier::complete_tx::bytes [%r0], [%r1, {%r2, "
                                        "%r3}], [%r4];")
    ldm = make("ldmatrix", _values(I64), num="x1", space="shared")
    assert render(ldm, _names(ldm)) == "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r0}, [%r1];"


def test_render_ties_the_wgmma_accumulator_and_keeps_immediates():
    acc = _values(*[F32] * 4)
    wg = make("wgmma_mma_async_ss", [*acc, *_values(I64, I64, IntegerType(1))], shape="m64n8k16",
              dtype="f32", atype="f16", btype="f16", scale_a=1, scale_b=-1, tnsp_a=0, tnsp_b=1)
    wg.verify()
    assert [operand for _, operand in tied_values(wg)] == acc
    names = {v: f"%f{i}" for i, v in enumerate(acc)}
    names.update({r: names[o] for r, o in tied_values(wg)})
    names.update(zip(wg.args[4:], ("%rd1", "%rd2", "%p1")))
    assert render(wg, names.__getitem__) == (
        "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f0, %f1, %f2, %f3}, %rd1, %rd2, "
        "%p1, 1, -1, 0, 1;")


def test_render_refuses_what_is_not_a_register_name():
    mov = make("mov", _values(I32), type="b32")
    with pytest.raises(RenderError, match="is not a PTX register name"):
        render(mov, lambda v: "%r1; trap")
    with pytest.raises(RenderError, match="'_' is not a PTX register name"):
        render(mov, lambda v: "_")
    arrive = make("mbarrier_arrive", _values(I32), space="shared::cta")
    names = {arrive.res[0]: "_", arrive.args[0]: "%r1"}
    assert render(arrive, names.__getitem__) == "mbarrier.arrive.shared::cta.b64 _, [%r1];"


def test_render_never_emits_an_unchecked_modifier():
    ld = make("ld", _values(I64), space="global", type="f32")
    ld.properties["type"] = type(ld.properties["type"])("f32; trap")
    with pytest.raises(RenderError, match="is not a valid 'type' modifier"):
        render(ld, lambda v: "%r1")


def test_an_op_that_does_not_verify_still_prints():
    module = parse('%p = "test.op"() : () -> i64\n'
                   '%v = "ptx.ld"(%p) <{space = "global", type = "f8"}> : (i64) -> f32',
                   verify=False)
    assert 'ptx.ld "global.f8" %p : (i64) -> f32' in print_ir(module)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_the_modifier_string_is_unambiguous(row):
    """An optional slot shares no choice with a later slot, so parse_mods can assign every
    token of every variant (not only the enumerated ones) to the slot it came from."""
    for i, slot in enumerate(row.slots):
        if slot.optional:
            for later in row.slots[i + 1:]:
                assert not set(slot.choices) & set(later.choices), (slot.name, later.name)


def test_register_types_for_the_printers():
    tma = make("cp_async_bulk_tensor_g2s", _values(I32, I64, I32, I32, I32), dim="2d",
               space="shared::cluster")
    assert list(register_types(tma).values()) == ["b32", "b64", "b32", "b32", "b32"]
    mma = make("mma_sync", _values(*[I32] * 6, *[F32] * 4), shape="m16n8k16", dtype="f32",
               atype="f16", btype="f16", ctype="f32")
    types = register_types(mma)
    assert [types[v] for v in mma.res] == ["f32"] * 4
    assert [types[v] for v in mma.args] == ["b32"] * 6 + ["f32"] * 4


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r.name)
def test_make_builds_the_op_xdsls_builder_builds(row):
    """`make` fills the op's fields itself (no `irdl_op_init`): the same class, operands and
    their uses, result types, properties in the same order, attributes and location as
    ``build``'s, for every representative variant of every row."""
    for mods in forms.representative_variants(row, exhaustive_up_to=8):
        places = forms.places(row, mods)
        types = [I64 if p.operand.kind in ("addr", "tensor") else I32 for p in places
                 if p.operand.rw != "w" for _ in range(p.values)]
        operands = _values(*types)
        made = make(row.name, operands, **mods)
        props = {k: IntegerAttr(v, i64) if isinstance(v, int) else StringAttr(str(v))
                 for k, v in mods.items() if v is not None}
        built = OPS_BY_ROW[row.name].build(operands=[operands], result_types=[
            [r.type for r in made.results]], properties=props)
        assert type(made) is type(built)
        assert list(made.operands) == list(built.operands) == operands
        assert [u.operation for v in operands for u in v.uses].count(made) == len(operands)
        assert [r.type for r in made.results] == [r.type for r in built.results]
        assert [r.owner for r in made.results] == [made] * len(made.results)
        assert list(made.properties.items()) == list(built.properties.items())
        assert made.attributes == built.attributes and made.location == built.location
        assert made.parent is None and not made.regions and not made.successors
