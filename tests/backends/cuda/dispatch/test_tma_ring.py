"""The TMA/wgmma ring protocol's static side: which views are stage tiles (and which stage),
and which rings are pipelined (TMA writers, gemm_async readers of one scope); and a ring whose
multicast mask is known only at run time, end to end."""

from __future__ import annotations

import pytest

from tirx_mlir.backends.cuda.dispatch import tma_ring
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.located_parser import parse_module

TEXT = """tirx.kernel @k(%A: !tirx.buffer<64x64xf16, global>) -> (%C: !tirx.buffer<64x64xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c1 = arith.constant 1 : index
  %ring = tirx.alloc : !tirx.buffer<3x64x64xf16, shared>
  %other = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  %s1 = tirx.slice %ring[%c1, 0, 0] [1, 64, 64] : !tirx.buffer<3x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
  %t = tirx.reshape %s1 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
  %half = tirx.slice %other[0, 0] [64, 32] : !tirx.buffer<64x64xf16, shared> -> !tirx.buffer<64x32xf16, shared>
  tirx.copy_async cta %t, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy_async cta %other, %A dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.gemm_async cta %acc, %t, %other : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, shared>
  tirx.copy cta %C, %other : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}
"""


class _Ctx:
    def __init__(self, kernel):
        self.kernel = kernel
        self.shared_state = {}


def _parts():
    module = parse_module(TEXT, "k.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
    allocs = {op.result.name_hint: op.result for op in kernel.walk() if isinstance(op, AllocOp)}
    views = {op.results[0].name_hint: op.results[0] for op in kernel.walk() if op.results}
    return kernel, allocs, views


def test_stage_views():
    kernel, allocs, views = _parts()
    stage = tma_ring.stage_view(views["t"])
    assert stage.alloc is allocs["ring"] and stage.stages == 3 and stage.tile == (64, 64)
    assert stage.stage.is_const() and stage.stage.const == 1
    whole = tma_ring.stage_view(allocs["other"])
    assert whole.stages == 1 and whole.stage.const == 0
    assert "one whole [64, 64] tile" in tma_ring.stage_view(views["half"])


def test_pipelined_rings_are_read_by_gemm_async_only():
    kernel, allocs, _ = _parts()
    ctx = _Ctx(kernel)
    assert tma_ring.pipelined(ctx, allocs["ring"])
    assert not tma_ring.pipelined(ctx, allocs["other"])       # a tirx.copy reads it too
    # decided once: dispatching (erasing) the ops later does not change the answer
    for op in [o for o in kernel.walk() if isinstance(o, T.CopyAsyncOp)]:
        op.detach()
    assert tma_ring.pipelined(ctx, allocs["ring"])
    assert tma_ring.consumer_threads(kernel, allocs["ring"]) == 128


# --- a cta_mask known only at run time in a pipelined ring ----------------------------------------

def _runtime_ring(mask: str) -> str:
    """examples/cuda/tile/gemm_multicast_sm90a.mlir with B's config {cta_mask = 3} replaced by
    the operand ``%m3``, computed by ``mask`` (before the rings)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile" /
            "gemm_multicast_sm90a.mlir").read_text()
    old = ('tirx.copy_async cta %sbs, %b dispatch "tma_auto" config {cta_mask = 3} : '
           '!tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>')
    assert old in text
    text = text.replace("  %sa = tirx.alloc", "  " + mask + "\n  %sa = tirx.alloc", 1)
    return text.replace(old, 'tirx.copy_async cta %sbs, %b cta_mask %m3 dispatch "tma_auto" : '
                             '!tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, '
                             'global>, index')


BOTH = "%m3 = arith.constant 3 : index"
BY_ID = """%o1 = arith.subi %c1, %bx : index
  %h0 = arith.shli %c1, %bx : index
  %h1 = arith.shli %c1, %o1 : index
  %m3 = arith.ori %h0, %h1 : index"""  # (1 << x) | (1 << (1 - x)) = 3, from the CTA id
ALONE = "%m3 = arith.shli %c1, %bx : index"  # each CTA its own group: nobody else releases


def _empty_counts(final) -> list:
    """The values the empty barriers of B's ring are initialised with (the last ring)."""
    return [op.operands[1] for op in final.walk() if op.name == "ptx.mbarrier_init"]



@pytest.mark.parametrize("mask,peers", [(BOTH, 2), (BY_ID, 2), (ALONE, 2)])
def test_a_run_time_mask_in_a_pipelined_ring(mask, peers):
    """numpy == tile == SIMT after every pass (the SIMT interpreter deadlocks on a barrier
    counting arrivals that never come), nvcc + ptxas: the ring stays pipelined (no cluster
    barrier in the K loop), its empty barriers count the consumers times the popcount of the
    writer bits computed at kernel entry, and each consumer arrives on the CTAs whose bit it
    holds (one predicated remote arrive per peer), in the K loop (the previous K step's stage,
    one wgmma group in flight) and in the drain after it (the last stage)."""
    import numpy as np

    from tirx_testing.cuda_every_stage import check_every_stage

    def reference(a, b):
        return [a.astype(np.float32) @ b.astype(np.float32).T]

    final = check_every_stage(_runtime_ring(mask), reference, arch="sm_90a", name="gemm",
                              rtol=1e-2, atol=1e-2)
    names = [op.name for op in final.walk()]
    assert names.count("ptx.cp_async_bulk_tensor_g2s_multicast") >= 1
    remote = [op for op in final.walk() if op.name == "ptx.mbarrier_arrive" and
              op.mods().get("space") == "shared::cluster"]
    assert len(remote) == 2 * peers
    consumer = next(op for op in final.walk() if op.name == "scf.for" and
                    any(o.name == "ptx.wgmma_mma_async_ss" for o in op.walk()))
    assert len([o for o in consumer.walk() if o in remote]) == peers
    loops = [op for op in final.walk() if op.name == "scf.for"]
    assert not any(o.name == "cuda.sync_cluster" for loop in loops for o in loop.walk())


def test_a_run_time_mask_from_a_loop_variable_is_an_error_at_the_copy():
    from tirx_testing.cuda_every_stage import lower

    from tirx_mlir.diagnostics import TirxError, op_location

    text = _runtime_ring("").replace(
        '    tirx.copy_async cta %sbs, %b cta_mask %m3',
        '    %m3 = arith.addi %k, %c3 : index\n    tirx.copy_async cta %sbs, %b cta_mask %m3')
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "cta_mask %m3" in t)
    with pytest.raises(TirxError, match=r"a cta_mask known only at run time in a pipelined TMA "
                                        r"ring is recomputed at kernel entry .* depends on a "
                                        r"loop or block argument") as err:
        lower(text, "gemm")
    assert op_location(err.value.op)[1] == line


# --- a mixed ring: A by TMA, B by cp.async, one full/empty pair per stage -------------------------

MIXED = """tirx.kernel @mixed(%A: !tirx.buffer<64x256xf16, global>, %B: !tirx.buffer<64x256xf16, global>)
    -> (%C: !tirx.buffer<64x64xf32, global>) grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %sa = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %sb = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<64x64xf32, local>
  tirx.zero cta %acc : !tirx.buffer<64x64xf32, local>
  scf.for %k = %c0 to %c4 step %c1 {
    %s = arith.remui %k, %c2 : index
    %k0 = arith.muli %k, %c64 : index
    %a = tirx.slice %A[%c0, %k0] [64, 64] : !tirx.buffer<64x256xf16, global> -> !tirx.buffer<64x64xf16, global>
    %b = tirx.slice %B[%c0, %k0] [64, 64] : !tirx.buffer<64x256xf16, global> -> !tirx.buffer<64x64xf16, global>
    %sa3 = tirx.slice %sa[%s, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sb3 = tirx.slice %sb[%s, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16, shared> -> !tirx.buffer<1x64x64xf16, shared>
    %sas = tirx.reshape %sa3 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
    %sbs = tirx.reshape %sb3 : !tirx.buffer<1x64x64xf16, shared> -> !tirx.buffer<64x64xf16, shared>
COPIES
    tirx.gemm_async cta %acc, %sas, %sbs accum : !tirx.buffer<64x64xf32, local>, !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, shared>
  }
  tirx.copy cta %C, %acc : !tirx.buffer<64x64xf32, global>, !tirx.buffer<64x64xf32, local>
  tirx.return
}
"""
COPY_A = ('    tirx.copy_async cta %sas, %a dispatch "tma_auto" : !tirx.buffer<64x64xf16, shared>, '
          '!tirx.buffer<64x64xf16, global>\n')
COPY_B = ('    tirx.copy_async cta %sbs, %b dispatch "ldgsts" : !tirx.buffer<64x64xf16, shared>, '
          '!tirx.buffer<64x64xf16, global>\n')


def _gemm_bt(a, b):
    import numpy as np

    return [a.astype(np.float32) @ b.astype(np.float32).T]


def _init_counts(final) -> list[int]:
    from xdsl.dialects import arith

    counts = []
    for op in final.walk():
        if op.name == "ptx.mbarrier_init":
            owner = op.operands[1].owner
            assert isinstance(owner, arith.ConstantOp)
            counts.append(owner.value.value.data)
    return counts


@pytest.mark.parametrize("copies", [COPY_A + COPY_B, COPY_B + COPY_A], ids=["tma_first",
                                                                            "cp_async_first"])
def test_a_mixed_ring_shares_one_barrier_pair_per_stage(copies):
    """numpy == tile == SIMT after every pass, nvcc + ptxas (sm_90a, no advisories): A's stages
    come by TMA, B's by cp.async from the producer warpgroup, both on one full barrier per stage
    (the TMA issuer's expect_tx arrival + 128 cp.async.mbarrier.arrive.noinc) and one empty
    barrier (the 4 consumer warps); the producer warpgroup waits for a stage once, at the
    first copy into it, and the consumers once per gemm."""
    from tirx_testing.cuda_every_stage import check_every_stage

    final = check_every_stage(MIXED.replace("COPIES\n", copies), _gemm_bt, arch="sm_90a",
                              name="mixed", rtol=1e-2, atol=1e-2)
    assert sorted(_init_counts(final)) == [4, 4, 129, 129]  # 2 stages x (empty, full)
    names = [op.name for op in final.walk()]
    assert names.count("ptx.cp_async_mbarrier_arrive") == 1
    assert names.count("ptx.mbarrier_arrive_expect_tx") == 1
    assert names.count("ptx.mbarrier_try_wait_parity") == 2      # empty (producers), full
    assert "ptx.cp_async_wait_all" not in names and "ptx.cp_async_wait_group" not in names


def test_a_cp_async_ring_without_a_producer_warpgroup_lands_before_the_wgmma():
    """With one warpgroup there is no producer warpgroup for B's cp.async: B's ring is not
    pipelined and its copies complete (cp.async.wait_all + __syncthreads) before the wgmma
    reads them (without that wait the SIMT run reads unwritten shared memory)."""
    from tirx_testing.cuda_every_stage import check_every_stage

    text = MIXED.replace("COPIES\n", COPY_A + COPY_B).replace("threads [256]", "threads [128]")
    final = check_every_stage(text, _gemm_bt, arch="sm_90a", name="mixed", rtol=1e-2,
                              atol=1e-2)
    names = [op.name for op in final.walk()]
    assert "ptx.cp_async_wait_all" in names and "ptx.cp_async_mbarrier_arrive" not in names


def _rings(text: str):
    module = parse_module(text, "k.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
    allocs = {op.result.name_hint: op.result for op in kernel.walk() if isinstance(op, AllocOp)}
    copies = [op for op in kernel.walk() if isinstance(op, T.CopyAsyncOp)]
    return _Ctx(kernel), allocs, copies


def _three_stage_b(copies: str) -> str:
    """MIXED with B's ring of 3 stages (read at k % 2 still): it cannot share A's pair."""
    return MIXED.replace("COPIES\n", copies).replace(
        "%sb = tirx.alloc : !tirx.buffer<2x64x64xf16, shared>",
        "%sb = tirx.alloc : !tirx.buffer<3x64x64xf16, shared>").replace(
        "%sb[%s, 0, 0] [1, 64, 64] : !tirx.buffer<2x64x64xf16",
        "%sb[%s, 0, 0] [1, 64, 64] : !tirx.buffer<3x64x64xf16")


def test_a_cp_async_ring_with_its_own_pair():
    """B's cp.async ring cannot share A's pair (other stage count): each ring has its own,
    B's full barriers counting the 128 producer threads; numpy == tile == SIMT every pass,
    nvcc + ptxas."""
    from tirx_testing.cuda_every_stage import check_every_stage

    final = check_every_stage(_three_stage_b(COPY_A + COPY_B), _gemm_bt, arch="sm_90a",
                              name="mixed", rtol=1e-2, atol=1e-2)
    # A: full 1, empty 4 (2 stages); B: full 128, empty 4 (3 stages); empty: consumer warps
    assert sorted(_init_counts(final)) == [1, 1] + [4] * 5 + [128] * 3


def test_which_rings_share_a_barrier_pair():
    ctx, allocs, copies = _rings(MIXED.replace("COPIES\n", COPY_B + COPY_A))
    group = tma_ring.ring_group(ctx, allocs["sa"])
    assert group is tma_ring.ring_group(ctx, allocs["sb"]) and group.arrivals == 129
    assert group.first_writer is copies[0] and tma_ring.is_cp_async_copy(copies[0])
    assert tma_ring.barrier_key(ctx, allocs["sb"]) is tma_ring.barrier_key(ctx, allocs["sa"])
    assert tma_ring.full_count(ctx, allocs["sb"]) == 129
    # TMA only: a pair per ring, as before
    ctx, allocs, _ = _rings(MIXED.replace("COPIES\n", COPY_A + COPY_A.replace(
        "%sas, %a", "%sbs, %b")))
    assert tma_ring.ring_group(ctx, allocs["sa"]) is None
    assert tma_ring.full_count(ctx, allocs["sa"]) == 1
    # rings of different stage counts: a pair each; B's full barrier counts its 128 producers
    ctx, allocs, _ = _rings(_three_stage_b(COPY_A + COPY_B))
    assert tma_ring.pipelined(ctx, allocs["sb"]) and tma_ring.ring_group(ctx, allocs["sb"]) is None
    assert tma_ring.full_count(ctx, allocs["sb"]) == 128
    # one warpgroup: no producer warpgroup for the cp.async, B's ring is not pipelined
    ctx, allocs, _ = _rings(MIXED.replace("COPIES\n", COPY_A + COPY_B).replace(
        "threads [256]", "threads [128]"))
    assert not tma_ring.pipelined(ctx, allocs["sb"]) and tma_ring.pipelined(ctx, allocs["sa"])


def test_a_mixed_ring_whose_full_barrier_counts_one_arrival_short_is_a_race():
    """The mixed ring lowered, its full barriers' count edited 129 -> 128 (the TMA issuer's
    arrival forgotten): a phase then completes with the TMA bytes and 127 of the 128
    cp.async.mbarrier.arrive.noinc arrivals, while the last producer thread's cp.async may
    still be in flight (on the hardware, a wgmma reading stale shared memory). The SIMT
    interpreter lands only what the phase needs, so the consumers' wgmma reading that thread's
    bytes is a located error naming its cp.async; with 129 the same module runs to numpy's
    answer."""
    import numpy as np
    from tirx_testing.cuda_every_stage import lower, run
    from tirx_testing.trn_lowering import assert_close, random_inputs
    from xdsl.dialects.builtin import IntegerAttr

    from tirx_mlir.interpreter.runtime import InterpretError

    text = MIXED.replace("COPIES\n", COPY_A + COPY_B)
    final = lower(text, "mixed", arch="sm_90a")
    inputs = random_inputs(parse_module(text, "mixed"), 0)
    (out,) = run(final, inputs)
    assert_close(out, _gemm_bt(*inputs)[0], 1e-2, 1e-2, "mixed ring, count 129")
    counts = {op.operands[1].owner for op in final.walk() if op.name == "ptx.mbarrier_init"}
    (full,) = [c for c in counts if c.value.value.data == 129]
    full.properties["value"] = IntegerAttr(128, full.value.type)
    assert sorted(_init_counts(final)) == [4, 4, 128, 128]
    with pytest.raises(InterpretError) as err:
        run(final, inputs)
    first = str(err.value).splitlines()[0]
    assert "[async] ptx.wgmma_mma_async_ss: reads shared offset" in first, first
    assert "(%sb[" in first and "the destination of the ptx.cp_async at mixed:" in first, first
    assert "issued by thread (255,0,0) of CTA (0,0,0), before the copy has landed" in first
    assert np.isfinite(out).all()


def test_the_consumers_proxy_fence_is_what_lets_wgmma_read_the_cp_async_stages():
    """The mixed ring lowered, its ptx.fence_proxy_async removed: the consumers' wgmma reads B's
    stage that the producers' cp.async wrote through the generic proxy, a located [proxy]
    error naming the cp.async and its thread (the lowered ring with the fence runs to numpy's
    answer in test_a_mixed_ring_shares_one_barrier_pair_per_stage)."""
    from tirx_testing.cuda_every_stage import lower, run
    from tirx_testing.trn_lowering import random_inputs

    from tirx_mlir.interpreter.runtime import InterpretError

    text = MIXED.replace("COPIES\n", COPY_A + COPY_B)
    final = lower(text, "mixed", arch="sm_90a")
    fences = [op for op in final.walk() if op.name == "ptx.fence_proxy_async"]
    assert len(fences) == 1
    fences[0].detach()
    fences[0].erase()
    with pytest.raises(InterpretError, match=r"\[proxy\] ptx.wgmma_mma_async_ss: reads shared "
                                             r"offset \d+ \(%sb\[\d+\]\) .* by the ptx.cp_async "
                                             r"at mixed:\d+:\d+ in thread \(1\d\d,0,0\)"):
        run(final, random_inputs(parse_module(text, "mixed"), 0))


def test_a_one_row_tile_is_a_whole_stage():
    """stage_view drops unit dims on both sides (found by tests/property/cuda_valid_campaign.py:
    a [1, 64] row loaded by TMA was refused as not "one whole [1, 64] tile of its [1, 64]
    buffer")."""
    from tirx_testing.cuda_every_stage import check_every_stage

    g, s = "!tirx.buffer<4x64xf32, global>", "!tirx.buffer<1x64xf32, shared>"
    v = "!tirx.buffer<1x64xf32, global>"
    text = f"""tirx.kernel @k(%X: {g}) -> (%Y: {v}) grid [1] threads [128] target "cuda -arch=sm_90a" {{
  %x = tirx.slice %X[2, 0] [1, 64] : {g} -> {v}
  %t = tirx.alloc : {s}
  tirx.copy_async cta %t, %x dispatch "tma_auto" : {s}, {v}
  tirx.copy cta %Y, %t : {v}, {s}
  tirx.return
}}
"""
    final = check_every_stage(text, lambda x: [x[2:3]], arch="sm_90a", rtol=0, atol=0)
    assert any(op.name.startswith("ptx.cp_async_bulk_tensor") for op in final.walk())
