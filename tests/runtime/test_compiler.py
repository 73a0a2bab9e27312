"""tirx_mlir.compile: inputs, target and pipeline resolution, options, errors, and
compile(...).run(...) on every Trainium example against the interpreter on the same IR."""

from __future__ import annotations

import numpy as np
import pytest

import tirx_mlir
from tirx_mlir.diagnostics import TirxError
from tirx_mlir.interpreter import KernelRunner
from tirx_testing.trn_lowering import example_names, example_path, parse_file, random_inputs

SLOW = {"matmul_bf16_1024x2048x4096", "nki_matmul_1"}
"""Examples whose interpretation takes over 20 s: run once, checked against numpy."""


def _mm(at, b):
    return at.astype(np.float64).T @ b.astype(np.float64)


@pytest.mark.parametrize("name", [n for n in example_names() if n not in SLOW])
def test_every_trn_example_runs_as_the_interpreter_runs_its_lowered_ir(name):
    art = tirx_mlir.compile(example_path(name))
    assert art.pipeline.startswith("tirx-check-bounds,trn-default-layout,tirx-dispatch")
    assert "@nki.jit" in art.source and set(art.sources) == {"nki", "nki-legacy"}
    inputs = random_inputs(art.ir)
    got = art.run(*inputs, device="interpreter")
    got = got if isinstance(got, tuple) else (got,)
    want = KernelRunner(art.lowered)(*inputs)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, np.ndarray) and g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
        assert not np.isnan(g.astype(np.float64)).any()


@pytest.mark.slow
@pytest.mark.parametrize("name, tol", [("matmul_bf16_1024x2048x4096", (1e-4, 2e-3)),
                                       ("nki_matmul_1", (2e-3, 2e-3))])
def test_the_large_trn_matmuls_run(name, tol):
    art = tirx_mlir.compile(example_path(name))
    at, b = random_inputs(art.ir)
    got = art.run(at, b)
    np.testing.assert_allclose(got.astype(np.float64), _mm(at, b).astype(got.dtype),
                               rtol=tol[0], atol=tol[1])


def test_inputs_may_be_text_a_path_a_module_a_kernel_op_or_a_script_kernel():
    from tirx_mlir import script as Tx
    from tirx_mlir.dialects.tirx.kernel import kernels

    module = parse_file(example_path("add"))
    before = str(module)
    arts = [tirx_mlir.compile(open(example_path("add")).read()),
            tirx_mlir.compile(example_path("add")), tirx_mlir.compile(module),
            tirx_mlir.compile(kernels(module)[0])]
    assert str(module) == before  # the caller's IR is not lowered in place
    assert len({a.source for a in arts}) == 1
    with Tx.kernel("add_one", inputs={"A": Tx.buffer((128, 64))},
                   outputs={"B": Tx.buffer((128, 64))}) as k:
        a, b = k.args
        t = Tx.alloc((128, 64), scope="trn.sbuf")
        Tx.copy(t, a)
        Tx.add(t, t, 1.0)
        Tx.copy(b, t)
    art = tirx_mlir.compile(k, target="aws/trn1/trn1.2xlarge")
    x = np.ones((128, 64), np.float32)
    np.testing.assert_array_equal(art.run(x), x + 1)
    assert "nki.tensor_scalar" in art.stats["instructions"]


def test_the_pipeline_comes_from_the_target_and_takes_the_options():
    art = tirx_mlir.compile(example_path("add"), max_inst_size=128)
    assert "trn-max-inst-size{max_inst_size=128}" in art.pipeline
    trn2 = tirx_mlir.compile(example_path("add"), target="aws/trn2/trn2.48xlarge")
    assert "tirx-dispatch{target=\"aws/trn2/trn2.48xlarge\"}" in trn2.pipeline
    assert trn2.target.get("nc_version") == 3


def test_a_pipeline_may_be_a_spec_a_pipeline_object_or_none(add_one_text):
    from tirx_mlir.pipelines import Pipeline

    art = tirx_mlir.compile(add_one_text, target="aws/trn1/trn1.2xlarge",
                            pipeline="canonicalize,cse")
    assert art.pipeline == "canonicalize,cse" and art.stats["instructions"]["tirx.add"] == 1
    obj = tirx_mlir.compile(add_one_text, target="aws/trn1/trn1.2xlarge",
                            pipeline=Pipeline.parse("cse"))
    assert obj.pipeline == "cse"
    none = tirx_mlir.compile(add_one_text, target="aws/trn1/trn1.2xlarge", pipeline="none")
    assert none.pipeline == "" and str(none.lowered) == str(none.ir)


def test_source_picks_the_primary_printer():
    art = tirx_mlir.compile(example_path("add"), source="nki-legacy")
    assert list(art.sources)[0] == "nki-legacy" and "neuronxcc" in art.source


@pytest.mark.parametrize("call, message", [
    (lambda t: tirx_mlir.compile(t), "kernel @add_one has no target"),
    (lambda t: tirx_mlir.compile(t, target="nonsense-kind"), "compile: "),
    (lambda t: tirx_mlir.compile(example_path("add"), bogus=1),
     r"unknown option\(s\) of the trn pipeline: bogus"),
    (lambda t: tirx_mlir.compile(example_path("add"), pipeline="cse", max_inst_size=4),
     "only go to a named pipeline"),
    (lambda t: tirx_mlir.compile(42), "compile: cannot take a int"),
    (lambda t: tirx_mlir.compile("builtin.module {}"), "the module has no tirx.kernel"),
    (lambda t: tirx_mlir.compile(t, target="aws/trn1/trn1.2xlarge", pipeline="nope-pass"),
     "nope-pass"),
    (lambda t: tirx_mlir.compile(example_path("add"), source="no-such-printer"),
     "unknown printer target 'no-such-printer'"),
])
def test_bad_compiles_are_clear_errors(call, message, add_one_text):
    with pytest.raises((TirxError, ValueError), match=message):
        call(add_one_text)


def test_cuda_kernels_compile_without_a_pipeline():
    from tirx_mlir.backends.cuda.toolchain import find_tool

    art = tirx_mlir.compile("examples/cuda/vector_add.mlir")
    assert art.pipeline == "" and str(art.lowered) == str(art.ir)
    assert list(art.sources) == ["cuda", "ptx"] and "__global__" in art.source
    assert ".entry vector_add" in art.sources["ptx"]
    if find_tool("ptxas") is not None:
        assert art.binary[:4] == b"\x7fELF" and art.stats["arch"] == "sm_80"
        assert art.stats["kernels"]["vector_add"]["registers"] > 0


def test_a_printer_that_refuses_the_ir_leaves_a_note_and_source_raises(add_one_text):
    art = tirx_mlir.compile(add_one_text, target="aws/trn1/trn1.2xlarge", pipeline="none")
    assert art.sources == {} and art.notes[0].startswith("-t nki: ")
    with pytest.raises(TirxError, match="no source: -t nki refused the lowered IR: .*cannot "
                                        "print tirx.add"):
        art.source  # noqa: B018
    x = np.zeros(1024, np.float32)  # the interpreter device runs the tile-level IR anyway
    np.testing.assert_array_equal(art.run(x), x + 1)


def test_cuda_tile_kernels_compile_through_the_cuda_pipeline():
    text = """tirx.kernel @scale(%X: !tirx.buffer<4096xf32, global>)
        -> (%Y: !tirx.buffer<4096xf32, global>) grid [1] threads [256] target "cuda -arch=sm_80" {
      %two = arith.constant 2.0 : f32
      tirx.mul cta %Y, %X, %two : !tirx.buffer<4096xf32, global>, !tirx.buffer<4096xf32, global>, f32
      tirx.return
    }"""
    art = tirx_mlir.compile(text, cache=False)
    assert art.pipeline.startswith("tirx-check-bounds,cuda-default-layout")
    assert "tirx.mul" not in str(art.lowered) and "ld.global.v4.f32" in art.sources["ptx"]


# --- found by the cuda hostile-input campaign (tests/property/cuda_fuzz_campaign.py) ----------

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[2] / "examples"
CUDA_SOFTMAX = str(EXAMPLES / "cuda/tile/softmax.mlir")


def test_an_arch_option_is_the_target_the_toolchain_builds_for():
    """``arch=sm_90a`` on an sm_80 kernel: the pipeline printed ``.target sm_90a`` and ptxas
    ran with the kernel's own ``-arch=sm_80`` ("SM version specified by .target is higher")."""
    from tirx_mlir.backends.cuda.toolchain import find_tool

    art = tirx_mlir.compile(CUDA_SOFTMAX, cache=False, arch="sm_90a")
    assert art.target.get("arch") == "sm_90a"
    assert ".target sm_90a" in art.sources["ptx"]
    assert not [n for n in art.notes if "ptxas" in n], art.notes
    if find_tool("ptxas") is not None:
        assert art.stats["arch"] == "sm_90a" and art.binary


def test_ir_that_fails_to_verify_after_a_pass_is_a_located_error():
    """``arch=sm_70`` bound to a CUDA-level kernel whose ld needs sm_75: xDSL's bare
    VerifyException came out of compile, with no place."""
    from tirx_mlir.diagnostics import op_location

    with pytest.raises(TirxError, match="needs sm_75 or newer") as err:
        tirx_mlir.compile(str(EXAMPLES / "cuda/vector_add.mlir"), cache=False, arch="sm_70")
    assert op_location(err.value.op) == (str(EXAMPLES / "cuda/vector_add.mlir"), 16, 3)
    assert any(n.startswith("in pass 'cuda-default-layout'") for n in err.value.__notes__)


def test_a_verify_failure_no_single_op_shows_is_located_at_the_kernel():
    """When every op verifies alone (the failure came from a check over several ops), the
    error names the kernel rather than no place (review finding)."""
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.dialects.tirx.kernel import kernels
    from tirx_mlir.runtime.compiler import apply_located

    from tirx_mlir.located_parser import parse_module

    path = EXAMPLES / "cuda/vector_add.mlir"
    module = parse_module(path.read_text(), str(path))

    class Failing:
        def apply(self, module):
            raise VerifyException("two ops disagree")

    with pytest.raises(TirxError, match="two ops disagree") as err:
        apply_located(Failing(), module)
    assert err.value.op is kernels(module)[0]
