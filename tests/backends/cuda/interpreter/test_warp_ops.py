"""Warp shuffles, votes, the active mask, warp/block reductions, elect and match on the SIMT
interpreter, against hand-computed results (CUDA C++ Programming Guide, "Warp Shuffle
Functions" / "Warp Vote Functions"; PTX ISA, shfl.sync / vote.sync / redux.sync / match.sync /
elect.sync), and the mask checks."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_testing.simt_lanes import run_lanes
from tirx_mlir.interpreter.runtime import InterpretError

LANE = np.arange(32)


def shfl_reference(mode: str, values: np.ndarray, arg: int, width: int) -> np.ndarray:
    """The CUDA guide's statement of each __shfl_*_sync, lane by lane."""
    out = values.copy()
    for lane in range(len(values)):
        base = lane - lane % width
        if mode == "idx":
            out[lane] = values[base + arg % width]
        elif mode == "up":
            if lane % width >= arg:
                out[lane] = values[lane - arg]
        elif mode == "down":
            if lane % width + arg < width:
                out[lane] = values[lane + arg]
        else:
            src = lane ^ arg
            if src < base + width:  # earlier segments may be read, later ones not
                out[lane] = values[src]
    return out


@pytest.mark.parametrize("mode", ["idx", "up", "down", "xor"])
@pytest.mark.parametrize("width, arg", [(32, 3), (32, 17), (8, 3), (8, 13), (4, 1)])
def test_shfl_sync_modes_and_widths(mode, width, arg):
    out = run_lanes(f"""
  %c10 = arith.constant 10 : i32
  %v = arith.muli %t32, %c10 : i32
  %a = arith.constant {arg} : i32
  %r = cuda.shfl_sync {mode} %full, %v, %a width {width} : i32, i32, i32 -> i32""")
    np.testing.assert_array_equal(out, shfl_reference(mode, LANE * 10, arg, width))


@pytest.mark.parametrize("t, dtype", [("f32", np.float32), ("f64", np.float64),
                                      ("i64", np.int64), ("f16", np.float16)])
def test_shfl_moves_every_shuffle_type_unchanged(t, dtype):
    x = (np.random.default_rng(3).standard_normal(32) * 1000).astype(dtype)
    out = run_lanes(f"""
  %v = cuda.load %X, %t : !tirx.buffer<32x{t}, global>, index -> {t}
  %five = arith.constant 5 : i32
  %r = cuda.shfl_sync xor %full, %v, %five : i32, {t}, i32 -> {t}""", x, result=t,
                    ins=f"%X: !tirx.buffer<32x{t}, global>")
    np.testing.assert_array_equal(out, x[LANE ^ 5])


def test_shfl_in_a_partial_warp_reads_poison_past_its_end():
    # 48 threads: warp 1 holds threads 32-47; lanes 8-15 of it read lanes 16-23, which do not
    # exist (undefined on the GPU: all-ones bits here); the full mask is fine there.
    out = run_lanes("""
  %eight = arith.constant 8 : i32
  %r = cuda.shfl_sync down %full, %t32, %eight : i32, i32, i32 -> i32""", threads=48)
    t = np.arange(48)
    expected = np.where(t < 24, t + 8, np.where(t < 32, t, np.where(t < 40, t + 8, -1)))
    np.testing.assert_array_equal(out, expected)


HALF = """
  %c16 = arith.constant 16 : index
  %low = arith.cmpi ult, %t, %c16 : index
  %r = scf.if %low -> (i32) {{
{inner}
    scf.yield %s : i32
  }} else {{
    scf.yield %t32 : i32
  }}"""


def test_shfl_with_a_mask_naming_lanes_that_took_the_other_branch_is_an_error():
    body = HALF.format(inner="""    %one = arith.constant 1 : i32
    %s = cuda.shfl_sync xor %full, %t32, %one : i32, i32, i32 -> i32""")
    with pytest.raises(InterpretError) as err:
        run_lanes(body)
    msg = str(err.value)
    assert "<test>:13:5: error: [warp-sync] cuda.shfl_sync: the mask of __shfl_xor_sync names " \
           "lanes that do not execute it here (threads 16-31 of CTA (0,0,0))" in msg
    assert "__activemask()" in msg


def test_shfl_by_lanes_outside_the_mask_is_an_error():
    body = """
  %low = arith.constant 65535 : i32
  %one = arith.constant 1 : i32
  %r = cuda.shfl_sync xor %low, %t32, %one : i32, i32, i32 -> i32"""
    with pytest.raises(InterpretError, match=r"__shfl_xor_sync is executed by lanes its mask "
                                             r"does not name \(threads 16-31 of CTA \(0,0,0\)\)"):
        run_lanes(body)


def test_shfl_with_the_branch_mask_works_and_reading_outside_it_is_poison():
    body = HALF.format(inner="""    %m = arith.constant 65535 : i32
    %five = arith.constant 5 : i32
    %xor = cuda.shfl_sync xor %m, %t32, %five : i32, i32, i32 -> i32
    %twenty = arith.constant 20 : i32
    %far = cuda.shfl_sync idx %m, %t32, %twenty : i32, i32, i32 -> i32
    %s = arith.addi %xor, %far : i32""")
    out = run_lanes(body)
    # lane 20 is outside the mask: its value is undefined (-1 here)
    np.testing.assert_array_equal(out, np.where(LANE < 16, (LANE ^ 5) - 1, LANE))


VOTES = """
  %c3 = arith.constant 3 : i32
  %m = arith.remui %t32, %c3 : i32
  %zero = arith.constant 0 : i32
  %p = arith.cmpi eq, %m, %zero : i32
  %true = arith.constant true
  %r = cuda.vote MODE MASK, PRED : i32, i1 -> RESULT"""


@pytest.mark.parametrize("mode, pred, expected", [
    ("ballot", "%p", sum(1 << i for i in range(32) if i % 3 == 0)),
    ("any", "%p", 1), ("all", "%p", 0), ("all", "%true", 1),
    ("uni", "%p", 0), ("uni", "%true", 1),
])
def test_votes_over_the_full_warp(mode, pred, expected):
    result = "i32" if mode == "ballot" else "i1"
    body = VOTES.replace("MODE", mode).replace("MASK", "%full").replace("PRED", pred)
    out = run_lanes(body.replace("RESULT", result), result=result)
    np.testing.assert_array_equal(out.astype(np.int64) & 0xFFFFFFFF, np.full(32, expected))


def test_votes_count_only_the_lanes_of_the_mask():
    # lanes 0-19 vote with their own mask; lanes 20-31 with theirs
    out = run_lanes("""
  %c3 = arith.constant 3 : i32
  %m = arith.remui %t32, %c3 : i32
  %zero = arith.constant 0 : i32
  %p = arith.cmpi eq, %m, %zero : i32
  %c20 = arith.constant 20 : index
  %low = arith.cmpi ult, %t, %c20 : index
  %r = scf.if %low -> (i32) {
    %lm = arith.constant 1048575 : i32
    %b = cuda.vote ballot %lm, %p : i32, i1 -> i32
    scf.yield %b : i32
  } else {
    %hm = arith.constant -1048576 : i32
    %b2 = cuda.vote ballot %hm, %p : i32, i1 -> i32
    scf.yield %b2 : i32
  }""")
    low = sum(1 << i for i in range(20) if i % 3 == 0)
    high = sum(1 << i for i in range(20, 32) if i % 3 == 0)
    np.testing.assert_array_equal(out.view(np.uint32), np.where(LANE < 20, low, high))


def test_a_vote_whose_mask_names_the_other_branch_is_an_error():
    body = """
  %c20 = arith.constant 20 : index
  %low = arith.cmpi ult, %t, %c20 : index
  %true = arith.constant true
  %r = scf.if %low -> (i32) {
    %z = arith.constant 0 : i32
    scf.yield %z : i32
  } else {
    %u = cuda.vote uni %full, %true : i32, i1 -> i1
    %ui = arith.extui %u : i1 to i32
    scf.yield %ui : i32
  }"""
    with pytest.raises(InterpretError, match=r"__uni_sync names lanes that do not execute it "
                                             r"here \(threads 0-19 of CTA \(0,0,0\)\)"):
        run_lanes(body)


def test_activemask_in_both_branches_of_a_divergent_if():
    out = run_lanes("""
  %c20 = arith.constant 20 : index
  %low = arith.cmpi ult, %t, %c20 : index
  %r = scf.if %low -> (i32) {
    %a = cuda.activemask : i32
    scf.yield %a : i32
  } else {
    %b = cuda.activemask : i32
    scf.yield %b : i32
  }""")
    np.testing.assert_array_equal(out.view(np.uint32),
                                  np.where(LANE < 20, 0xFFFFF, 0xFFF00000))


def test_activemask_ballot_and_elect_in_a_partial_warp():
    # 40 threads: warp 1 holds lanes 0-7 only; the full mask is satisfied without the rest
    out = run_lanes("""
  %a = cuda.activemask : i32
  %true = arith.constant true
  %b = cuda.vote ballot %full, %true : i32, i1 -> i32
  %all = cuda.vote all %full, %true : i32, i1 -> i1
  %e = cuda.elect_sync %full : i32 -> i1
  %x = arith.xori %a, %b : i32
  %alli = arith.extui %all : i1 to i32
  %ei = arith.extui %e : i1 to i32
  %c2 = arith.constant 2 : i32
  %e2 = arith.muli %ei, %c2 : i32
  %y = arith.addi %alli, %e2 : i32
  %r = arith.addi %x, %y : i32""", threads=40)
    t = np.arange(40)
    np.testing.assert_array_equal(out, 1 + 2 * (t % 32 == 0))  # a == b; all; lane 0 elected
    mask = run_lanes("  %r = cuda.activemask : i32", threads=40)
    np.testing.assert_array_equal(mask.view(np.uint32), np.where(t < 32, 0xFFFFFFFF, 0xFF))


def butterfly(values: np.ndarray, width: int, combine) -> np.ndarray:
    v = values.reshape(-1, width).copy()
    lane = np.arange(width)
    offset = width // 2
    while offset:
        v = combine(v, v[:, lane ^ offset])
        offset //= 2
    return v.reshape(-1)


def test_warp_reduce_f32_sum_rounds_as_the_butterfly():
    x = np.random.default_rng(4).standard_normal(64).astype(np.float32) * 1e3
    out = run_lanes("""
  %v = cuda.load %X, %t : !tirx.buffer<64xf32, global>, index -> f32
  %r = cuda.warp_reduce sum %full, %v : i32, f32 -> f32""", x, result="f32", threads=64,
                    ins="%X: !tirx.buffer<64xf32, global>")
    expected = butterfly(x, 32, lambda a, b: (a + b).astype(np.float32))
    np.testing.assert_array_equal(out, expected)
    assert not np.array_equal(out[:32], np.full(32, x[:32].sum(dtype=np.float32)))


@pytest.mark.parametrize("kind, t, width", [("max", "ui32", 32), ("min", "ui32", 8),
                                            ("max", "i32", 16), ("sum", "i32", 8),
                                            ("xor", "i32", 32)])
def test_warp_reduce_integers(kind, t, width):
    x = np.random.default_rng(5).integers(-2**31, 2**31, 32).astype(np.int32)
    out = run_lanes(f"""
  %v = cuda.load %X, %t : !tirx.buffer<32x{t}, global>, index -> {t}
  %r = cuda.warp_reduce {kind} %full, %v width {width} : i32, {t} -> {t}""",
                    x.view(np.uint32) if t == "ui32" else x, result=t,
                    ins=f"%X: !tirx.buffer<32x{t}, global>")
    view = x.view(np.uint32) if t == "ui32" else x.astype(np.int64)
    groups = view.reshape(-1, width)
    reduced = {"max": groups.max(axis=1), "min": groups.min(axis=1),
               "sum": groups.sum(axis=1), "xor": np.bitwise_xor.reduce(groups, axis=1)}[kind]
    expected = np.repeat(reduced, width).astype(np.int64).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(out.view(np.int32), expected)


CTA_REDUCE = cuda_kernel(
    "(%X: !tirx.buffer<256xf32, global>) -> (%Out: !tirx.buffer<256xf32, global>)", """
  %t = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %c128 = arith.constant 128 : index
  %base = arith.muli %b, %c128 : index
  %i = arith.addi %base, %t : index
  %scratch = cuda.shared_alloc : !tirx.buffer<4xf32, shared>
  %v = cuda.load %X, %i : !tirx.buffer<256xf32, global>, index -> f32
  %s = cuda.cta_reduce KIND %v, %scratch : f32, !tirx.buffer<4xf32, shared> -> f32
  cuda.store %Out, %i, %s : !tirx.buffer<256xf32, global>, index, f32""",
    "grid [2] threads [128]")


@pytest.mark.parametrize("kind", ["sum", "max"])
def test_cta_reduce_is_the_printed_two_level_butterfly(kind):
    x = np.random.default_rng(6).standard_normal(256).astype(np.float32) * 100
    (out,), run = run_simt(CTA_REDUCE.replace("KIND", kind), x)
    step = (lambda a, b: (a + b).astype(np.float32)) if kind == "sum" else \
        (lambda a, b: np.where(a > b, a, b))
    partials = butterfly(x, 32, step).reshape(2, 4, 32)[:, :, 0]  # per block, per warp
    padded = np.zeros((2, 4), np.float32)
    padded[:, :] = partials
    totals = butterfly(padded.reshape(-1), 4, step).reshape(2, 4)[:, 0]
    np.testing.assert_array_equal(out, np.repeat(totals, 128))
    assert run.stats.total("barriers") == 3 * 2


def test_cta_reduce_in_half_the_block_is_a_located_error():
    text = CTA_REDUCE.replace("KIND", "sum").replace(
        "  %s = cuda.cta_reduce", "  %c64 = arith.constant 64 : index\n"
        "  %low = arith.cmpi ult, %t, %c64 : index\n  scf.if %low {\n"
        "  %s2 = cuda.cta_reduce").replace(
        "  cuda.store %Out, %i, %s", "  }\n  cuda.store %Out, %i, %v").replace(
        "-> f32\n  }", "-> f32\n  }")
    with pytest.raises(InterpretError, match="deadlock.*never reach"):
        run_simt(text, np.zeros(256, np.float32))


def test_elect_sync_picks_the_lowest_lane_of_the_mask():
    out = run_lanes("""
  %c5 = arith.constant 5 : index
  %hi = arith.cmpi uge, %t, %c5 : index
  %r = scf.if %hi -> (i32) {
    %m = cuda.activemask : i32
    %e = cuda.elect_sync %m : i32 -> i1
    %ei = arith.extui %e : i1 to i32
    scf.yield %ei : i32
  } else {
    %z = arith.constant 7 : i32
    scf.yield %z : i32
  }""")
    np.testing.assert_array_equal(out, np.where(LANE < 5, 7, LANE == 5))


# ---- ptx rows ----

def test_ptx_shfl_sync_with_a_segment_clamp():
    # c = ((32 - 8) << 8) | 7: segments of 8 lanes, idx reads lane b of the segment
    out = run_lanes("""
  %two = arith.constant 2 : i32
  %r = ptx.shfl_sync "idx" %t32, %two, 6151, 4294967295 : (i32, i32) -> i32""")
    np.testing.assert_array_equal(out, LANE - LANE % 8 + 2)
    down = run_lanes("""
  %f = cuda.load %X, %t : !tirx.buffer<32xf32, global>, index -> f32
  %three = arith.constant 3 : i32
  %r = ptx.shfl_sync "down" %f, %three, 31, 4294967295 : (f32, i32) -> f32""",
                     LANE.astype(np.float32), result="f32", ins="%X: !tirx.buffer<32xf32, global>")
    np.testing.assert_array_equal(down, np.where(LANE + 3 <= 31, LANE + 3, LANE))


def test_ptx_vote_ballot_and_activemask():
    out = run_lanes("""
  %c4 = arith.constant 4 : i32
  %p = arith.cmpi ult, %t32, %c4 : i32
  %b = ptx.vote_sync "ballot.b32" %p, 4294967295 : (i1) -> i32
  %a = ptx.activemask : () -> i32
  %r = arith.addi %a, %b : i32""")
    np.testing.assert_array_equal(out, np.full(32, 0xF - 1))  # -1 + 0xF
    with pytest.raises(InterpretError, match="vote.sync is executed by lanes its mask"):
        run_lanes("""
  %true = arith.constant true
  %r = ptx.vote_sync "ballot.b32" %true, 255 : (i1) -> i32""")


@pytest.mark.parametrize("mods, expected", [
    ("add.u32", lambda x: x.astype(np.int64).sum()),
    ("min.u32", lambda x: x.view(np.uint32).min()),
    ("max.s32", lambda x: x.max()),
    ("and.b32", lambda x: np.bitwise_and.reduce(x)),
    ("or.b32", lambda x: np.bitwise_or.reduce(x)),
])
def test_ptx_redux_sync(mods, expected):
    x = np.random.default_rng(7).integers(-2**31, 2**31, 32).astype(np.int32)
    out = run_lanes(f"""
  %v = cuda.load %X, %t : !tirx.buffer<32xi32, global>, index -> i32
  %r = ptx.redux_sync "{mods}" %v, 4294967295 : (i32) -> i32""", x,
                    ins="%X: !tirx.buffer<32xi32, global>")
    want = np.int64(expected(x)).astype(np.uint32).view(np.int32)
    np.testing.assert_array_equal(out, np.full(32, want))


def test_ptx_redux_sync_f32_min_ignores_nan_unless_asked_and_takes_abs():
    x = np.linspace(-5, 3, 32).astype(np.float32)
    x[7] = np.nan
    body = """
  %v = cuda.load %X, %t : !tirx.buffer<32xf32, global>, index -> f32
  %r = ptx.redux_sync "MODS" %v, 4294967295 : (f32) -> f32"""
    run = lambda mods: run_lanes(body.replace("MODS", mods), x, result="f32",
                                 ins="%X: !tirx.buffer<32xf32, global>",
                                 target="cuda -arch=sm_100a")
    assert (run("min.f32") == np.nanmin(x)).all()
    assert np.isnan(run("min.NaN.f32")).all()
    assert (run("max.abs.f32") == np.nanmax(np.abs(x))).all()


def test_ptx_match_any_groups_lanes_by_value():
    out = run_lanes("""
  %c3 = arith.constant 3 : i32
  %v = arith.remui %t32, %c3 : i32
  %r = ptx.match_any_sync "b32" %v, 4294967295 : (i32) -> i32""")
    groups = [sum(1 << i for i in range(32) if i % 3 == k) for k in range(3)]
    np.testing.assert_array_equal(out.view(np.uint32), [groups[i % 3] for i in range(32)])


def test_ptx_elect_sync_gives_the_leader_lane_to_all():
    out = run_lanes("""
  %c8 = arith.constant 8 : index
  %hi = arith.cmpi uge, %t, %c8 : index
  %r = scf.if %hi -> (i32) {
    %l, %p = ptx.elect_sync 4294967040 : () -> (i32, i1)
    %c100 = arith.constant 100 : i32
    %pi = arith.extui %p : i1 to i32
    %x = arith.muli %pi, %c100 : i32
    %s = arith.addi %x, %l : i32
    scf.yield %s : i32
  } else {
    %z = arith.constant -5 : i32
    scf.yield %z : i32
  }""")
    np.testing.assert_array_equal(out, np.where(LANE < 8, -5, np.where(LANE == 8, 108, 8)))
