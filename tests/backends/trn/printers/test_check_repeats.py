"""The NKI source check shares the checks of repeated statements (check.py,
`distinct_statements`): it must report exactly what checking every line reports, on the
printers' real output, with faults injected into repeated calls, and on sources where sharing
is unsure (brackets across lines, strings, imports after calls)."""

from __future__ import annotations

import ast

import pytest
from tirx_testing.trn import parse

from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.backends.trn.printers.check import (check_source, check_source_whole,
                                                   distinct_statements)
from tirx_mlir.pipelines import get_pipeline

APIS = ("current", "legacy")


def printed(blocks: int, api: str) -> str:
    """The NKI source of a chain of ``blocks`` softmax blocks, unchecked."""
    module = parse(chain(blocks))
    get_pipeline("trn").apply(module)
    return emit_nki(module, api, check=False)
T = "!tirx.buffer<128x512xf32, trn.sbuf>"
C = "!tirx.buffer<128x1xf32, trn.sbuf>"


def chain(blocks: int) -> str:
    body = [f"  %x = tirx.alloc : {T}", f"  %m = tirx.alloc : {C}", f"  %s = tirx.alloc : {C}",
            f"  tirx.copy %x, %X : {T}, !tirx.buffer<128x512xf32, global>"]
    for _ in range(blocks):
        body += [f"  tirx.reduce_negate %m, %x reduce max : {C}, {T}",
                 f"  tirx.unary_reduce %x, %s, %x bias %m unary exp reduce sum : {T}, {C}, "
                 f"{T}, {C}",
                 f"  tirx.reciprocal %s, %s : {C}, {C}",
                 f"  tirx.mul %x, %x, %s : {T}, {T}, {C}"]
    body.append(f"  tirx.copy %Y, %x : !tirx.buffer<128x512xf32, global>, {T}")
    return ("tirx.kernel @chain(%X: !tirx.buffer<128x512xf32, global>) -> "
            "(%Y: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] "
            "target \"aws/trn1/trn1.2xlarge\" {\n" + "\n".join(body) + "\n  tirx.return\n}\n")


@pytest.mark.parametrize("api", APIS)
def test_repeats_are_shared_and_the_answer_is_the_same(api):
    source = printed(6, api)
    text, repeats = distinct_statements(source)
    assert sum(map(len, repeats.values())) >= 20  # five repeated blocks of four instructions
    ast.parse(text)
    assert check_source(source, api) == check_source_whole(source, api) == []


@pytest.mark.parametrize("api", APIS)
def test_faults_in_repeated_calls_are_reported_at_every_repeat(api):
    source = printed(4, api)
    bad = source.replace("nl.multiply", "nl.multiplyy").replace("nl.maximum", "nl.maximumm")
    problems = check_source(bad, api)
    assert problems == check_source_whole(bad, api)
    assert len([p for p in problems if "multiplyy" in p]) >= 4
    assert len([p for p in problems if "maximumm" in p]) >= 4


@pytest.mark.parametrize("source", [
    # a call spread over lines: its repeated inner lines are not statements
    "import nki.isa as nisa\nnisa.memset(\n    d,\n    0.0)\nnisa.memset(\n    d,\n    0.0)\n"
    "nisa.memset(\n    d,\n    0.0, bogus=1)\n",
    # brackets inside a string make the sharing unsure: it stops, the check is whole
    "import nki.isa as nisa\nx = '('\nnisa.memset(d, 0.0, bogus=1)\nnisa.memset(d, 0.0, bogus=1)\n",
    # an import between repeats changes what a name means
    "import nki.isa as nisa\nnisa.memset(d, 0.0)\nimport nki.language as nisa\n"
    "nisa.memset(d, 0.0)\n",
    # a repeat alone in its block stands in as `pass`, keeping the block
    "import nki.isa as nisa\nfor i in range(2):\n    nisa.memset(d, 0.0, bogus=1)\n"
    "for j in range(2):\n    nisa.memset(d, 0.0, bogus=1)\n",
    # a line inside a triple-quoted string is no statement: the real one after it is checked
    'import nki.isa as nisa\ndef k(d):\n    """For example:\n    nisa.memset(d, 0.0, bogus=1)\n'
    '    """\n    nisa.memset(d, 0.0, bogus=1)\n',
])
def test_unsure_sources_give_the_whole_answer(source):
    problems = check_source(source, "current")
    assert problems == check_source_whole(source, "current")
    assert problems  # each source has a fault for the check to find
