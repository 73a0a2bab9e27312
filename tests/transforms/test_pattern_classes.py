"""`tirx_mlir.transforms.pattern_classes`: canonicalize's tables of xDSL's pattern classes name
them without importing their modules, and answer for a class by identity once it exists."""

from __future__ import annotations

import json
import subprocess
import sys
import types

from xdsl.dialects import arith, scf
from xdsl.transforms.canonicalization_patterns.arith import (
    SignlessIntegerBinaryOperationConstantProp, SignlessIntegerBinaryOperationZeroOrUnitRight)
from xdsl.transforms.canonicalization_patterns.scf import RehoistConstInLoops, SimplifyTrivialLoops

from tirx_mlir.transforms import canonicalize as C
from tirx_mlir.transforms import canonicalize_settled as S
from tirx_mlir.transforms.pattern_classes import ARITH, PatternTable


def test_the_tables_answer_for_the_classes_they_name():
    assert C._NEEDS_CONSTANT.get(SignlessIntegerBinaryOperationZeroOrUnitRight) == 1
    assert C._NEEDS_CONSTANT.get(SignlessIntegerBinaryOperationConstantProp) == 0
    assert C._NEEDS_CONSTANT.get(RehoistConstInLoops) is None
    assert C._FASTER.get(RehoistConstInLoops) is C._RehoistConstInLoops
    assert SignlessIntegerBinaryOperationConstantProp in S._ACTIONS_FOLLOWED
    assert SimplifyTrivialLoops in S._TRIES_FOLLOWED
    assert SimplifyTrivialLoops not in S._ACTIONS_FOLLOWED
    settled = S.Settled(C.FactsByClass(), frozenset({C._RehoistConstInLoops}))
    assert C._RehoistConstInLoops in settled.tracked_actions
    assert SignlessIntegerBinaryOperationZeroOrUnitRight in settled.tracked_actions
    assert C._RehoistConstInLoops in settled._reads_neighbours
    assert SimplifyTrivialLoops in settled._reads_neighbours
    assert RehoistConstInLoops not in settled._reads_neighbours


def test_a_class_is_matched_by_identity_not_by_its_name():
    impostor = types.new_class("SignlessIntegerBinaryOperationConstantProp")
    impostor.__module__ = ARITH
    table = PatternTable({(ARITH, "SignlessIntegerBinaryOperationConstantProp"): 0})
    assert table.get(impostor) is None and impostor not in table
    assert table.get(SignlessIntegerBinaryOperationConstantProp) == 0
    unknown = PatternTable({("no.such.module", "X"): 1})
    assert unknown.get(type("X", (), {"__module__": "no.such.module"})) is None


def test_class_facts_use_them():
    add = C._class_facts(arith.AddiOp)
    guarded = {type(p): n for p, n in add.guarded}
    assert guarded[SignlessIntegerBinaryOperationConstantProp] == 0
    assert guarded[SignlessIntegerBinaryOperationZeroOrUnitRight] == 1
    loop = C._class_facts(scf.ForOp)
    kinds = [type(p) for p in loop.patterns]
    assert C._RehoistConstInLoops in kinds and RehoistConstInLoops not in kinds


def test_the_cleanup_passes_do_not_import_the_pattern_modules():
    """A trn compile whose ops have no such patterns (nki_add_1) never imports them."""
    probe = ("import json, sys\n"
             "import tirx_mlir.transforms.canonicalize, tirx_mlir.transforms.cse, "
             "tirx_mlir.transforms.dce\n"
             "from tirx_mlir.pipelines import get_pipeline\n"
             "from tirx_testing.trn_lowering import example_path, parse_file\n"
             "def found():\n"
             "    return sorted(m for m in sys.modules if 'canonicalization_patterns' in m)\n"
             "after_import = found()\n"
             "module = parse_file(example_path('nki_add_1'))\n"
             "get_pipeline('trn').apply(module)\n"
             "print(json.dumps([after_import, found()]))\n")
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env_path = f"{root}:{root / 'tests'}"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=300, cwd=root,
                         env={**__import__("os").environ, "PYTHONPATH": env_path})
    assert json.loads(out.stdout.strip().splitlines()[-1]) == [[], []]
