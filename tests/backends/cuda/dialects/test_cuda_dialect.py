"""The cuda dialect from Python: builders make ops that verify, the verifiers reject what CUDA
rejects (types, scopes, launch, architecture), every op is covered by the lit round trips, and
the backend registers the dialect and CUDA's memory scopes lazily."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest
from tirx_testing.cuda import buffer, value
from tirx_testing.trn import parse, print_ir
from xdsl.dialects.builtin import IndexType, VectorType, bf16, f16, f32, f64, i1, i32, i64
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.cuda.dialects import cuda
from tirx_mlir.backends.cuda.dialects.cuda.printf_format import conversions
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.rules import RuleError

LIT = pathlib.Path(__file__).parents[3] / "filecheck" / "backends" / "cuda" / "dialects" / "cuda"


def test_every_op_has_lit_round_trips_and_an_invalid_case_or_docstring_example():
    ops_text = (LIT / "ops.mlir").read_text()
    interop = (LIT / "mlir_interop.mlir").read_text()
    for op in cuda.CUDA_OPS:
        assert f"{op.name} " in ops_text or f"{op.name}\n" in ops_text, op.name
        assert f'"{op.name}"' in ops_text, f"{op.name} has no generic-form check"
        assert op.name in interop, f"{op.name} is not read back from mlir-opt"
        assert op.__doc__ and op.name in op.__doc__, f"{op.name} needs a docstring example"


def test_builders_make_verified_ops():
    mask, x, lane = value(i32), value(f32), value(i32)
    g, idx = buffer([1024], f32), value(IndexType())
    ops = [
        cuda.ThreadIdxOp(dim="x"),
        cuda.ShflSyncOp(mask, x, lane, mode="xor", width=16),
        cuda.VoteOp(mask, value(i1), mode="ballot", result_types=[i32]),
        cuda.WarpReduceOp(mask, x, op="max"),
        cuda.AtomicOp(g, idx, x, op="add", scope="cta"),
        cuda.AtomicCasOp(buffer([4], i32, "shared"), idx, lane, lane),
        cuda.LoadOp(g, idx, cache="cg", nc=True, result_types=[VectorType(f32, [4])]),
        cuda.StoreOp(g, idx, x, cache="cs"),
        cuda.FenceOp(scope="sys"),
        cuda.SharedAllocOp(align=128, result_types=[BufferType([64, 64], f16, "shared")]),
        cuda.DynamicSharedOp(offset=256, result_types=[BufferType([64], f32, "shared.dyn")]),
        cuda.PrintfOp("x=%f n=%lld\n", [x, value(i64)]),
        cuda.Clock64Op(),
        cuda.FastMathOp(x, func="rsqrt"),
        cuda.PackOp(x, x, result_types=[VectorType(bf16, [2])]),
        cuda.UnpackOp(value(VectorType(f16, [2])), result_types=[f32, f32]),
        cuda.CvtOp(x, round="rz", result_types=[bf16]),
    ]
    for op in ops:
        op.verify()
    assert ops[0].head == "x" and ops[0].result.type == IndexType()
    assert ops[1].result.type == f32 and ops[1].int_prop("width") == 16
    assert ops[4].result.type == f32 and ops[4].name_prop("scope") == "cta"
    assert ops[6].flag("nc")
    assert ops[9].nbytes() == 64 * 64 * 2 and ops[9].alignment() == 128


def test_builders_reject_a_missing_head_or_an_unknown_property():
    with pytest.raises(ValueError, match="needs mode= one of idx, up, down, xor"):
        cuda.ShflSyncOp(value(i32), value(f32), value(i32))
    with pytest.raises(ValueError, match="has no property 'lanes'"):
        cuda.LoadOp(buffer([8], f32), value(IndexType()), lanes=4, result_types=[f32])


@pytest.mark.parametrize("op,message", [
    (lambda: cuda.ShflSyncOp(value(i32), value(f32), value(i32), mode="idx", width=64),
     "width is 64; it must be a power of two, at least 1 and at most 32"),
    (lambda: cuda.ShflSyncOp(value(i64), value(f32), value(i32), mode="up"),
     "operand 'mask' must be i32, got i64"),
    (lambda: cuda.ElectSyncOp(value(i32), result_types=[i32]), "the result type must be i1"),
    (lambda: cuda.AtomicOp(buffer([4], f64), value(IndexType()), value(f64), op="exch"),
     "atomic exch on f64 does not exist"),
    (lambda: cuda.LoadOp(buffer([8], f32), value(IndexType()), nc=True,
                         result_types=[VectorType(f32, [3])]), "the result has 3 lanes"),
    (lambda: cuda.StoreOp(buffer([8], f32, "tmem"), value(IndexType()), value(f32)),
     "operand 'memory' is in tmem; it must be in global, shared, shared.dyn or local"),
    (lambda: cuda.AtomicOp(buffer([8], f32, "local"), value(IndexType()), value(f32), op="add"),
     "operand 'memory' is in local; it must be in global, shared or shared.dyn"),
    (lambda: cuda.SharedAllocOp(align=2, result_types=[BufferType([8], f32, "shared")]),
     "align is 2; it must be a power of two, at least 4"),
    (lambda: cuda.PrintfOp("%5s", [value(i32)]), "the format conversion '%5s'"),
    (lambda: cuda.CvtOp(value(f32), round="rn", result_types=[f64]), "f32 -> f64 is exact"),
    (lambda: cuda.CvtOp(value(f32), round="up", result_types=[f16]), "rounding 'up' is not"),
])
def test_verifier_rejects(op, message):
    with pytest.raises(VerifyException) as info:
        op().verify()
    assert message in str(info.value)


def _kernel(body: str, launch: str) -> str:
    return (f"tirx.kernel @k() {launch} {{\n  %m = \"test.op\"() : () -> i32\n{body}\n"
            "  tirx.return\n}\n")


def test_launch_rules_follow_the_kernel():
    wg = "  cuda.sync_warpgroup barrier 1"
    parse(_kernel(wg, "grid [1] threads [256]"))
    with pytest.raises(VerifyException, match="multiple of 128 threads, but the kernel "
                                              "launches 160"):
        parse(_kernel(wg, "grid [1] threads [160]"))
    parse(wg + "\n")  # outside a kernel the launch is unknown: no launch rule
    rank = "  %r = cuda.cluster_block_rank : index"
    parse(_kernel(rank, 'grid [4] threads [128] cluster [2] target "nvidia/nvidia-h100"'))
    with pytest.raises(VerifyException, match="not launched with clusters"):
        parse(_kernel(rank, 'grid [4] threads [128] target "nvidia/nvidia-h100"'))


def test_architecture_rules_follow_the_target():
    elect = "  %e = cuda.elect_sync %m : i32 -> i1"
    parse(_kernel(elect, 'grid [1] threads [32] target "cuda -arch=sm_90a"'))
    parse(_kernel(elect, "grid [1] threads [32]"))  # no target: no architecture rule
    with pytest.raises(VerifyException, match="elect.sync: not available before sm_90, but "
                                              "the target is sm_89"):
        parse(_kernel(elect, 'grid [1] threads [32] target "nvidia/nvidia-l4"'))
    module_target = ('builtin.module attributes {tirx.target = #tirx.target<"cuda -arch=sm_80">}'
                     ' {\n' + _kernel(elect, "grid [1] threads [32]") + "}\n")
    with pytest.raises(VerifyException, match="the target is sm_80"):
        parse(module_target)


def test_dynamic_shared_fits_the_targets_shared_memory():
    view = "  %s = cuda.dynamic_shared offset 0 : !tirx.buffer<40960xf32, shared.dyn>"  # 160 KiB
    parse(_kernel(view, 'grid [1] threads [32] target "nvidia/nvidia-h100"'))  # 227 KiB
    with pytest.raises(VerifyException, match="the target allows 101376 bytes"):
        parse(_kernel(view, 'grid [1] threads [32] target "nvidia/nvidia-l4"'))  # 99 KiB


def test_custom_and_generic_forms_round_trip():
    text = (LIT / "ops.mlir").read_text().split("// -----")[0]
    module = parse(text)
    custom = print_ir(module)
    assert print_ir(parse(custom)) == custom
    generic = print_ir(module, generic=True)
    assert '"cuda.shfl_sync"' in generic and print_ir(parse(generic)) == custom


def test_a_result_type_count_mismatch_is_a_parse_error():
    from xdsl.utils.exceptions import ParseError

    with pytest.raises(ParseError, match="cuda.unpack has 2 result"):
        parse('%h = "test.op"() : () -> vector<2xf16>\n'
              "%lo, %hi = cuda.unpack %h : vector<2xf16> -> f32\n")


def test_printf_conversions():
    convs = conversions("%-8.3f|%+05d|%lld|%x|%%|%hhu|%G")
    assert [c.text for c in convs] == ["%-8.3f", "%+05d", "%lld", "%x", "%hhu", "%G"]
    assert convs[0].accepts(f16) and convs[0].accepts(f64) and not convs[0].accepts(i32)
    assert convs[2].accepts(i64) and not convs[2].accepts(i32)
    assert convs[1].accepts(i32) and not convs[1].accepts(i64)
    for bad in ("%s", "%p", "%n", "%*d", "100%", "%q"):
        with pytest.raises(RuleError, match="is not supported"):
            conversions(bad)


def test_the_backend_registers_the_dialects_lazily():
    code = ("import sys, tirx_mlir\n"
            "from tirx_mlir import registry\n"
            "assert 'cuda' in registry.list_dialects() and 'nvshmem' in registry.list_dialects()\n"
            "assert 'tirx_mlir.backends.cuda.dialects.cuda' not in sys.modules\n"
            "d = registry.dialects.lookup('cuda')()\n"
            "assert d.name == 'cuda'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_shared_memory_is_the_cores_and_tensor_memory_the_backends_in_either_load_order():
    for first in ("load('cuda'); import tirx_mlir.dialects.tirx.attributes",
                  "import tirx_mlir.dialects.tirx.attributes; load('cuda')"):
        code = ("import os; os.environ['TIRX_MLIR_BACKEND_AUTOLOAD'] = '0'\n"
                "from tirx_mlir import registry\n"
                "from tirx_mlir.backends import load\n"
                f"{first}\n"
                "assert registry.memory_scopes.owner_of('shared') == 'core'\n"
                "assert registry.memory_scopes.owner_of('shared.dyn') == 'core'\n"
                "assert registry.memory_scopes.owner_of('tmem') == 'cuda'\n")
        subprocess.run([sys.executable, "-c", code], check=True)


def test_a_launch_is_found_per_kernel_and_per_verification():
    """`checks.launch_of` keeps one launch per target holder during a verification: two kernels
    of one module each keep their own target (a memo keyed by the module would give the second
    one the first's sm_90a), and a target changed between verifications is seen."""
    from tirx_mlir.dialects.tirx.attributes import TargetAttr
    from tirx_mlir.dialects.tirx.kernel import KernelOp
    from tirx_mlir.verification import ModuleVerifier

    elect = "  %e = cuda.elect_sync %m : i32 -> i1"
    hopper = _kernel(elect, 'grid [1] threads [32] target "cuda -arch=sm_90a"')
    module = parse(hopper + hopper.replace("@k", "@k2"))
    verifier = ModuleVerifier()
    verifier.verify(module)
    second = [op for op in module.walk() if isinstance(op, KernelOp)][1]
    second.properties["target"] = TargetAttr("cuda -arch=sm_80")
    with pytest.raises(VerifyException, match="the target is sm_80"):
        verifier.verify(module)
    with pytest.raises(VerifyException, match="the target is sm_80"):
        ModuleVerifier().verify(module)  # both kernels in one verification
