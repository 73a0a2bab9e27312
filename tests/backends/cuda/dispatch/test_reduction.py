"""The CUDA reduction variants (local, shared) and reduce_negate through the cuda pipeline:
numpy == tile interpreter == SIMT interpreter after every pass; NaN propagation of max/min; the
dispatch failure table's reasons; bank conflicts of the shared-memory pattern."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.cuda_reductions import reduce_kernel, reference
from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.backends.cuda.interpreter.api import simulate
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.located_parser import parse_module

SHARED_CASES = [
    ("max", (64, 128), (1,), (64, 1), {}),
    ("sum", (64, 128), (0,), (1, 128), {}),
    ("sum", (64, 128), (0, 1), (1, 1), {}),
    ("min", (64, 128), (1,), (64,), {"accum": True}),
    ("reduce_negate", (64, 128), (1,), (64, 1), {"reduce": "max", "accum": True}),
    ("sum", (8, 16, 32), (0, 2), (16,), {}),
    ("max", (64, 64), (1,), (64, 1), {"scope": "warp", "threads": 32}),
]


def _ids(case):
    op, shape, axes, _, kw = case
    return f"{op}-{'x'.join(map(str, shape))}-axes{''.join(map(str, axes))}" + \
        "".join(f"-{k}" for k in kw)


@pytest.mark.parametrize("case", SHARED_CASES, ids=_ids)
def test_shared(case):
    op, shape, axes, dst, kw = case
    check_every_stage(reduce_kernel(op, shape, axes, dst, **kw),
                      reference(op, axes, dst, accum=kw.get("accum", False),
                                reduce=kw.get("reduce")), compile=False)


def test_shared_f16_compiles():
    text = reduce_kernel("sum", (64, 128), (1,), (64, 1), dtype="f16")
    check_every_stage(text, reference("sum", (1,), (64, 1)), rtol=2e-3, atol=2e-3)


def test_shared_compiles_for_sm90a():
    text = reduce_kernel("reduce_negate", (32, 64), (0, 1), (1, 1), reduce="min", accum=True,
                         arch="sm_90a")
    check_every_stage(text, reference("reduce_negate", (0, 1), (1, 1), reduce="min",
                                      accum=True), arch="sm_90a")


@pytest.mark.parametrize("kind", ["max", "min"])
def test_nan_propagates_like_the_tile_interpreter(kind):
    """max/min keep a NaN wherever it sits in a row (fmaxf would drop it)."""
    text = reduce_kernel(kind, (64, 128), (1,), (64, 1))
    x = np.random.default_rng(1).standard_normal((64, 128)).astype(np.float32)
    x[3, 0] = np.nan   # first element: a `a > b ? a : b` fold drops it
    x[7, 77] = np.nan  # inside a lane's run
    x[9, 127] = np.nan  # last element
    module = parse_module(text, "k")
    expected = KernelRunner(module)(x)[0]
    got = simulate(lower(text), None, x).outputs[0]
    np.testing.assert_array_equal(got, expected)
    assert np.isnan(got[[3, 7, 9], 0]).all() and not np.isnan(np.delete(got, [3, 7, 9])).any()


def test_shared_reduction_is_bank_conflict_free():
    """Lanes read consecutive elements of a row (and of a column for an axis-0 reduction); the
    partial results of a 2-D reduction meet in the scratch without conflicts either."""
    for shape, axes, dst in (((64, 128), (1,), (64, 1)), ((64, 128), (0,), (1, 128)),
                             ((64, 128), (0, 1), (1, 1))):
        module = lower(reduce_kernel("sum", shape, axes, dst))
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        run = simulate(module, None, x)
        np.testing.assert_allclose(run.outputs[0], x.sum(axis=axes, keepdims=True)
                                   .reshape(dst), rtol=1e-5, atol=1e-4)
        counted = [c for c in run.stats.per_op.values() if c.get("wavefronts")]
        assert counted
        for c in counted:
            assert c["wavefronts"] == c["ideal_wavefronts"], dict(c)


def test_integer_reduction_declines_with_a_reason():
    text = reduce_kernel("sum", (32, 32), (1,), (32, 1), dtype="i32")
    with pytest.raises(Exception) as err:
        lower(text)
    assert "compute in floating point" in str(err.value)
    assert "local (prio=10)" in str(err.value) and "shared (prio=10)" in str(err.value)


# --- register tiles -------------------------------------------------------------------------------

LOCAL_CASES = [
    ("sum", (32, 64), (1,), (32, 1), {"dst_layout": "S[32:1@tx] + R[4:32@tx]"}),
    ("max", (32, 64), (0,), (1, 64), {"dst_layout": "S[64:1@tx] + R[2:64@tx]"}),
    ("sum", (32, 64), (0, 1), (1, 1), {"accum": True}),
    ("sum", (32, 256), (1,), (32, 1),
     {"src_layout": "S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]",
      "dst_layout": "S[(4,8):(1@warpid,1)] + R[32:1@laneid]"}),
    ("reduce_negate", (64, 64), (1,), (64, 1), {"scope": "warp", "threads": 32,
                                                "reduce": "max"}),
]


@pytest.mark.parametrize("case", LOCAL_CASES, ids=_ids)
def test_local(case):
    op, shape, axes, dst, kw = case
    check_every_stage(reduce_kernel(op, shape, axes, dst, mem="local", **kw),
                      reference(op, axes, dst, accum=kw.get("accum", False),
                                reduce=kw.get("reduce")), compile=False)


def test_local_rows_in_warps_need_no_scratch():
    """A register softmax layout (a warp per 8 rows, lanes along the row) reduces with shuffles
    only: no shared memory, no barrier."""
    text = reduce_kernel("sum", (32, 256), (1,), (32, 1), mem="local",
                         src_layout="S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]",
                         dst_layout="S[(4,8):(1@warpid,1)] + R[32:1@laneid]")
    module = lower(text)
    names = [op.name for op in module.walk()]
    # the 8 rows are one rolled loop body (5 lane bits), expanded by the PTX printer
    assert names.count("cuda.shfl_sync") == 5
    assert emit_ptx(module).count("shfl.sync.bfly") == 5 * 8
    assert "cuda.sync_threads" not in names


WG3 = """tirx.kernel @k(%X: !tirx.buffer<8x64xf32, global>) -> (%Y: !tirx.buffer<8x64xf32, global>)
    grid [1] threads [384] target "cuda -arch=sm_80" {
  %r = tirx.alloc : !tirx.buffer<8x64xf32, local>
  %m = tirx.alloc : !tirx.buffer<8x1xf32, local>
  tirx.copy warpgroup %r, %X : !tirx.buffer<8x64xf32, local>, !tirx.buffer<8x64xf32, global>
  tirx.max warpgroup %m, %r axes [1] : !tirx.buffer<8x1xf32, local>, !tirx.buffer<8x64xf32, local>
  tirx.sub warpgroup %r, %r, %m : !tirx.buffer<8x64xf32, local>, !tirx.buffer<8x64xf32, local>, !tirx.buffer<8x1xf32, local>
  tirx.copy cta %Y, %r : !tirx.buffer<8x64xf32, global>, !tirx.buffer<8x64xf32, local>
  tirx.return
}
"""


def test_a_warpgroup_reduction_in_a_block_of_three_warpgroups():
    """Each of the 3 warpgroups reduces its own replica over its own 128 threads; the block's
    384 threads are no power of two, which only a cta-scope reduction needs (the local variant
    declined it: "the block's thread count is 384, not a power of two")."""
    check_every_stage(WG3, lambda x: [x - x.max(axis=1, keepdims=True)], compile=False)
