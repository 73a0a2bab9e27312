"""The tile level of a cluster launch (interpreter/cluster.py): CTAs of a cluster meet at
tirx.cluster_sync, a remote_cta copy_async lands in its destination CTA at the next sync, and
the misuses are located errors."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.interpreter.runtime import InterpretError
from tirx_mlir.located_parser import parse_module

HEAD = """tirx.kernel @k(%A: !tirx.buffer<{n}x64xf32, global>) -> (%B: !tirx.buffer<{n}x64xf32, global>)
    grid [{n}] threads [128] cluster [{cl}] {{
  %bx = tirx.cta_id x : index
  %r = tirx.cta_id_in_cluster x : index
  %c1 = arith.constant 1 : index
  %s = tirx.alloc : !tirx.buffer<64xf32, shared>
  %d = tirx.alloc : !tirx.buffer<64xf32, shared>
  %a2 = tirx.slice %A[%bx, 0] [1, 64] : !tirx.buffer<{n}x64xf32, global> -> !tirx.buffer<1x64xf32, global>
  %a = tirx.reshape %a2 : !tirx.buffer<1x64xf32, global> -> !tirx.buffer<64xf32, global>
  %b2 = tirx.slice %B[%bx, 0] [1, 64] : !tirx.buffer<{n}x64xf32, global> -> !tirx.buffer<1x64xf32, global>
  %b = tirx.reshape %b2 : !tirx.buffer<1x64xf32, global> -> !tirx.buffer<64xf32, global>
  tirx.copy cta %s, %a : !tirx.buffer<64xf32, shared>, !tirx.buffer<64xf32, global>
"""
COPY = ("  tirx.copy_async cta %d, %s remote_cta {rank} : !tirx.buffer<64xf32, shared>, "
        "!tirx.buffer<64xf32, shared>, index\n")
SYNC = "  tirx.cluster_sync cluster\n"
OUT = "  tirx.copy cta %b, %d : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, shared>\n"
TAIL = "  tirx.return\n}\n"


def _run(body: str, n: int = 4, cl: int = 2):
    module = parse_module(HEAD.format(n=n, cl=cl) + body + TAIL, "cluster.mlir")
    module.verify()
    a = np.arange(n * 64, dtype=np.float32).reshape(n, 64)
    (b,) = KernelRunner(module)(a)
    return a, b


def test_ring_shift_lands_in_the_next_rank():
    body = ("  %n = arith.constant 4 : index\n  %r1 = arith.addi %r, %c1 : index\n"
            "  %to = arith.remui %r1, %n : index\n" + COPY.format(rank="%to") + SYNC + OUT)
    a, b = _run(body, n=8, cl=4)
    # CTA with rank r of each cluster of 4 receives the tile of rank r - 1
    expect = a.reshape(2, 4, 64)[:, [3, 0, 1, 2]].reshape(8, 64)
    np.testing.assert_array_equal(b, expect)


def test_the_copy_is_not_visible_before_the_sync_in_either_rank_order():
    # each CTA reads its receive buffer before the sync: it is still fresh memory (NaN), the
    # later rank's as well as the earlier's (the copy lands at the sync, not when it runs)
    body = "  %peer = arith.xori %r, %c1 : index\n" + COPY.format(rank="%peer") + OUT + SYNC
    _, b = _run(body)
    assert np.isnan(b).all()


def test_phases_repeat_in_a_loop():
    # four rounds of swapping %s with the peer: even rounds give back the own tile
    body = """  %peer = arith.xori %r, %c1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
""" + "  " + COPY.format(rank="%peer") + "  " + SYNC + \
        "    tirx.copy cta %s, %d : !tirx.buffer<64xf32, shared>, !tirx.buffer<64xf32, shared>\n" + \
        "  " + SYNC + "  }\n" + \
        "  tirx.copy cta %b, %s : !tirx.buffer<64xf32, global>, !tirx.buffer<64xf32, shared>\n"
    a, b = _run(body)
    np.testing.assert_array_equal(b, a)


def _fails(body: str, match: str) -> InterpretError:
    with pytest.raises(InterpretError, match=match) as info:
        _run(body)
    return info.value


def test_a_copy_without_a_sync_after_it_is_an_error():
    err = _fails("  %peer = arith.xori %r, %c1 : index\n" + COPY.format(rank="%peer"),
                 "still in flight when the cluster's CTAs end")
    assert "cluster.mlir:" in str(err) and "cluster_sync" in str(err)


def test_writing_the_source_before_the_copy_lands_is_an_error():
    _fails("  %peer = arith.xori %r, %c1 : index\n" + COPY.format(rank="%peer") +
           "  tirx.zero cta %s : !tirx.buffer<64xf32, shared>\n" + SYNC,
           "source of this remote copy was written before")


def test_a_sync_only_some_ctas_reach_is_an_error():
    body = """  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {
    tirx.cluster_sync cluster
  }
"""
    _fails(body, "ended while CTA rank 0 waits here")


def test_a_rank_outside_the_cluster_is_an_error():
    _fails("  %c2 = arith.constant 2 : index\n" + COPY.format(rank="%c2") + SYNC,
           r"remote_cta is 2, but the cluster has 2 CTAs")


def test_an_error_in_one_cta_names_it():
    body = """  %c3 = arith.constant 3 : index
  %last = arith.cmpi eq, %bx, %c3 : index
  scf.if %last {
    %x = tirx.thread_id x : index
  }
""" + SYNC
    err = _fails(body, "per-thread scope id")
    assert "CTA (3, 0, 0)" in str(err)


def test_verifier_wants_a_cluster_launch_and_shared_operands():
    text = """tirx.kernel @k() grid [2] threads [32] {
  %c0 = arith.constant 0 : index
  %s = tirx.alloc : !tirx.buffer<64xf32, shared>
  %d = tirx.alloc : !tirx.buffer<64xf32, shared>
  tirx.copy_async cta %d, %s remote_cta %c0 : !tirx.buffer<64xf32, shared>, !tirx.buffer<64xf32, shared>, index
  tirx.return
}"""
    with pytest.raises(Exception, match="needs a cluster launch"):
        parse_module(text, "k").verify()
    with pytest.raises(Exception, match="synchronises a cluster"):
        parse_module("""tirx.kernel @k() grid [2] threads [32] cluster [2] {
  tirx.cluster_sync cta
  tirx.return
}""", "k").verify()
