"""Named warpgroup barriers in the SIMT interpreter: with ``per_warpgroup`` every warpgroup
synchronises on its own id (and exchanges through shared memory within itself); two
warpgroups on one id at once are the hardware's mix-up, a located error."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.interpreter.runtime import InterpretError

EXCHANGE = """
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %s = cuda.shared_alloc : !tirx.buffer<256xi32, shared>
  %t = cuda.thread_idx x : index
  %v = arith.index_cast %t : index to i32
  cuda.store %s, %t, %v : !tirx.buffer<256xi32, shared>, index, i32
  cuda.sync_warpgroup barrier 1{form}
  %in = arith.remui %t, %c128 : index
  %base = arith.subi %t, %in : index
  %mirror = arith.subi %c127, %in : index
  %m = arith.addi %base, %mirror : index
  %w = cuda.load %s, %m : !tirx.buffer<256xi32, shared>, index -> i32
  cuda.store %Out, %t, %w : !tirx.buffer<256xi32, global>, index, i32"""


def _kernel(form: str) -> str:
    return cuda_kernel("() -> (%Out: !tirx.buffer<256xi32, global>)",
                       EXCHANGE.format(form=form), "grid [2] threads [256]")


def test_each_warpgroup_synchronises_on_its_own_barrier():
    (out,), run = run_simt(_kernel(" per_warpgroup"))
    t = np.arange(256)
    np.testing.assert_array_equal(out, t - t % 128 + 127 - t % 128)
    assert run.stats.total("barriers") == 4  # 2 CTAs x 2 warpgroups


def test_two_warpgroups_on_one_barrier_is_an_error():
    with pytest.raises(InterpretError) as err:
        run_simt(_kernel(""))
    msg = str(err.value)
    assert "warpgroups 0, 1 of CTA (0,0,0) synchronise on named barrier 1 at once" in msg
    assert "per_warpgroup" in msg
