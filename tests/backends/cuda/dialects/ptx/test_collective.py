"""Collective ptx instructions need a block of whole warps (warpgroups): the rule
(`collective.launch_error`), the rows that declare a group, and the op verifier that applies it
to the enclosing kernel's threads whatever the verdict cache holds for the same op elsewhere."""

from __future__ import annotations

import pytest
from tirx_testing.trn import parse
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.cuda.dialects.ptx import collective
from tirx_mlir.backends.cuda.dialects.ptx.table import ROWS
from tirx_mlir.dialects.tirx.kernel import int_array
from tirx_mlir.verification import ModuleVerifier

WARP_ROWS = {"mma_sync", "ldmatrix", "stmatrix"}
WARPGROUP_ROWS = {"wgmma_fence", "wgmma_commit_group", "wgmma_wait_group",
                  "wgmma_mma_async_ss", "wgmma_mma_async_rs", "setmaxnreg"}

LDMATRIX = ('  %p = "test.op"() : () -> i32\n'
            '  %r = ptx.ldmatrix "x1.shared::cta" [%p] : (i32) -> i32')
SHFL = ('  %v = "test.op"() : () -> i32\n'
        '  %s = ptx.shfl_sync "bfly" %v, %v, 31, 4294967295 : (i32, i32) -> i32')
WGMMA = "  ptx.wgmma_fence\n  ptx.wgmma_commit_group\n  ptx.wgmma_wait_group 0"


def _kernel(threads: str, body: str, arch: str = "sm_90a") -> str:
    return (f'tirx.kernel @k() grid [1] threads [{threads}] target "cuda -arch={arch}" {{\n'
            f'{body}\n  tirx.return\n}}')


def test_the_rows_that_need_whole_warps_or_warpgroups():
    units = {row.name: row.collective for row in ROWS}
    assert {n for n, u in units.items() if u == collective.WARP} == WARP_ROWS
    assert {n for n, u in units.items() if u == collective.WARPGROUP} == WARPGROUP_ROWS
    assert set(units.values()) == {0, collective.WARP, collective.WARPGROUP}
    # the masked warp-synchronous ones take partial warps (threads past the end have exited)
    assert not any(units[n] for n in ("shfl_sync", "vote_sync", "redux_sync", "elect_sync",
                                      "match_any_sync", "bar", "bar_sync", "barrier_cluster"))


@pytest.mark.parametrize("unit,threads,message", [
    (32, (48,), "threads [48] is not a whole number of warps; X needs all 32 lanes of each warp"),
    (32, (16,), "threads [16] is not a whole number of warps"),
    (32, (8, 6), "threads [8, 6] (48 threads) is not a whole number of warps"),
    (128, (96,), "threads [96] is not a whole number of warpgroups; X needs all 128 threads "
                 "(4 warps) of each warpgroup"),
    (128, (32, 5), "threads [32, 5] (160 threads) is not a whole number of warpgroups"),
])
def test_a_partial_warp_or_warpgroup_is_refused(unit, threads, message):
    assert message in collective.launch_error("X", unit, threads)


@pytest.mark.parametrize("unit,threads", [(32, (32,)), (32, (64,)), (32, (8, 4)), (32, (1024,)),
                                          (128, (128,)), (128, (384,)), (128, (32, 4)),
                                          (0, (48,)), (0, (1,))])
def test_whole_groups_and_non_collectives_pass(unit, threads):
    assert collective.launch_error("X", unit, threads) is None


def test_the_hint_names_the_next_whole_launch():
    assert collective.launch_hint(32, (48,)) == \
        "launch a multiple of 32 threads per block (e.g. threads [64])"
    assert collective.launch_hint(32, (16,)).endswith("(e.g. threads [32])")
    assert collective.launch_hint(128, (320,)).endswith("(e.g. threads [384])")
    assert collective.launch_hint(128, (32, 3)) == "launch a multiple of 128 threads per block"


def test_the_verifier_reads_the_kernels_threads():
    parse(_kernel("64", LDMATRIX))
    with pytest.raises(VerifyException, match=r"threads \[48\] is not a whole number of warps; "
                                              r"ptx.ldmatrix needs all 32 lanes of each warp; "
                                              r"launch a multiple of 32 threads per block "
                                              r"\(e.g. threads \[64\]\)"):
        parse(_kernel("48", LDMATRIX))  # the same op, types and target: a cached verdict
    with pytest.raises(VerifyException, match=r"threads \[96\] is not a whole number of "
                                              r"warpgroups; ptx.wgmma_fence needs"):
        parse(_kernel("96", WGMMA))
    parse(_kernel("128", WGMMA))
    parse(_kernel("48", SHFL))  # a full mask over a partial warp: its missing lanes have exited


def test_the_row_rules_come_before_the_launch():
    with pytest.raises(VerifyException, match=r"needs sm_90a .*; the kernel targets sm_80"):
        parse(_kernel("96", WGMMA, arch="sm_80"))


def test_a_kernel_given_other_threads_is_verified_again():
    module = parse(_kernel("64", LDMATRIX))
    verifier = ModuleVerifier()
    verifier.verify(module)
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    kernel.properties["threads"] = int_array([40])
    with pytest.raises(VerifyException, match=r"threads \[40\] is not a whole number of warps"):
        verifier.verify(module)
    with pytest.raises(VerifyException, match=r"threads \[40\] is not a whole number of warps"):
        module.verify()


def test_outside_a_kernel_only_the_row_is_checked():
    parse(LDMATRIX.replace("  ", ""))
