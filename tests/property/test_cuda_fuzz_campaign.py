"""A small run of the CUDA fuzz campaign (`cuda_fuzz_campaign.py`): a fixed seed, a few dozen
mutants of the CUDA examples through the compile stages, and the hostile cases it found, each
through every stage: no internal error, hang, injected text or disagreement."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import cuda_fuzz_campaign as cfc  # noqa: E402
from fuzz_campaign import Mutant  # noqa: E402

SOFTMAX = "examples/cuda/tile/softmax.mlir"


def test_a_fixed_seed_campaign_through_the_compile_stages_finds_nothing() -> None:
    campaign = cfc.campaign(mutants=12, seed=11, jobs=2, stages=cfc.COMPILE_STAGES)
    campaign.run()
    report = "\n".join(f"{outcome} at {stage} ({m.seed}; {', '.join(m.edits)}; {m.options}): "
                       f"{detail}\n{m.data.decode('utf-8', 'replace')[:1500]}"
                       for m, stage, outcome, detail in campaign.failures()[:3])
    assert not campaign.failures(), report
    counts = campaign.outcome_counts
    assert counts["ok"] > 3 and counts["located"] > 3, counts  # both kinds of mutant occur
    assert {s for s, _ in campaign.stage_counts} >= set(cfc.COMPILE_STAGES)


def _seed(name: str) -> str:
    return dict(cfc.seeds())[name]


FOUND = [
    # (seed, edit of its text, pipeline options, the stage and outcome the fix gives)
    (f"{SOFTMAX}@cuda", None, "{target=sm_80}", "pipeline-options", "cli"),
    (f"{SOFTMAX}@cuda", None, '{target="cuda -arch=sm_90a */ PWN"}', "pipeline-options", "cli"),
    (SOFTMAX, None, "{num_stages=true}", "pipeline-options", "cli"),
    (SOFTMAX, None, "{arch=sm_80 arch=sm_90a}", "pipeline-options", "cli"),
    (SOFTMAX, ("sm_80", "sm_1000"), "", "pipeline-ptx", "located"),
    # the hostile-input round of the tile path (bench/README.md, 2026-12-05)
    (SOFTMAX, ("sm_80", "sm_70"), "", "pipeline-ptx", "located"),
    (SOFTMAX, ('"cuda -arch=sm_80"', '"cuda -arch=sm_80 -arch=sm_70"'), "", "verify", "located"),
    (SOFTMAX, ("512x256xf32, global>", "512x256xf32, global, swizzle(3,3,3) S[512,256]>"), "",
     "verify", "located"),
]


@pytest.mark.parametrize("seed,edit,options,stage,outcome", FOUND)
def test_the_cases_the_campaign_found_are_refused_with_a_sentence(tmp_path, seed, edit, options,
                                                                  stage, outcome) -> None:
    text = _seed(seed) if edit is None else _seed(seed).replace(*edit)
    results = cfc.run_mutant(Mutant(seed, ["by hand"], text.encode(), options), str(tmp_path),
                             ptxas=True, stages=cfc.COMPILE_STAGES)
    by_stage = {s: (o, d) for s, o, d in results}
    assert by_stage[stage][0] == outcome, by_stage
    assert not [r for r in results if r[1] in cfc.FAILING], results


def test_compile_builds_for_the_arch_an_option_binds(tmp_path) -> None:
    """``tirx_mlir.compile(path, arch="sm_90a")`` on an sm_80 kernel ran ptxas for sm_80 on PTX
    for sm_90a (ptxas-rejected at the compile stage)."""
    path = tmp_path / "in.mlir"
    path.write_text(_seed(SOFTMAX))
    assert cfc.run_compile(str(path), "{arch=sm_90a}")[0] == "ok"
    assert cfc.run_compile(str(path), "{nosuch=1}")[0] == "cli"
    path.write_text(_seed(SOFTMAX).replace("sm_80", "sm_70"))
    outcome, detail = cfc.run_compile(str(path), "")
    assert (outcome, detail.split(":")[0]) == ("located", "PassError"), detail


def test_the_runs_as_written_and_after_the_pipeline_agree_on_an_example(tmp_path) -> None:
    """rmsnorm with padded rows in %X and %Y: the SIMT interpreter mapped laid-out parameters in
    logical order (found as a disagreement; tests/backends/cuda/interpreter/test_global_params.py
    has the cases)."""
    text = _seed("examples/cuda/tile/rmsnorm.mlir")
    text = text.replace("256x512xf16, global>", "256x512xf16, global, S[(256,512):(520,1)]>")
    results = cfc.run_mutant(Mutant("rmsnorm", [], text.encode()), str(tmp_path))
    outcomes = {s: o for s, o, _ in results}
    assert outcomes["run"] == outcomes["run-cuda"] == "ok", results
    assert "runs" not in outcomes  # no disagreement


def test_outputs_that_differ_are_named(tmp_path) -> None:
    for sub, value in (("as-written", 1.0), ("after-pipeline", 1.5)):
        (tmp_path / sub).mkdir()
        np.save(tmp_path / sub / "Y.npy", np.full(4, value, np.float32))
        np.save(tmp_path / sub / "X.npy", np.full(4, np.nan, np.float32))
    assert cfc.outputs_differ(str(tmp_path)) == "Y differs after the pipeline (4 elements)"


def test_the_injection_check_tells_names_from_payloads() -> None:
    assert cfc.c_injected("extern \"C\" __global__ void a__PWN___1(float* X) {}") is None
    assert cfc.c_injected("// a */ PWN() /*\n") is not None
    assert cfc.c_injected('#include "PWN.h"\n') is not None
    assert "line 2" in cfc.c_injected(".version 8.0\n    PWN;\n")


def test_mutants_are_reproducible_from_the_seed() -> None:
    import random

    one = cfc.mutate(random.Random(4), cfc.seeds())
    two = cfc.mutate(random.Random(4), cfc.seeds())
    assert (one.data, one.options) == (two.data, two.options)


def test_rounding_of_a_cancelling_sum_is_no_disagreement(tmp_path) -> None:
    """attention_scores with its scale 0.125 made 129: a score that cancels to -0.6 out of
    terms near 4000 kept their rounding (-0.60587 vs -0.60603), found as a false disagreement."""
    for sub, value in (("as-written", -0.60587394), ("after-pipeline", -0.60602772)):
        (tmp_path / sub).mkdir()
        np.save(tmp_path / sub / "S.npy", np.array([value, 4146.663], np.float32))
    assert cfc.outputs_differ(str(tmp_path)) is None
