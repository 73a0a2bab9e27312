"""cuda-pipeline-k-loop on CUDA-level loops that stage global tiles in shared memory: the SIMT
interpreter (whose cp.async model refuses to read a destination before its group is waited for)
gives the same answer before and after, for every stage count; loops it cannot pipeline are left
as they are."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context

from tirx_mlir.backends.cuda.interpreter import simulate
from tirx_mlir.backends.cuda.transforms.pipeline_k_loop import PipelineKLoopPass
from tirx_mlir.diagnostics import PassError
from tirx_mlir.located_parser import parse_module

# Each of 8 iterations stages 1024 floats (16 bytes per thread) and every thread reads another
# thread's element: the barrier after the copy is needed, and a stage read too early is caught.
STAGED = """
tirx.kernel @staged(%In: !tirx.buffer<8192xf32, global>) -> (%Out: !tirx.buffer<256xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c1023 = arith.constant 1023 : index
  %c1024 = arith.constant 1024 : index
  %c8192 = arith.constant 8192 : index
  %zero = arith.constant 0.0 : f32
  %s = cuda.shared_alloc align 16 : !tirx.buffer<1024xf32, shared>
  %t = cuda.thread_idx x : index
  %mine = arith.muli %t, %c4 : index
  %r0 = arith.addi %mine, %c7 : index
  %r = arith.andi %r0, %c1023 : index
  %sum = scf.for %k = %c0 to %c8192 step %c1024 iter_args(%a = %zero) -> (f32) {
    cuda.sync_threads
    %g = arith.addi %k, %mine : index
    COPY
    cuda.sync_threads
    %x = cuda.load %s, %r : !tirx.buffer<1024xf32, shared>, index -> f32
    %y = arith.addf %a, %x : f32
    scf.yield %y : f32
  }
  cuda.store %Out, %t, %sum : !tirx.buffer<256xf32, global>, index, f32
  tirx.return
}
"""
LOAD_STORE = """%v = cuda.load %In, %g : !tirx.buffer<8192xf32, global>, index -> vector<4xf32>
    cuda.store %s, %mine, %v : !tirx.buffer<1024xf32, shared>, index, vector<4xf32>"""
CP_ASYNC = """%pg = cuda.address %In, %g : !tirx.buffer<8192xf32, global>, index -> i64
    %ps = cuda.address %s, %mine : !tirx.buffer<1024xf32, shared>, index -> i32
    ptx.cp_async "cg.shared" [%ps], [%pg], 16 : (i32, i64) -> ()
    ptx.cp_async_wait_all"""

PTX_LD_ST = """%pg = cuda.address %In, %g : !tirx.buffer<8192xf32, global>, index -> i64
    %v:4 = ptx.ld "global.v4.f32" [%pg] : (i64) -> (f32, f32, f32, f32)
    %ps = cuda.address %s, %mine : !tirx.buffer<1024xf32, shared>, index -> i32
    ptx.st "shared.v4.f32" [%ps], {%v#0, %v#1, %v#2, %v#3} : (i32, f32, f32, f32, f32) -> ()"""


def _run(module_or_text):
    x = np.arange(8192, dtype=np.float32)
    return simulate(module_or_text, "staged", x).outputs[0]


def _expected() -> np.ndarray:
    x = np.arange(8192, dtype=np.float32).reshape(8, 1024)
    r = (np.arange(256) * 4 + 7) & 1023
    return x[:, r].sum(axis=0)


def _pipelined(text: str, stages: int):
    module = parse_module(text)
    PipelineKLoopPass(num_stages=stages).apply(Context(), module)
    module.verify()
    return module


@pytest.mark.parametrize("stages", [2, 3, 4, 9])
def test_pipelined_loads_agree_with_the_synchronous_loop(stages):
    text = STAGED.replace("COPY", LOAD_STORE)
    np.testing.assert_array_equal(_run(text), _expected())
    module = _pipelined(text, stages)
    np.testing.assert_array_equal(_run(module), _expected())
    printed = str(module)
    assert f"ptx.cp_async_wait_group {stages - 2}" in printed
    assert f"!tirx.buffer<{stages * 1024}xf32, shared>" in printed
    assert printed.count("cuda.sync_threads") == 1      # the copy barriers are folded into one
    assert printed.count("ptx.cp_async_commit_group") == stages - 1 + 1


@pytest.mark.parametrize("stages", [4, 9])
def test_a_ring_deeper_than_the_loop_commits_empty_groups_ahead(stages):
    """2 iterations through a 4- or 9-stage ring: the prologue issues both and commits S - 1
    groups (empty ones after them), so the loop's ``wait_group S-2`` retires stage 0 first.
    Before the fix it committed 2 and the wait let stage 0 be read in flight (the SIMT
    interpreter's located [async] error at the read)."""
    text = STAGED.replace("COPY", LOAD_STORE).replace("to %c8192", "to %c2048").replace(
        "  %zero =", "  %c2048 = arith.constant 2048 : index\n  %zero =")
    x = np.arange(8192, dtype=np.float32)
    want = x[:2048].reshape(2, 1024)[:, (np.arange(256) * 4 + 7) & 1023].sum(axis=0)
    module = _pipelined(text, stages)
    np.testing.assert_array_equal(simulate(module, "staged", x).outputs[0], want)
    printed = str(module)
    assert printed.count("ptx.cp_async_commit_group") == stages
    assert printed.count('ptx.cp_async "') == 3  # the prologue's two, the loop's one ahead


@pytest.mark.parametrize("copy", [CP_ASYNC, PTX_LD_ST], ids=["cp.async", "ld-st"])
def test_other_copy_forms_are_staged_too(copy):
    text = STAGED.replace("COPY", copy)
    np.testing.assert_array_equal(_run(text), _expected())
    module = _pipelined(text, 3)
    np.testing.assert_array_equal(_run(module), _expected())
    assert "ptx.cp_async_wait_all" not in str(module)    # its own wait is the pipeline's now
    assert "ptx.ld" not in str(module)


def test_a_copy_address_reading_the_thread_id_in_the_body_is_staged():
    # cse leaves a cuda.thread_idx in the loop body when no equal op precedes the loop (the
    # lane id's remainders before it merged and dead): the stages ahead clone the read too
    text = STAGED.replace("COPY", LOAD_STORE).replace(
        "    %g = arith.addi %k, %mine : index",
        "    %ti = cuda.thread_idx x : index\n    %mi = arith.muli %ti, %c4 : index\n"
        "    %g = arith.addi %k, %mi : index")
    np.testing.assert_array_equal(_run(text), _expected())
    module = _pipelined(text, 3)
    np.testing.assert_array_equal(_run(module), _expected())
    assert 'ptx.cp_async "' in str(module) and "3072xf32" in str(module)


def test_a_consumer_with_its_own_cp_async_groups_is_left_alone():
    text = STAGED.replace("COPY", LOAD_STORE).replace(
        "    %y = arith.addf", "    ptx.cp_async_commit_group\n    %x2 = arith.addf %x, %x : f32\n"
        "    ptx.cp_async_wait_all\n    %y = arith.addf")
    _assert_left_alone(text)


def _assert_left_alone(text: str) -> None:
    printed = str(_pipelined(text, 3))
    assert 'ptx.cp_async "' not in printed and "3072xf32" not in printed


def test_a_loop_whose_stage_is_read_after_it_is_left_alone():
    text = STAGED.replace("COPY", LOAD_STORE).replace(
        "  cuda.store %Out, %t, %sum", "  %late = cuda.load %s, %t : !tirx.buffer<1024xf32, "
        "shared>, index -> f32\n  cuda.store %Out, %t, %sum")
    _assert_left_alone(text)


def test_a_single_iteration_is_left_alone():
    _assert_left_alone(STAGED.replace("COPY", LOAD_STORE).replace("to %c8192", "to %c1024"))


def test_a_ring_past_the_targets_shared_memory_is_a_located_error():
    # 41 stages of 4 KiB: more than sm_80's 163 KiB per block (the arena's limit: the rings
    # become views of it in cuda-allocate-shared)
    with pytest.raises(PassError, match="41-stage ring .* 167936 bytes .* more than the 166912"):
        _pipelined(STAGED.replace("COPY", LOAD_STORE), 41)


def test_one_stage_is_an_error():
    with pytest.raises(PassError, match="num_stages >= 2"):
        _pipelined(STAGED.replace("COPY", LOAD_STORE), 1)


def test_the_pass_reports_each_pipelined_loop(monkeypatch):
    """The verification after it visits only what it reports (`tirx_mlir.verification`): the
    audit finds every change reported, and drops of the reports are caught."""
    from tirx_testing.reports import reported_points, silenced_is_caught

    example = "examples/cuda/tile/gemm_sm80.mlir"
    assert reported_points(example, "cuda", "cuda-pipeline-k-loop") == 1
    assert silenced_is_caught(monkeypatch, example, "cuda", "cuda-pipeline-k-loop")
