"""dispatch/shared_refill.py: code that overwrites a shared tile that ops narrower than the CTA
(warp, warpgroup or thread scope, in a CTA of more threads), or wgmmas, touched before starts
with ``__syncthreads``. numpy == the tile interpreter == the SIMT interpreter (its racecheck
on) on the lowered kernel; before the fix each kernel here stopped with a located [race] error at
the overwriting copy (a WAR hazard with another warp's read of the previous pass)."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.cuda_every_stage import lower, run
from tirx_testing.trn_lowering import random_inputs

from tirx_mlir.located_parser import parse_module

from xdsl.dialects import scf

S = "!tirx.buffer<32x64xf32, shared>"
G = "!tirx.buffer<32x64xf32, global>"
L = "!tirx.buffer<32x64xf32, local>"
COL = "!tirx.buffer<32x1xf32, {}>"
GA = "!tirx.buffer<96x64xf32, global>"
LOADS = {"tma": ' dispatch "tma_auto"', "cp.async": ' dispatch "ldgsts"', "copy": ""}


def _load(how: str, scope: str) -> str:
    op = "copy" if how == "copy" else "copy_async"
    return f"tirx.{op} {scope} %s, %ai{LOADS[how]} : {S}, {G}"


def _loop_kernel(how: str, load_scope: str, reader: str) -> str:
    """C = the sum over 3 blocks A_i of A: each pass loads A_i into the shared tile %s
    (``how`` at ``load_scope``), then every warp reads all of it (``reader`` scope) into its
    own register replica and adds it to its accumulator."""
    return f"""tirx.kernel @k(%A: {GA}) -> (%C: {G}) grid [1] threads [128]
    target "cuda -arch=sm_90a" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %s = tirx.alloc : {S}
  %acc = tirx.alloc : {L}
  %r = tirx.alloc : {L}
  tirx.zero {reader} %acc : {L}
  scf.for %i = %c0 to %c3 step %c1 {{
    %ka = arith.muli %i, %c32 : index
    %ai = tirx.slice %A[%ka, 0] [32, 64] : {GA} -> {G}
    {_load(how, load_scope)}
    tirx.copy {reader} %r, %s : {L}, {S}
    tirx.add {reader} %acc, %acc, %r : {L}, {L}, {L}
  }}
  tirx.copy cta %C, %acc : {G}, {L}
  tirx.return
}}
"""


def _check(text: str, reference, **options):
    """numpy == the tile interpreter == the SIMT interpreter after the cuda pipeline (not
    after every pass: the passes after dispatch keep its barriers); the lowered module."""
    module = parse_module(text, "kernel")
    inputs = random_inputs(module, 0)
    expected = reference(*inputs)
    for out, ref in zip(run(module, inputs), expected, strict=True):
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    final = lower(text, arch="sm_90a", **options)
    for out, ref in zip(run(final, inputs), expected, strict=True):
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    return final


def _loop_reference(a):
    return [a[0:32] + a[32:64] + a[64:96]]


def _first_in_loop(module):
    """The first op (not arithmetic) of the pass loop: the largest ``scf.for``."""
    loops = [o for o in module.walk() if isinstance(o, scf.ForOp)]
    loop = max(loops, key=lambda o: sum(1 for _ in o.walk()))
    return next(o for o in loop.body.block.ops if not o.name.startswith("arith."))


@pytest.mark.parametrize("how,load_scope,reader", [
    ("tma", "cta", "warp"), ("tma", "warpgroup", "warp"), ("tma", "warpgroup", "thread"),
    ("cp.async", "warpgroup", "warp"), ("cp.async", "cta", "warp"),
    ("copy", "warpgroup", "warp"), ("copy", "warpgroup", "thread")])
def test_a_reload_after_other_warps_read_the_tile_starts_with_syncthreads(how, load_scope,
                                                                           reader):
    """``num_stages=1``: cuda-pipeline-k-loop leaves a cp.async load in place (its ring,
    with a barrier per iteration, orders the refills itself). Before the fix: a located
    [race] at the load, a WAR hazard with warp 3's read of the previous block (for cp.async
    only once the SIMT racecheck checked a cp.async at its issue, async_copy.py)."""
    text = _loop_kernel(how, load_scope, reader)
    final = _check(text, _loop_reference, num_stages=1)
    assert _first_in_loop(final).name == "cuda.sync_threads"


def test_a_reload_read_by_the_cta_only_gets_no_extra_barrier():
    """Readers at CTA scope end with ``__syncthreads``: the TMA reload adds none (the code
    is main's: one barrier, the reader's, per pass)."""
    text = _loop_kernel("tma", "cta", "cta")
    final = _check(text, _loop_reference)
    assert _first_in_loop(final).name != "cuda.sync_threads"


def _composite_kernel(where: str) -> str:
    """Row sums of 2 A_i (``binary_reduce warp``: an add, then a sum, each at warp scope)
    of two blocks of A into C's columns: in a loop (``where`` "loop") or the loop unrolled
    ("twice": the second load follows the first composite op in the kernel's body, which was
    dispatched, as the ops it decomposes into, before it)."""
    col, gc = COL.format("local"), COL.format("global")
    c_type = "!tirx.buffer<32x2xf32, global>"
    step = f"""    %ka = arith.muli %i, %c32 : index
    %ai = tirx.slice %A[%ka, 0] [32, 64] : {GA} -> {G}
    tirx.copy_async cta %s, %ai dispatch "tma_auto" : {S}, {G}
    tirx.binary_reduce warp %e, %rs, %s, %s binary add reduce sum : {L}, {col}, {S}, {S}
    %ci = tirx.slice %C[0, %i] [32, 1] : {c_type} -> {gc}
    tirx.copy cta %ci, %rs : {gc}, {col}
"""
    if where == "loop":
        body = "  scf.for %i = %c0 to %c2 step %c1 {\n" + step + "  }\n"
    else:
        body = "".join(step.replace("%ka", f"%ka{i}").replace("%ai", f"%ai{i}")
                       .replace("%ci", f"%ci{i}").replace("%i,", f"%c{i},")
                       .replace("%i]", f"%c{i}]") for i in range(2))
    return f"""tirx.kernel @k(%A: {GA}) -> (%C: {c_type}) grid [1] threads [128]
    target "cuda -arch=sm_90a" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %s = tirx.alloc : {S}
  %e = tirx.alloc : {L}
  %rs = tirx.alloc : {col}
{body}  tirx.return
}}
"""


def _composite_reference(a):
    return [2 * np.stack([a[0:32].sum(1), a[32:64].sum(1)], axis=1)]


@pytest.mark.parametrize("where", ["loop", "twice"])
def test_a_reload_after_a_composite_op_that_read_the_tile_starts_with_syncthreads(where):
    """A composite op (``binary_reduce``) records what it touches as the ops it decomposes
    into are dispatched ("twice": the record; "loop": the scan of the loop's tile ops sees the
    composite op itself, narrower than the CTA). Before the fix: the located [race] at the
    second TMA load."""
    final = _check(_composite_kernel(where), _composite_reference)
    loads = [o for o in final.walk() if o.name == "ptx.cp_async_bulk_tensor_g2s"]
    assert _syncs_right_before(loads[-1]) >= 1  # the loop may be unrolled: the last load


def _syncs_right_before(op) -> int:
    """``__syncthreads`` among the ops before the ``scf.if`` (the issuing thread's) that
    holds ``op``, back to the previous op that is not arithmetic."""
    guard = op
    while not isinstance(guard, scf.IfOp):
        guard = guard.parent_op()
    n, prev = 0, guard.prev_op
    while prev is not None and (prev.name.startswith("arith.") or
                                prev.name == "cuda.sync_threads" or
                                prev.name.startswith("cuda.thread_idx")):
        n += prev.name == "cuda.sync_threads"
        prev = prev.prev_op
    return n


def test_the_first_load_of_a_tile_gets_no_barrier():
    """Nothing touched the tile before its first load: no barrier (the fix adds one only
    after narrower ops or wgmmas touched the tile)."""
    final = lower(_composite_kernel("twice"), arch="sm_90a")
    first = next(o for o in final.walk() if o.name == "ptx.cp_async_bulk_tensor_g2s")
    assert _syncs_right_before(first) == 0


def _guarded_kernel(how: str, load_scope: str, reader: str, skip: int) -> str:
    """`_loop_kernel` with the load inside ``scf.if %i != skip`` (a CTA-uniform condition:
    the pass number; ``skip`` 3: never skipped)."""
    text = _loop_kernel(how, load_scope, reader)
    load = _load(how, load_scope)
    guarded = (f"%cs = arith.constant {skip} : index\n"
               f"    %p = arith.cmpi ne, %i, %cs : index\n"
               f"    scf.if %p {{\n      {load}\n    }}")
    return text.replace(load, guarded)


def _guarded_reference(skip):
    """Each pass adds the last block loaded: pass ``skip`` adds the previous one again."""
    def reference(a):
        blocks = [a[32 * i:32 * i + 32] for i in range(3)]
        return [sum(blocks[i - 1] if i == skip else blocks[i] for i in range(3))]
    return reference


@pytest.mark.parametrize("how,load_scope,reader,skip", [
    ("tma", "warpgroup", "warp", 3), ("tma", "warpgroup", "thread", 1),
    ("cp.async", "warpgroup", "warp", 2), ("copy", "warpgroup", "thread", 3)])
def test_a_reload_inside_a_cta_uniform_branch_starts_with_syncthreads(how, load_scope, reader,
                                                                       skip):
    """A warpgroup-scope reload (a CTA of one warpgroup) inside ``scf.if`` on the pass number:
    every thread takes the branch or none does, so the barrier is safe there and needed.
    Before: no barrier under an ``scf.if`` for a writer below CTA scope, and a located [race]
    at the load (a WAR hazard with another warp's read of the previous pass)."""
    final = _check(_guarded_kernel(how, load_scope, reader, skip), _guarded_reference(skip),
                   num_stages=1)
    guard = next(o for o in final.walk() if isinstance(o, scf.IfOp)
                 and any(x.name == "cuda.sync_threads" for x in o.true_region.walk()))
    assert guard is not None


def test_a_reload_under_a_branch_on_a_warp_id_gets_no_barrier():
    """A branch on ``tirx.warpgroup_id`` may hold in some warps only: a ``__syncthreads``
    there would hang, so the narrower writer inside gets none (the program orders its own
    warp specialisation); the condition is not proven CTA-uniform."""
    text = _loop_kernel("copy", "warp", "warp").replace("threads [128]", "threads [256]")
    load = _load("copy", "warp")
    text = text.replace(load, "%wg = tirx.warpgroup_id : index\n"
                              "    %p = arith.cmpi eq, %wg, %c0 : index\n"
                              f"    scf.if %p {{\n      {load}\n    }}")
    final = lower(text, arch="sm_90a")
    ifs = [o for o in final.walk() if isinstance(o, scf.IfOp)]
    assert ifs and not any(x.name == "cuda.sync_threads" for o in ifs
                           for x in o.true_region.walk())


TWO_AG = "!tirx.buffer<128x64xf32, global>"


def _two_tiles_kernel(between: str = "") -> str:
    """Two tiles loaded by the TMA, read by every warp, ``between`` (IR lines), then both
    reloaded and read again: C = the sum of A's 4 blocks."""
    return f"""tirx.kernel @k(%A: {TWO_AG}) -> (%C: {G}) grid [1] threads [128]
    target "cuda -arch=sm_90a" {{
  %c0 = arith.constant 0 : index
  %s = tirx.alloc : {S}
  %t = tirx.alloc : {S}
  %r = tirx.alloc : {L}
  %q = tirx.alloc : {L}
  %a0 = tirx.slice %A[0, 0] [32, 64] : {TWO_AG} -> {G}
  %a1 = tirx.slice %A[32, 0] [32, 64] : {TWO_AG} -> {G}
  %a2 = tirx.slice %A[64, 0] [32, 64] : {TWO_AG} -> {G}
  %a3 = tirx.slice %A[96, 0] [32, 64] : {TWO_AG} -> {G}
  tirx.copy_async cta %s, %a0 dispatch "tma_auto" : {S}, {G}
  tirx.copy_async cta %t, %a1 dispatch "tma_auto" : {S}, {G}
  tirx.add warp %r, %s, %t : {L}, {S}, {S}
{between}  tirx.copy_async cta %s, %a2 dispatch "tma_auto" : {S}, {G}
  tirx.copy_async cta %t, %a3 dispatch "tma_auto" : {S}, {G}
  tirx.add warp %q, %s, %t : {L}, {S}, {S}
  tirx.add warp %r, %r, %q : {L}, {L}, {L}
  tirx.copy cta %C, %r : {G}, {L}
  tirx.return
}}
"""


def _four_blocks(a):
    return [a[0:32] + a[32:64] + a[64:96] + a[96:128]]


def _tile_loads(module) -> list:
    """The first box copy of each tile load, in order (a 32x64 f32 tile takes two boxes)."""
    loads = [o for o in module.walk() if o.name == "ptx.cp_async_bulk_tensor_g2s"]
    return loads[::2]


def test_the_second_reload_after_a_refill_barrier_gets_none():
    """The barrier before the reload of ``s`` also orders the warps' reads of ``t`` before
    the reload of ``t``: that one starts with no second ``__syncthreads`` (before: two)."""
    final = _check(_two_tiles_kernel(), _four_blocks)
    assert [_syncs_right_before(o) for o in _tile_loads(final)] == [0, 0, 1, 0]


def test_a_reload_after_a_cta_scope_op_gets_no_refill_barrier():
    """A CTA-scope op between the warps' reads and the reloads ends with ``__syncthreads``
    (the one before the third load): the reloads add none (before: ``[0, 0, 2, 1]``, a refill
    barrier right after the CTA op's and one more before the reload of ``t``)."""
    between = f"  %w = tirx.alloc : {S}\n  tirx.copy cta %w, %s : {S}, {S}\n"
    final = _check(_two_tiles_kernel(between), _four_blocks)
    assert [_syncs_right_before(o) for o in _tile_loads(final)] == [0, 0, 1, 0]


def test_a_barrier_inside_a_branch_does_not_clear_the_reads_before_it():
    """The refill barrier of a reload inside ``scf.if`` runs only when the branch is taken:
    the reload after the ``scf.if`` still starts with ``__syncthreads`` (the warps' reads
    before the branch are unordered on the path that skips it)."""
    between = ("  %no = arith.cmpi ne, %c0, %c0 : index\n  scf.if %no {\n"
               f"    tirx.copy_async cta %s, %a3 dispatch \"tma_auto\" : {S}, {G}\n  }}\n")
    final = _check(_two_tiles_kernel(between), _four_blocks)
    outer = [o for o in _tile_loads(final) if not isinstance(_outer_if(o).parent_op(), scf.IfOp)]
    assert [_syncs_right_before(o) for o in outer] == [0, 0, 1, 0]


def _outer_if(op):
    """The issuing thread's ``scf.if`` holding ``op``."""
    while not isinstance(op, scf.IfOp):
        op = op.parent_op()
    return op


def test_cta_uniform_values():
    """`cta_uniform`: arithmetic on constants, CTA-level ids and the induction variable of a
    loop with such bounds, and an element of a global buffer at such an index, is uniform; a
    per-thread id, anything computed from one, a loop's carried value, a loop variable of a
    loop bounded by a per-thread id and an element of a local buffer are not."""
    from tirx_mlir.backends.cuda.dispatch.shared_refill import cta_uniform
    from tirx_mlir.dialects.tirx.kernel import KernelOp

    module = parse_module("""tirx.kernel @k(%n: index, %g: !tirx.buffer<4xi32, global>)
    grid [2] threads [64] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cta = tirx.cta_id : index
  %w = tirx.warp_id : index
  %l = tirx.alloc : !tirx.buffer<4xi32, local>
  %gl = tirx.load %g[%cta] : !tirx.buffer<4xi32, global>
  %ll = tirx.load %l[%cta] : !tirx.buffer<4xi32, local>
  %gw = tirx.load %g[%w] : !tirx.buffer<4xi32, global>
  %a = arith.addi %cta, %n : index
  %b = arith.addi %a, %w : index
  %r = scf.for %i = %c0 to %a step %c1 iter_args(%x = %c0) -> (index) {
    %u = arith.muli %i, %cta : index
    scf.for %j = %c0 to %w step %c1 {
      %v = arith.addi %j, %c1 : index
    }
    scf.yield %x : index
  }
  tirx.return
}
""", "kernel")
    kernel = next(o for o in module.walk() if isinstance(o, KernelOp))
    named = {v.name_hint: v for o in module.walk() for r in o.regions for blk in r.blocks
             for v in blk.args}
    named |= {r.name_hint: r for o in module.walk() for r in o.results}
    names = "n c0 cta a i u gl w b x j v ll gw".split()
    assert {k: cta_uniform(named[k], kernel) for k in names} == {
        "n": True, "c0": True, "cta": True, "a": True, "i": True, "u": True, "gl": True,
        "w": False, "b": False, "x": False, "j": False, "v": False, "ll": False, "gw": False}


def test_a_reload_after_a_cluster_sync_gets_no_refill_barrier():
    """``tirx.cluster_sync`` between the warps' reads and the reloads is a barrier of every
    thread of the cluster's CTAs: the reloads add no ``__syncthreads`` (before: one before
    each, ``[0, 0, 1, 1]``)."""
    text = _two_tiles_kernel("  tirx.cluster_sync cluster\n").replace(
        "grid [1] threads [128]", "grid [2] threads [128] cluster [2]")
    module = parse_module(text, "kernel")
    inputs = random_inputs(module, 0)
    final = lower(text, arch="sm_90a")
    for out, ref in zip(run(final, inputs), run(module, inputs), strict=True):
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(run(module, inputs)[0], _four_blocks(inputs[0])[0], rtol=1e-5)
    assert [_syncs_right_before(o) for o in _tile_loads(final)] == [0, 0, 0, 0]
    assert any(o.name == "cuda.sync_cluster" for o in final.walk())


AFTER_PIPELINED_LOOP = f"""tirx.kernel @k(%A: {GA}, %Y: {G}, %Z: {G}) -> (%C: {G}, %D: {GA})
    grid [1] threads [128] target "cuda -arch=sm_90a" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %s = tirx.alloc : {S}
  %y = tirx.alloc : {S}
  %acc = tirx.alloc : {L}
  %r = tirx.alloc : {L}
  tirx.copy cta %y, %Y : {S}, {G}
  tirx.zero warp %acc : {L}
  scf.for %i = %c0 to %c3 step %c1 {{
    %ka = arith.muli %i, %c32 : index
    %ai = tirx.slice %A[%ka, 0] [32, 64] : {GA} -> {G}
    %di = tirx.slice %D[%ka, 0] [32, 64] : {GA} -> {G}
    tirx.copy cta %s, %ai : {S}, {G}
    tirx.copy warp %r, %y : {L}, {S}
    tirx.add warp %acc, %acc, %r : {L}, {L}, {L}
    tirx.copy cta %di, %s : {G}, {S}
  }}
  tirx.copy warpgroup %y, %Z : {S}, {G}
  tirx.copy warp %r, %y : {L}, {S}
  tirx.add warp %acc, %acc, %r : {L}, {L}, {L}
  tirx.copy cta %C, %acc : {G}, {L}
  tirx.return
}}
"""


@pytest.mark.parametrize("stages", [1, 3])
def test_a_write_after_a_pipelined_loop_is_ordered_after_the_bodys_reads(stages):
    """Review finding: the loop body's last CTA op ends with ``__syncthreads``, which orders
    the warps' reads of %y before the body's later writes but not before the warpgroup's
    overwrite after the loop: ``cuda-pipeline-k-loop`` (num_stages > 1) moves that trailing
    barrier to the top of each iteration. With the barrier taken as ending the reads, the
    SIMT racecheck stopped the pipelined kernel with a located [race] (WAR) at the write."""
    module = parse_module(AFTER_PIPELINED_LOOP, "kernel")
    inputs = random_inputs(module, 0)
    a, y, z = inputs[:3]
    expected = [3 * y + z, a]
    for out, ref in zip(run(module, inputs), expected, strict=True):
        np.testing.assert_allclose(out, ref, rtol=1e-5)
    final = lower(AFTER_PIPELINED_LOOP, arch="sm_90a", num_stages=stages)
    for out, ref in zip(run(final, inputs), expected, strict=True):
        np.testing.assert_allclose(out, ref, rtol=1e-5)
