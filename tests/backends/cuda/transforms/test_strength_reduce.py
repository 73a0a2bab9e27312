"""``cuda-strength-reduce``: a ring slot ``(k / BK + s) % stages`` of a loop becomes a carried
count (scaled when it is only used scaled; one register for slots that differ by a constant),
what is not affine in the induction variable stays a remainder, and the kernel computes the
same (SIMT interpreter) for every trip count."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, scf

from tirx_mlir.backends.cuda.loop_hints import is_nounroll
from tirx_mlir.backends.cuda.transforms.narrow_index import CudaNarrowIndexPass
from tirx_mlir.backends.cuda.transforms.strength_reduce import CudaStrengthReducePass
from tirx_mlir.located_parser import parse_module
from tirx_testing.simt import cuda_kernel, run_simt

G = "!tirx.buffer<4096xf32, global>"


def body(ub: int) -> str:
    return f"""  %t = cuda.thread_idx x : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %ub = arith.constant {ub} : index
  scf.for %k = %c0 to %ub step %c32 {{
    %q = arith.divui %k, %c32 : index
    %y = arith.addi %q, %c2 : index
    %slot = arith.remui %y, %c3 : index
    %y1 = arith.addi %y, %c2 : index
    %next = arith.remui %y1, %c3 : index
    %off = arith.muli %next, %c128 : index
    %tq = arith.remui %t, %c3 : index
    %mix = arith.muli %t, %k : index
    %odd = arith.remui %mix, %c3 : index
    %tk = arith.addi %t, %k : index
    %slid = arith.remui %tk, %c3 : index
    %a = arith.muli %slot, %c128 : index
    %i = arith.addi %a, %t : index
    %j0 = arith.addi %off, %t : index
    %j1 = arith.muli %q, %c128 : index
    %j3 = arith.addi %j1, %odd : index
    %j2 = arith.addi %j3, %slid : index
    %j = arith.addi %j0, %j2 : index
    %x = cuda.load %X, %i : {G}, index -> f32
    %w = cuda.load %X, %tq : {G}, index -> f32
    %s = arith.addf %x, %w : f32
    cuda.store %Y, %j, %s : {G}, index, f32
  }}
"""


def text(ub: int = 512) -> str:
    return cuda_kernel(f"(%X: {G}) -> (%Y: {G})", body(ub), "grid [1] threads [128]",
                       "cuda -arch=sm_80")


def reduced(src: str, narrow: bool = True):
    module = parse_module(src, "k.mlir")
    if narrow:
        CudaNarrowIndexPass().apply(Context(), module)
    CudaStrengthReducePass().apply(Context(), module)
    module.verify()
    return module


def loop_of(module) -> scf.ForOp:
    return next(op for op in module.walk() if isinstance(op, scf.ForOp))


def remainders(op) -> list:
    return [o for o in op.walk() if isinstance(o, arith.RemUIOp)]


def test_the_ring_slots_are_one_carried_count():
    loop = loop_of(reduced(text()))
    assert loop.body.block.args[0].type.width.data == 32  # narrowed first
    # slot and next differ by a constant: one register; (t + k) % 3 another, from t % 3
    assert len(loop.iter_args) == 2
    left = sorted(o.lhs.owner.name for o in remainders(loop))
    # %odd: (t * k) % 3 is not affine in k; %tq = t % 3 does not change (cuda-hoist-invariants'
    # business)
    assert left == ["arith.index_cast", "arith.muli"]


def test_a_slot_used_only_scaled_is_carried_scaled():
    src = text().replace("    %a = arith.muli %slot, %c128 : index\n",
                         "    %a = arith.muli %slot, %c128 : index\n"
                         "    %sl = arith.addi %slot, %c0 : index\n")
    # %slot now has a user that is not a product: the count is carried unscaled
    unscaled = loop_of(reduced(src.replace("%i = arith.addi %a, %t", "%i = arith.addi %sl, %t")))
    scaled = loop_of(reduced(text()))
    start = lambda lp: lp.iter_args[0].owner  # noqa: E731
    assert isinstance(start(scaled), arith.MuliOp)
    assert not isinstance(start(unscaled), arith.MuliOp)


def test_an_index_loop_is_reduced_too():
    loop = loop_of(reduced(text(), narrow=False))
    assert len(loop.iter_args) == 2 and len(remainders(loop)) == 2  # %odd, %tq


def test_the_kernel_computes_the_same_for_every_trip_count():
    x = np.random.default_rng(0).random(4096, dtype=np.float32)
    for ub in (0, 32, 96, 512):
        (before,), _ = run_simt(text(ub), x)
        for narrow in (True, False):
            (after,), _ = run_simt(str(reduced(text(ub), narrow)), x)
            np.testing.assert_array_equal(after, before)
    assert np.isfinite(before).sum() > 128 * 8  # the 16 trips of ub = 512 stored


def test_the_rebuilt_loop_keeps_its_hints():
    """The loop rebuilt with the carried slots keeps the old one's attributes (cuda.nounroll,
    which the printers turn into an unroll pragma)."""
    src = text().replace("    cuda.store %Y, %j, %s : " + G + ", index, f32\n  }",
                         "    cuda.store %Y, %j, %s : " + G + ", index, f32\n  } {cuda.nounroll}")
    assert "{cuda.nounroll}" in src
    module = reduced(src)
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert len(loop.iter_args) >= 1 and is_nounroll(loop)


def test_the_pass_reports_each_rebuilt_loop(monkeypatch):
    """The verification after it visits only what it reports (`tirx_mlir.verification`): the
    audit finds every change reported, and drops of the reports are caught."""
    from tirx_testing.reports import reported_points, silenced_is_caught

    example = "examples/cuda/tile/gemm_sm80.mlir"
    assert reported_points(example, "cuda", "cuda-strength-reduce") == 1
    assert silenced_is_caught(monkeypatch, example, "cuda", "cuda-strength-reduce")


def test_a_kernel_without_a_countable_remainder_skips_the_ranges(monkeypatch):
    """Remainders by a power of two only (an ``and`` each): the kernel is left as it was and its
    value ranges are not computed; one remainder by 3 and they are, and it is carried."""
    import tirx_mlir.backends.cuda.transforms.strength_reduce as sr

    calls = []
    real = sr.value_ranges
    monkeypatch.setattr(sr, "value_ranges", lambda k: calls.append(k) or real(k))
    pow2 = text().replace("%c3 = arith.constant 3", "%c3 = arith.constant 4")
    before = str(parse_module(pow2, "k.mlir"))
    assert str(reduced(pow2, narrow=False)) == before and not calls
    assert len(remainders(loop_of(reduced(text(), narrow=False)))) < 5 and len(calls) == 1
