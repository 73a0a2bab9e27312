"""bench/trn_compile.py: section 2 shows section 1's total beside its own and flags a
disagreement beyond `AGREE` (the machine slowed one of the runs)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import trn_compile  # noqa: E402


def test_section1_mark_flags_only_a_disagreement_beyond_agree():
    assert trn_compile.section1_mark(0.0105, 0.0100) == "   10.00"
    assert trn_compile.section1_mark(0.0200, 0.0105) == "   10.50 !"  # the note's nki_add_2
    assert trn_compile.section1_mark(0.0070, 0.0100) == "   10.00 !"
    edge = 1 + trn_compile.AGREE
    assert not trn_compile.section1_mark(0.01 * edge * 0.99, 0.01).endswith("!")
