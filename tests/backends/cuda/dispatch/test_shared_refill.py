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
