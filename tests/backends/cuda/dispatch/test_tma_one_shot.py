"""dispatch/tma_one_shot.py and tma_ring.py's `same_control`: a TMA load into a plain shared tile
before a loop whose ``gemm_async`` reads it every iteration is a one-shot load (its barrier's
phase 0, waited for once before the loop), not a one-stage ring whose consumers wait for a new
phase each iteration (which no copy completes: a deadlock). numpy == the tile interpreter ==
the SIMT interpreter after every pass; CUDA that nvcc compiles and PTX that ptxas assembles
for sm_90a, without spills or advisories."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from tirx_testing.cuda_every_stage import check_every_stage, lower, run

from xdsl.dialects import scf

from tirx_mlir.backends.cuda.dispatch import tma_ring
from tirx_mlir.backends.cuda.host_tensor_maps import bind_arguments
from tirx_mlir.backends.cuda.interpreter import simulate
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import kernels
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.located_parser import parse_module

F16 = "!tirx.buffer<64x64xf16, {}>"
TILE, GT = F16.format("shared"), F16.format("global")
RING = "!tirx.buffer<2x64x64xf16, shared>"
ACC = "!tirx.buffer<64x64xf32, local>"
BLOCKS = 3
"""KV-like blocks of the loop: a 2-stage ring's stage is refilled."""


def _kernel(threads: int, b_form: str) -> str:
    """C = sum over the loop's blocks j of A @ B_j^T (``b_form`` "ring": B_j a block of B
    through a 2-stage TMA ring; "plain": B_j = B, one tile copied by ``tirx.copy`` before the
    loop). A is loaded once by the TMA before the loop (128B-swizzled by default)."""
    if b_form == "ring":
        b_in, bsrc = f"!tirx.buffer<{64 * BLOCKS}x64xf16, global>", "%sb"
        body = f"""    %st = arith.remui %j, %c2 : index
    %kb = arith.muli %j, %c64 : index
    %bj = tirx.slice %B[%kb, 0] [64, 64] : {b_in} -> {GT}
    %b3 = tirx.slice %rb[%st, 0, 0] [1, 64, 64] : {RING} -> !tirx.buffer<1x64x64xf16, shared>
    %sb = tirx.reshape %b3 : !tirx.buffer<1x64x64xf16, shared> -> {TILE}
    tirx.copy_async cta %sb, %bj dispatch "tma_auto" : {TILE}, {GT}
"""
        before = f"  %rb = tirx.alloc : {RING}\n"
    else:
        b_in, bsrc, body = GT, "%sb", ""
        before = f"  %sb = tirx.alloc : {TILE}\n  tirx.copy cta %sb, %B : {TILE}, {GT}\n"
    return f"""tirx.kernel @k(%A: {GT}, %B: {b_in}) -> (%C: !tirx.buffer<64x64xf32, global>)
    grid [1] threads [{threads}] target "cuda -arch=sm_90a" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %cn = arith.constant {BLOCKS} : index
  %sa = tirx.alloc : {TILE}
  %acc = tirx.alloc : {ACC}
{before}  tirx.copy_async cta %sa, %A dispatch "tma_auto" : {TILE}, {GT}
  tirx.zero cta %acc : {ACC}
  scf.for %j = %c0 to %cn step %c1 {{
{body}    tirx.gemm_async cta %acc, %sa, {bsrc} accum : {ACC}, {TILE}, {TILE}
  }}
  tirx.copy cta %C, %acc : !tirx.buffer<64x64xf32, global>, {ACC}
  tirx.return
}}
"""


def _reference(a, b):
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    if b.shape[0] == 64:
        return [BLOCKS * (a32 @ b32.T)]
    return [sum(a32 @ b32[64 * j:64 * j + 64].T for j in range(BLOCKS))]


FORMS = [(256, "ring"), (256, "plain"), (128, "ring"), (128, "plain")]


@pytest.mark.parametrize("threads,b_form", FORMS)
def test_a_tile_loaded_once_before_the_loop_at_every_stage_and_compiled(threads, b_form):
    # before the fix: a located [deadlock] at the second iteration's wait for A's barrier
    text = _kernel(threads, b_form)
    final = check_every_stage(text, _reference, arch="sm_90a", rtol=1e-3, atol=1e-2)
    waits = _waits_outside_loops(final)
    assert len(waits) == 1  # A's phase 0, before the loop; the ring's waits are in the loop
    assert "ptx.fence_proxy_async" not in _names(final) or b_form == "plain"


@pytest.mark.parametrize("b_form", ["ring", "plain"])
def test_a_tile_copied_once_by_cp_async_before_the_loop(b_form):
    """The same with A by cp.async (``dispatch "ldgsts"``) in a CTA with a producer warpgroup:
    no pipelined cp.async ring either (before the fix: the same deadlock, on the 128 arrivals
    of its full barrier's second phase); async_completion.py completes it before its reader."""
    text = _kernel(256, b_form).replace('%sa, %A dispatch "tma_auto"', '%sa, %A dispatch "ldgsts"')
    check_every_stage(text, _reference, arch="sm_90a", rtol=1e-3, atol=1e-2)


def test_only_the_consumers_wait_for_a_once_and_the_producer_goes_on():
    """In a CTA with a producer warpgroup, the consumers (warpgroup 0) wait for A's phase
    once before the loop; the producer's thread issues A and goes on to the ring (it is no
    reader of A); nothing in the loops waits for A's barrier again, and nothing fences A for
    the async proxy (TMA writes it, its barrier makes the bytes visible)."""
    final = lower(_kernel(256, "ring"), arch="sm_90a")
    (wait,) = _waits_outside_loops(final)
    guard = wait.parent_op().parent_op()
    assert isinstance(guard, scf.IfOp)
    cond = guard.cond.owner  # threadIdx.x / 128 < 1
    assert cond.name == "arith.cmpi" and cond.predicate.value.data == 6  # ult
    assert cond.rhs.owner.value.value.data == 1
    wg = cond.lhs.owner
    assert wg.name == "arith.divui" and wg.rhs.owner.value.value.data == 128
    assert "ptx.fence_proxy_async" not in _names(final)
    # the producer warpgroup never waits for A, and the SIMT race check finds no read of A's
    # bytes before they land
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((64, 64)).astype(np.float16), \
        rng.standard_normal((64 * BLOCKS, 64)).astype(np.float16)
    got = simulate(final, None, *bind_arguments(KernelRunner(final).kernel, [a, b]),
                   racecheck=True)
    np.testing.assert_allclose(got.outputs[0], _reference(a, b)[0], rtol=1e-3, atol=1e-2)


def test_a_ring_loop_reading_a_one_shot_tile_keeps_one_wgmma_group_in_flight():
    """A (one-shot) and B's ring stages: the K loop keeps one group in flight
    (wgmma_in_flight.py: ``wait_group 1`` in the loop, the drain's ``wait_group 0`` after it),
    as a loop of two rings does; in a CTA of one warpgroup (no producer of its own) it waits
    at once."""
    def waits(threads):
        final = lower(_kernel(threads, "ring"), arch="sm_90a")
        return [o.properties["n"].value.data for o in final.walk()
                if o.name == "ptx.wgmma_wait_group"]
    assert waits(256) == [1, 0]
    assert waits(128) == [0]


def test_a_one_shot_load_is_no_ring_and_a_ring_in_its_loop_is_one():
    module = parse_module(_kernel(256, "ring"), "k.mlir")
    (kernel,) = kernels(module)
    allocs = {op.result.name_hint: op.result for op in kernel.walk() if isinstance(op, AllocOp)}
    ctx = SimpleNamespace(kernel=kernel, shared_state={})
    assert not tma_ring.pipelined(ctx, allocs["sa"])
    assert tma_ring.pipelined(ctx, allocs["rb"])


def test_a_tile_filled_in_a_loop_and_read_after_it_is_no_ring():
    """The other way round: two fills of one stage in a loop, one read after it (the last
    fill's tile). As a ring, the second fill would wait for a release no read gives."""
    text = _kernel(256, "plain").replace(
        f"  tirx.copy_async cta %sa, %A dispatch \"tma_auto\" : {TILE}, {GT}\n", "")
    text = text.replace(
        "  scf.for %j = %c0 to %cn step %c1 {\n",
        "  scf.for %i = %c0 to %c2 step %c1 {\n"
        f"    tirx.copy_async cta %sa, %A dispatch \"tma_auto\" : {TILE}, {GT}\n  }}\n"
        "  scf.for %j = %c0 to %cn step %c1 {\n")
    check_every_stage(text, _reference, arch="sm_90a", rtol=1e-3, atol=1e-2, compile=False)


def test_a_one_shot_load_read_by_a_copy_is_waited_for_by_every_thread():
    """A read by a ``tirx.copy`` too (every thread reads it): every thread waits."""
    text = _kernel(256, "plain").replace(
        "  tirx.copy cta %C, %acc",
        f"  %ad = tirx.alloc : {TILE}\n  tirx.copy cta %ad, %sa : {TILE}, {TILE}\n"
        "  tirx.copy cta %C, %acc")
    final = lower(text, arch="sm_90a")
    (wait,) = _waits_outside_loops(final)
    assert not isinstance(wait.parent_op().parent_op(), scf.IfOp)
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((64, 64)).astype(np.float16) for _ in range(2))
    (c,) = run(final, [a, b])
    np.testing.assert_allclose(c, _reference(a, b)[0], rtol=1e-3, atol=1e-2)


def _names(module) -> list[str]:
    return [op.name for op in module.walk()]


def _waits_outside_loops(module) -> list:
    """The mbarrier waits (their ``scf.while``'s try_wait) in no ``scf.for``."""
    found = []
    for op in module.walk():
        if op.name != "ptx.mbarrier_try_wait_parity":
            continue
        parent, looped = op.parent_op().parent_op(), False  # the scf.while, then up
        while parent is not None:
            looped |= isinstance(parent, scf.ForOp)
            parent = parent.parent_op()
        if not looped:
            found.append(op)
    return found


def _outer_kernel(variant: str, threads: int) -> str:
    """C = sum over i of A_i @ (sum over j of B_ij)^T: A_i (A's i-th 64 columns) loaded once
    per outer step i, before the inner loop over B's blocks through a 2-stage TMA ring."""
    a_in, b_in = "!tirx.buffer<64x128xf16, global>", "!tirx.buffer<64x256xf16, global>"
    return f"""tirx.kernel @k(%A: {a_in}, %B: {b_in}) -> (%C: !tirx.buffer<64x64xf32, global>)
    grid [1] threads [{threads}] target "cuda -arch=sm_90a" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %sa = tirx.alloc : {TILE}
  %rb = tirx.alloc : {RING}
  %acc = tirx.alloc : {ACC}
  tirx.zero cta %acc : {ACC}
  scf.for %i = %c0 to %c2 step %c1 {{
    %ka = arith.muli %i, %c64 : index
    %ai = tirx.slice %A[0, %ka] [64, 64] : {a_in} -> {GT}
    tirx.copy_async cta %sa, %ai dispatch "{variant}" : {TILE}, {GT}
    %kb0 = arith.muli %i, %c128 : index
    scf.for %j = %c0 to %c2 step %c1 {{
      %kj = arith.muli %j, %c64 : index
      %kb = arith.addi %kb0, %kj : index
      %bj = tirx.slice %B[0, %kb] [64, 64] : {b_in} -> {GT}
      %b3 = tirx.slice %rb[%j, 0, 0] [1, 64, 64] : {RING} -> !tirx.buffer<1x64x64xf16, shared>
      %sb = tirx.reshape %b3 : !tirx.buffer<1x64x64xf16, shared> -> {TILE}
      tirx.copy_async cta %sb, %bj dispatch "tma_auto" : {TILE}, {GT}
      tirx.gemm_async cta %acc, %sa, %sb accum : {ACC}, {TILE}, {TILE}
    }}
  }}
  tirx.copy cta %C, %acc : !tirx.buffer<64x64xf32, global>, {ACC}
  tirx.return
}}
"""


def _outer_reference(a, b):
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    return [sum(a32[:, 64 * i:64 * i + 64] @ b32[:, 64 * (2 * i + j):64 * (2 * i + j) + 64].T
                for i in range(2) for j in range(2))]


@pytest.mark.parametrize("variant,threads", [("tma_auto", 256), ("ldgsts", 256),
                                             ("tma_auto", 128)])
def test_a_one_shot_tile_reloaded_in_an_outer_loop_waits_for_the_last_wgmma(variant, threads):
    """The load of A_(i+1) overwrites the tile that step i's wgmmas read: it starts with a
    ``__syncthreads`` (after the consumers' drain). Before the fix the producer's thread (TMA)
    or the producer warpgroup (cp.async) wrote it while the consumers' last wgmma of step i
    could still read it: the SIMT interpreter's located [async] error at the load."""
    check_every_stage(_outer_kernel(variant, threads), _outer_reference, arch="sm_90a",
                      rtol=1e-3, atol=1e-2, compile=False)
    final = lower(_outer_kernel(variant, threads), arch="sm_90a")
    outer = next(o for o in final.walk() if isinstance(o, scf.ForOp) and any(
        w.name.startswith("ptx.wgmma_mma") for w in o.walk()))
    first = next(o for o in outer.body.block.ops if o.name.startswith(("cuda.sync", "ptx.cp",
                                                                        "scf.if")))
    assert first.name == "cuda.sync_threads"


def _twice_kernel(variant: str) -> str:
    """`_outer_kernel`'s outer loop unrolled: two loads of A, each before its K loop (the
    second follows the first loop's wgmmas in the kernel's body)."""
    text = _outer_kernel(variant, 256)
    head, rest = text.split("  scf.for %i = %c0 to %c2 step %c1 {\n")
    body, tail = rest.split("  }\n  tirx.copy cta %C")
    steps = []
    for i in range(2):
        step = body
        for name in ("%ka", "%ai", "%kb0", "%kj", "%kb ", "%kb]", "%bj", "%b3", "%sb ", "%sb,",
                     "%j ", "%j,", "%j]"):
            step = step.replace(name, f"{name[:-1] if name[-1] in ' ,]' else name}_{i}"
                                f"{name[-1] if name[-1] in ' ,]' else ''}")
        steps.append(f"  %i_{i} = arith.constant {i} : index\n" +
                     step.replace("%i,", f"%i_{i},"))
    return head + "".join(steps) + "  tirx.copy cta %C" + tail


@pytest.mark.parametrize("variant", ["tma_auto", "ldgsts"])
def test_a_one_shot_tile_reloaded_after_a_k_loop_waits_for_its_wgmmas(variant):
    """The same reload in the kernel's body, after the first K loop: those GEMMs were
    dispatched before the load and noted what they read (tma_one_shot.note_reads). Before the
    fix: the located [async] error at the second load."""
    text = _twice_kernel(variant)
    assert text.count("tirx.copy_async cta %sa") == 2 and "scf.for %i " not in text
    check_every_stage(text, _outer_reference, arch="sm_90a", rtol=1e-3, atol=1e-2,
                      compile=False)
