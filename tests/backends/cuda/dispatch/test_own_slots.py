"""`register_slots` for an operand that is the iteration's own tile (same layout and shape,
viewed whole) is answered per thread without numpy (`common._own_slots`): the same answer, or
the same refusal word for word, as the general check over threads x slots, for the register
layouts the examples use and for layouts that break it (strided or offset thread axes, replicas,
fewer threads than the scope, a non-CTA axis); other questions still go to the general check.
A fresh compile of such kernels therefore imports no numpy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.layout.partition import PartitionError, RegisterPartition
from tirx_mlir.dialects.tirx.attributes import ExecScope
from tirx_mlir.dialects.tirx.layout import TileLayout

ROOT = Path(__file__).resolve().parents[4]

CASES = [
    # the examples' register tiles (reduce_2d, softmax_registers, gemm_sm90a, gemm_sm80, ...)
    ("S[(16,512,4):(4,1@tx,1)]", (128, 256), ExecScope.CTA, 512),
    ("S[1] + R[512:1@tx]", (1, 1), ExecScope.CTA, 512),
    ("S[(4,8,2,32,4):(1@warpid,8,4,1@laneid,1)]", (32, 256), ExecScope.CTA, 128),
    ("S[(4,8):(1@warpid,1)] + R[32:1@laneid]", (32, 1), ExecScope.CTA, 128),
    ("S[(2,1,4,2,8,16,4,2):(4@warpid,64,1@warpid,2,4@laneid,4,1@laneid,1)]", (128, 128),
     ExecScope.CTA, 384),
    ("S[(1,2,4,2,8,16,4,2):(4@warpid,64,1@warpid,2,4@laneid,4,1@laneid,1)]", (128, 128),
     ExecScope.CTA, 256),
    ("S[(2,4,2,8,2,8,4,2):(2@warpid,32,2,4@laneid,1@warpid,4,1@laneid,1)]", (128, 128),
     ExecScope.CTA, 128),
    ("S[(4,128,4):(4,1@tx,1)]", (32, 64), ExecScope.CTA, 128),
    ("S[(8,4,2):(4@laneid,1@laneid,1)]", (8, 8), ExecScope.WARP, 32),
    ("S[(2,8,4,2):(2,4@laneid,1@laneid,1)]", (16, 8), ExecScope.WARP, 32),
    # layouts the check refuses or that cover part of the scope
    ("S[(32,4):(2@tx,1)]", (32, 4), ExecScope.CTA, 64),          # threads 2k+1 hold nothing
    ("S[(32,4):(2@tx,1)] + R[2:1@tx]", (32, 4), ExecScope.CTA, 64),  # ... unless replicas
    ("S[(16,4):(1@tx,1)]", (16, 4), ExecScope.CTA, 128),         # threads 16.. hold nothing
    ("S[(16,4):(1@tx,1)] + 16@tx", (16, 4), ExecScope.CTA, 128),  # an offset on tx
    ("S[(8,4):(1@laneid,1)] + R[4:8@laneid]", (8, 4), ExecScope.WARP, 32),
    ("S[(8,4):(1@laneid,1)] + R[2:8@laneid]", (8, 4), ExecScope.WARP, 32),
    ("S[(4,8,4):(1@wgid,1@wid_in_wg,1)] + R[32:1@laneid]", (32, 4), ExecScope.CTA, 512),
    ("S[(2,64,2):(1@warpid,1@tid_in_wg,1)]", (128, 2), ExecScope.CTA, 256),
    ("S[(8,4):(1@warpid,1)] + 3@m", (8, 4), ExecScope.CTA, 256),
    ("S[(2,16):(1@cbx,1)]", (2, 16), ExecScope.CTA, 32),        # not a CTA axis (a KeyError)
]


def _whole(shape):
    rank = len(shape)
    return SimpleNamespace(
        sizes=tuple(shape), offset=(0,) * rank, static_offset=lambda: (0,) * rank,
        steps=tuple(tuple(int(i == j) for j in range(rank)) for i in range(rank)),
        buffer_type=SimpleNamespace(get_shape=lambda: tuple(shape)))


def _answer(fn):
    try:
        return fn()
    except Exception as err:  # noqa: BLE001 - a refusal, or the general check's own error
        return (type(err).__name__, str(err))


@pytest.mark.parametrize("layout,shape,scope,threads", CASES)
def test_own_tile_answer_is_the_general_checks(layout, shape, scope, threads, monkeypatch):
    part = RegisterPartition(TileLayout.parse(layout), shape)
    ask = lambda: common._register_slots(part, _whole(shape), part, shape, scope, threads)  # noqa: E731
    fast = _answer(ask)
    monkeypatch.setattr(common, "_own_slots", lambda *args: None)
    assert fast == _answer(ask)


def test_own_tile_is_answered_without_the_general_check(monkeypatch):
    """The examples' questions take the per-thread path; a view of part of the tile does not."""
    part = RegisterPartition(TileLayout.parse("S[(4,128,4):(4,1@tx,1)]"), (32, 64))
    assert common._own_slots(part, _whole((32, 64)), part, (32, 64), ExecScope.CTA, 128) == \
        part.registers()
    half = _whole((32, 64))
    half.sizes = (16, 64)
    assert common._own_slots(part, half, part, (16, 64), ExecScope.CTA, 128) is None
    cluster = RegisterPartition(TileLayout.parse("S[(2,16):(1@cbx,1)]"), (2, 16))
    assert common._own_slots(cluster, _whole((2, 16)), cluster, (2, 16), ExecScope.CTA,
                             32) is None


def test_a_refusal_names_the_first_thread_and_its_first_element():
    part = RegisterPartition(TileLayout.parse("S[(32,4):(2@tx,1)]"), (32, 4))
    with pytest.raises(PartitionError, match=r"^thread 1 needs element \(0, 0\) of the register"):
        common._own_slots(part, _whole((32, 4)), part, (32, 4), ExecScope.CTA, 64)


@pytest.mark.parametrize("kernel", ["reduce_2d", "gemm_sm90a", "cluster_exchange"])
def test_a_fresh_compile_of_a_register_tile_kernel_imports_no_numpy(kernel):
    probe = ("import sys; from tirx_mlir.tools.tirx_opt import main\n"
             "main(['--pass-pipeline=cuda', sys.argv[1], '-t', 'ptx', '-o', '/dev/null'])\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'ml_dtypes')))")
    path = ROOT / "examples" / "cuda" / "tile" / f"{kernel}.mlir"
    out = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True,
                         text=True, check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines()[-1] == "[]"
