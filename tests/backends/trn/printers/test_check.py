"""The NKI source check walks the syntax tree its own way (check.py, `SourceChecker.visit` /
`generic_visit`): it must find exactly what `ast.NodeVisitor`'s stock walk finds, on the
printers' output and with faults placed deep in expressions (keywords, subscripts, nested calls,
constants, assignments)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from tirx_testing.trn import parse

from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.backends.trn.printers.check import SourceChecker, check_source_whole
from tirx_mlir.pipelines import get_pipeline

EXAMPLES = Path(__file__).resolve().parents[4] / "examples" / "trn"


class StockWalk(SourceChecker):
    """The same checks, walked by `ast.NodeVisitor` itself."""

    visit = ast.NodeVisitor.visit
    generic_visit = ast.NodeVisitor.generic_visit
    visit_Constant = ast.NodeVisitor.visit_Constant


def problems(checker_class, source: str, api: str) -> list[str]:
    checker = checker_class(api)
    checker.visit(ast.parse(source))
    return checker.problems


FAULTS = [
    ("nisa.", "nisa.bogus_"),               # unknown calls
    ("nl.float32", "nl.float33"),           # an unknown constant inside a keyword argument
    ("nl.ds(", "nl.dss("),                  # an unknown call inside a subscript
    ("dst=", "dest="),                      # an unknown keyword
    ("nl.sbuf", "nl.sbufx"),                # an unknown buffer inside an assignment's call
    ("accumulate=False", "accumulate=nl.bogus_flag"),
]


@pytest.mark.parametrize("api", ("current", "legacy"))
@pytest.mark.parametrize("kernel", ("matmul_512", "nki_add_2", "softmax_128x512",
                                    "layernorm_affine_rows"))
def test_own_walk_finds_what_the_stock_walk_finds(kernel, api):
    module = parse((EXAMPLES / f"{kernel}.mlir").read_text())
    get_pipeline("trn").apply(module)
    source = emit_nki(module, api, check=False)
    assert problems(SourceChecker, source, api) == problems(StockWalk, source, api) == []
    found_any = False
    for old, new in FAULTS:
        bad = source.replace(old, new)
        if bad == source:
            continue
        ours = problems(SourceChecker, bad, api)
        assert ours == problems(StockWalk, bad, api) == check_source_whole(bad, api)
        assert ours, f"{old!r} -> {new!r} went unnoticed"
        found_any = True
    assert found_any
