"""The valid-program generator (cuda_valid_programs.py) on a fixed set of seeds: each program
runs the same under numpy, the tile interpreter and the SIMT interpreter after the cuda
pipeline (a few also through nvcc and ptxas); the generator is deterministic, and the check
catches a wrong answer. The campaign (cuda_valid_campaign.py) runs many more seeds."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cuda_valid_programs as cvp  # noqa: E402

SEEDS = list(range(0, 24)) + [68, 85, 104, 192, 2031, 2289]
"""The first seeds (every family they drew before the K-loop families were added: drawn here
with `base_family`) and a few later ones. The bugs the campaign found have their own
regression tests beside the code they were in (tests/backends/cuda/...)."""
MORE = [(7, "ring"), (2, "ring"), (10, "ring"), (0, "ring"), (1, "ring"), (45, "sm80"),
        (0, "dsmem"), (43, "chain"), (4, "reload"), (30, "reload"), (60, "ring"), (2, "dsmem"),
        (378, "reload")]
"""Programs of the K-loop and cluster families (cuda_valid_kloops.py) and a chain of several
warpgroup instances: a one-shot TMA (7) or cp.async (2) tile reloaded in an outer loop or
between two K loops (10), a
cluster multicast ring (0), a one-shot tile before a ring (1), an sm_80 K loop of 2 steps in a
4-stage cp.async ring (45), a DSMEM exchange (0), a warpgroup reduction in a block of 3 (43),
a shared tile reloaded per pass by a warpgroup's TMA (4) or unpipelined cp.async (30) while
other warps or threads read the previous pass's (a WAR race before shared_refill.py), and the
run-time ``cta_mask`` operand: a ring's B multicast along a cluster of 2 (60), a per-cluster
tile multicast to a DSMEM exchange's CTAs (2); a warpgroup's TMA reload inside ``scf.if`` on
the pass number, read by every thread (378: a WAR race before a narrower writer in a
CTA-uniform branch got its barrier)."""
REFUSED = {18: "4 warps cannot split a 32x8 accumulator into whole 16x8 mma tiles",
           2289: "row strides [4] bytes must be multiples of 16 for a tensor map"}
"""Seeds whose program a variant refuses, and the reason it gives."""


@pytest.mark.parametrize("seed", SEEDS)
def test_numpy_tile_and_simt_agree(seed):
    prog = cvp.draw(seed, cvp.base_family(seed))
    out = cvp.check(prog)
    if seed in REFUSED:
        assert out.kind == "refused" and REFUSED[seed] in out.detail, out.detail
        return
    assert out.kind == "agree", f"{out.kind} at {out.stage}: {out.detail}\n{prog.text}"


@pytest.mark.parametrize("seed,family", MORE)
def test_k_loop_and_cluster_programs_agree(seed, family):
    prog = cvp.draw(seed, family)
    out = cvp.check(prog)
    assert out.kind == "agree", f"{out.kind} at {out.stage}: {out.detail}\n{prog.text}"


@pytest.mark.parametrize("seed", [2, 21])
def test_printed_code_compiles(seed):
    from tirx_mlir.backends.cuda import toolchain

    if toolchain.find_tool("nvcc") is None or toolchain.find_tool("ptxas") is None:
        pytest.skip(toolchain.missing_reason("nvcc"))
    prog = cvp.draw(seed, cvp.base_family(seed))
    out = cvp.check(prog, compile=True)
    assert out.kind == "agree", f"{out.kind}: {out.detail}"


def test_families_are_all_drawn_and_programs_are_deterministic():
    families = {cvp.draw(s).family for s in range(34)}
    assert families == {"chain", "mma", "wgmma", "ring", "sm80", "dsmem", "reload"}
    for seed in (0, 2, 21):
        a, b = cvp.draw(seed), cvp.draw(seed)
        assert a.text == b.text and all(np.array_equal(x, y) for x, y in zip(a.inputs, b.inputs))


def test_a_wrong_expectation_is_a_disagreement():
    prog = cvp.draw(0, "chain")
    prog.expected = [e + np.float32(1) for e in prog.expected]
    out = cvp.check(prog)
    assert out.kind == "disagree" and out.stage == "tile"
