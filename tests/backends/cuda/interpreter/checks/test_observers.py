"""The shared-memory checks in real SIMT runs: bank conflicts of a padded vs an unpadded
transpose, races found and not found, statistics per op and per block."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.backends.cuda.dialects.cuda.atomics import AtomicOp
from tirx_mlir.interpreter.runtime import InterpretError

EXAMPLES = Path(__file__).parents[5] / "examples" / "cuda"
F32x64 = "!tirx.buffer<64xf32, global>"


def small_transpose(padded: bool) -> str:
    """examples/cuda/transpose.mlir on a 64x64 matrix (2x2 blocks); unpadded: a 32x32 tile."""
    text = (EXAMPLES / "transpose.mlir").read_text()
    text = text.replace("1048576", "4096").replace("grid [32, 32]", "grid [2, 2]")
    text = text.replace("%n = arith.constant 1024", "%n = arith.constant 64")
    if not padded:
        text = text.replace("32x33xf32", "32x32xf32").replace("%c33 : index", "%c32 : index")
    return text


@pytest.mark.parametrize("padded", [True, False])
def test_transpose_tile_padding_removes_the_32_way_column_conflicts(padded):
    x = np.random.default_rng(0).standard_normal(4096).astype(np.float32)
    (y,), run = run_simt(small_transpose(padded), x)
    np.testing.assert_array_equal(y.reshape(64, 64), x.reshape(64, 64).T)
    shared_store, = [r for r in run.stats.of("cuda.store") if r.counters.get("shared_requests")]
    shared_load, = [r for r in run.stats.of("cuda.load") if r.counters.get("shared_requests")]
    requests = 4 * 8 * 4  # 4 blocks x 8 warps x 4 loop steps
    assert shared_store.counters["shared_requests"] == requests
    assert shared_store.bank_conflicts == 0  # row writes: 32 banks either way
    assert shared_load.counters["shared_requests"] == requests
    assert shared_load.counters["wavefronts"] == requests * (1 if padded else 32)
    assert shared_load.bank_conflicts == (0 if padded else requests * 31)
    assert run.stats.bank_conflicts == shared_load.bank_conflicts
    assert dict(run.stats.barriers_per_block) == {(x, y, 0): 1 for x in range(2) for y in range(2)}


def _shared_kernel(body: str, threads: int = 64) -> str:
    return cuda_kernel(f"(%In: {F32x64}) -> (%Out: {F32x64})",
                       "  %s = cuda.shared_alloc : !tirx.buffer<64xf32, shared>\n"
                       "  %t = cuda.thread_idx x : index\n" + body,
                       launch=f"grid [1] threads [{threads}]", target="cuda -arch=sm_80")


NEIGHBOUR = """
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %v = cuda.load %In, %t : !tirx.buffer<64xf32, global>, index -> f32
  cuda.store %s, %t, %v : !tirx.buffer<64xf32, shared>, index, f32
  {sync}
  %n0 = arith.addi %t, %c1 : index
  %n = arith.andi %n0, %c31 : index
  %w = cuda.load %s, %n : !tirx.buffer<64xf32, shared>, index -> f32
  cuda.store %Out, %t, %w : !tirx.buffer<64xf32, global>, index, f32"""


def test_reading_a_neighbour_lanes_word_needs_a_syncwarp():
    x = np.arange(64, dtype=np.float32)
    with pytest.raises(InterpretError) as err:
        run_simt(_shared_kernel(NEIGHBOUR.format(sync=""), threads=32), x)
    assert "potential RAW hazard at __shared__ 0x4 in block (0,0,0): the read by thread " \
           "(0,0,0) races with the write by thread (1,0,0) at <test>:8:3 (cuda.store)" \
           in str(err.value)
    synced = NEIGHBOUR.format(sync="%all = arith.constant -1 : i32\n  "
                                   "cuda.sync_warp %all : i32")
    (y,), _ = run_simt(_shared_kernel(synced, threads=32), x)
    np.testing.assert_array_equal(y[:32], np.roll(x[:32], -1))


def _has_impl(op_class) -> bool:
    from tirx_mlir.backends.cuda.interpreter.impls import load_impls

    return op_class in load_impls()


@pytest.mark.skipif(not _has_impl(AtomicOp), reason="cuda.atomic has no SIMT implementation yet")
def test_shared_atomics_do_not_race_but_a_read_of_their_result_does():
    body = """
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    cuda.store %s, %c0, %zero : !tirx.buffer<64xf32, shared>, index, f32
  }
  cuda.sync_threads
  %old = cuda.atomic add %s, %c0, %one : !tirx.buffer<64xf32, shared>, index, f32 -> f32
  {sync}
  %sum = cuda.load %s, %c0 : !tirx.buffer<64xf32, shared>, index -> f32
  cuda.store %Out, %t, %sum : !tirx.buffer<64xf32, global>, index, f32"""
    x = np.zeros(64, dtype=np.float32)
    with pytest.raises(InterpretError) as err:
        run_simt(_shared_kernel(body.replace("{sync}", "")), x)
    assert "potential RAW hazard at __shared__ 0x0 in block (0,0,0): the read by thread " \
           "(0,0,0) races with the atomic by thread (63,0,0)" in str(err.value)
    (y,), run = run_simt(_shared_kernel(body.replace("{sync}", "cuda.sync_threads")), x)
    np.testing.assert_array_equal(y, np.full(64, 64, np.float32))
    assert dict(run.stats.barriers_per_block) == {(0, 0, 0): 2}


def test_racecheck_off_runs_the_racy_kernel():
    x = np.arange(64, dtype=np.float32)
    (y,), _ = run_simt(_shared_kernel(NEIGHBOUR.format(sync=""), threads=32), x,
                       racecheck=False)
    np.testing.assert_array_equal(y[:32], np.roll(x[:32], -1))


def test_instructions_per_op_count_active_lanes_and_warps():
    body = """
  %c8 = arith.constant 8 : index
  %v = cuda.load %In, %t : !tirx.buffer<64xf32, global>, index -> f32
  %few = arith.cmpi ult, %t, %c8 : index
  scf.if %few {
    cuda.store %Out, %t, %v : !tirx.buffer<64xf32, global>, index, f32
  }"""
    _, run = run_simt(_shared_kernel(body), np.zeros(64, np.float32))
    (load,) = run.stats.of("cuda.load")
    (store,) = run.stats.of("cuda.store")
    assert (load.warp_instructions, load.thread_instructions) == (2, 64)
    assert (store.warp_instructions, store.thread_instructions) == (1, 8)
    assert run.stats.barriers_per_block == {}
    assert "barriers per block: 0 (each of 1 block)" in run.stats.table()


def test_a_wave_too_large_for_the_racecheck_says_how_to_run_it(monkeypatch):
    from tirx_mlir.backends.cuda.interpreter.checks import observers

    monkeypatch.setattr(observers, "MAX_RACE_STATE", 4 << 20)  # 4 MiB: room for one such CTA
    text = small_transpose(padded=True)  # 4 CTAs of 4224 bytes of shared memory: 0.8 MiB
    x = np.zeros(4096, np.float32)
    run_simt(text, x)
    with pytest.raises(InterpretError) as err:
        run_simt(text.replace("32x33xf32", "32x384xf32"), x)  # 4 x 48 KiB: 9 MiB
    assert "the racecheck of a wave of 4 CTAs with 49152 bytes of shared memory each needs 9 " \
           "MiB, more than its 4 MiB\nhint: run at most 256 lanes per wave (SIMT option " \
           "max_wave_lanes), or turn the check off" in str(err.value)
    run_simt(text.replace("32x33xf32", "32x384xf32"), x, racecheck=False)
    run_simt(text.replace("32x33xf32", "32x384xf32"), x, max_wave_lanes=256)
