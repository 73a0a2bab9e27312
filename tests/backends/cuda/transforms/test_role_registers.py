"""role_registers: the register budget of a warp-specialised CTA, and thread-id conditions
evaluated per thread."""

from __future__ import annotations

import pytest

from tirx_mlir.backends.cuda.transforms.role_registers import (Budget, register_budget,
                                                               thread_values, uniform_ctas,
                                                               wgmma_need)
from tirx_mlir.located_parser import parse_module


def test_flash_attention_ring_gets_three_ctas_per_sm():
    # 256 threads (1 consumer + 1 producer warpgroup), 128 registers estimated, a 32-accumulator
    # wgmma, 5 CTAs by shared memory: 80 at launch (3 * 80 * 256 <= 65536), 24 + 136 = 2 * 80
    assert register_budget(256, 1, 128, wgmma_need(32), 5) == Budget(3, 80, 24, 136)
    assert uniform_ctas(256, 128, 5) == 2  # every thread at 128: 2 CTAs


def test_a_64_accumulator_wgmma_keeps_gemm_sm90a_at_one_cta():
    # ptxas allocates a wgmma within the launch count: 64 accumulators need 90 -> 96 at launch,
    # and 2 * 96 * 384 > 65536: one CTA, as without re-balancing
    assert wgmma_need(64) == 96
    budget = register_budget(384, 2, 104, 96, 2)
    assert budget == Budget(1, 168, 24, 240) and 24 + 2 * 240 <= 3 * 168
    assert uniform_ctas(384, 104, 2) == 1


@pytest.mark.parametrize("threads, consumers, demand, ctas", [
    (256, 1, 128, 8), (384, 2, 64, 5), (512, 3, 120, 4), (640, 4, 104, 3)])
def test_every_budget_fits_the_pool_and_the_rules(threads, consumers, demand, ctas):
    b = register_budget(threads, consumers, demand, 0, ctas)
    warpgroups = threads // 128
    assert b is not None and b.ctas * b.entry * threads <= 65536
    assert b.producer * (warpgroups - consumers) + b.consumer * consumers <= b.entry * warpgroups
    assert all(24 <= n <= 256 and n % 8 == 0 for n in (b.entry, b.producer, b.consumer))
    assert b.producer <= b.entry <= b.consumer and b.consumer >= demand
    if b.ctas < ctas:  # one more CTA would not give the consumers enough
        assert register_budget(threads, consumers, demand, 0, b.ctas + 1) == b


@pytest.mark.parametrize("threads, consumers, demand", [
    (256, 1, 300),  # more than a thread may hold
    (256, 2, 64),   # no producer warpgroup
    (200, 1, 64),   # not whole warpgroups
])
def test_no_budget_when_the_numbers_do_not_fit(threads, consumers, demand):
    assert register_budget(threads, consumers, demand, 0, 4) is None


KERNEL = """
tirx.kernel @k() grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %t = cuda.thread_idx x : index
  %wg = arith.divui %t, %c128 : index
  %consumer = arith.cmpi ult, %wg, %c1 : index
  %w = cuda.warp_id : index
  %low = arith.cmpi ult, %w, %c4 : index
  %lane = cuda.lane_id : index
  %odd = arith.remui %lane, %c4 : index
  %y = cuda.thread_idx y : index
  %b = cuda.block_idx x : index
  tirx.return
}"""


def _values():
    module = parse_module(KERNEL, "k")
    return {op.results[0].name_hint: op.results[0] for op in module.walk() if op.results}


def test_thread_conditions_per_thread():
    v = _values()
    assert thread_values(v["consumer"], 256) == [1] * 128 + [0] * 128
    assert thread_values(v["low"], 256) == [1] * 128 + [0] * 128
    assert thread_values(v["odd"], 256) == [t % 32 % 4 for t in range(256)]


@pytest.mark.parametrize("name", ["y", "b"])
def test_values_not_a_function_of_the_x_thread_id_are_unknown(name):
    assert thread_values(_values()[name], 256) is None


I1_KERNEL = """
tirx.kernel @k() grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c128 = arith.constant 128 : index
  %true = arith.constant true
  %t = cuda.thread_idx x : index
  %producer = arith.cmpi uge, %t, %c128 : index
  %same = arith.cmpi eq, %producer, %true : i1
  %flipped = arith.xori %producer, %true : i1
  %wide = arith.extui %true : i1 to i32
  %signed = arith.extsi %true : i1 to i32
  %below = arith.cmpi slt, %producer, %true : i1
  %c3 = arith.constant 3 : i8
  %c100 = arith.constant 100 : i8
  %wraps = arith.muli %c3, %c100 : i8
  tirx.return
}"""


def test_i1_true_is_one_and_values_that_wrap_are_unknown():
    module = parse_module(I1_KERNEL, "k")
    v = {op.results[0].name_hint: op.results[0] for op in module.walk() if op.results}
    producer = [0] * 128 + [1] * 128
    assert thread_values(v["true"], 256) == [1] * 256  # xDSL stores true as -1
    assert thread_values(v["same"], 256) == producer
    assert thread_values(v["flipped"], 256) == [1 - p for p in producer]
    assert thread_values(v["wide"], 256) == [1] * 256
    assert thread_values(v["signed"], 256) == [-1] * 256
    assert thread_values(v["below"], 256) is None  # a signed i1 compare: not modelled
    assert thread_values(v["wraps"], 256) is None  # 300 wraps in i8
