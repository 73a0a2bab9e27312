"""A small run of the fuzz campaign (`fuzz_campaign.py`, a fixed seed, a few hundred mutants of
every example through every stage): no internal error, no hang, no injected code."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_campaign  # noqa: E402
from fuzz_campaign import Campaign, classify, injected, mutate, seeds  # noqa: E402


def test_a_fixed_seed_campaign_finds_no_internal_error_hang_or_injection() -> None:
    campaign = Campaign(mutants=300, seed=8, jobs=2)
    campaign.run()
    report = "\n".join(f"{outcome} at {stage} ({m.seed}; {', '.join(m.edits)}): {detail}\n"
                       f"{m.data.decode('utf-8', 'replace')[:2000]}"
                       for m, stage, outcome, detail in campaign.failures()[:5])
    assert not campaign.failures(), report
    counts = campaign.outcome_counts
    assert counts["ok"] > 100 and counts["located"] > 100, counts  # the mutants reach every stage
    assert {s for s, _ in campaign.stage_counts} >= set(fuzz_campaign.STAGES)


def test_the_seeds_cover_every_example_and_the_cuda_dialects() -> None:
    names = {name.split("#")[0] for name, _ in seeds()}
    assert any(n.startswith("examples/trn/") for n in names)
    assert any("backends/cuda/dialects/ptx" in n for n in names)
    assert any(n.startswith("tests/bad_inputs/") for n in names)


def test_mutants_are_reproducible_from_the_seed() -> None:
    import random

    a = [mutate(random.Random(3), seeds()).data for _ in range(1)]
    b = [mutate(random.Random(3), seeds()).data for _ in range(1)]
    assert a == b


def test_the_classifier_tells_the_outcomes_apart() -> None:
    assert classify("verify", 0, "", "")[0] == "ok"
    assert classify("verify", 1, "", "f.mlir:3:4: error: bad\n")[0] == "located"
    assert classify("verify", 1, "", "tirx-opt: error: unknown pass\n")[0] == "cli"
    assert classify("verify", 1, "", "f.mlir:1:1: error: internal compiler error in x\n")[0] \
        == "internal"
    assert classify("verify", 1, "", "nothing useful\n")[0] == "internal"
    assert classify("verify", "hang", "", "")[0] == "hang"
    assert classify("verify", ValueError("x"), "", "")[0] == "internal"
    assert classify("trn-nki", 0, 'def k():\n    __import__("os").system("PWN")\n', "")[0] \
        == "injection"
    assert injected("def k():\n    x = 1\n") is None
    assert injected("def k(:\n") is not None
