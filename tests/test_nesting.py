"""The nesting limit: deeper input is a located parse error; input at the limit goes through
every stage (parse, verify, print, passes, interpreter) without exhausting the Python stack.

Each stage runs in a fresh interpreter (the recursion limit is per process and only ever raised),
called from 150 frames deep, as a user's own code might be.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from xdsl.utils.exceptions import ParseError

from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.nesting import MAX_NESTING_DEPTH

BUF = "!tirx.buffer<128x64xf32, global>"


def loops(n: int) -> str:
    """A kernel whose body nests ``n`` scf.for loops around one copy (n + 1 braces, plus the
    buffer type's ``<`` at the innermost level)."""
    head = (f"tirx.kernel @k(%A: {BUF}) -> (%B: {BUF}) grid [1] threads [128] {{\n"
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n")
    body = "".join(f"scf.for %i{i} = %c0 to %c1 step %c1 {{\n" for i in range(n))
    return head + body + f"tirx.copy cta %B, %A : {BUF}, {BUF}\n" + "}\n" * n + \
        "  tirx.return\n}\n"


def ifs(n: int) -> str:
    head = (f"tirx.kernel @k(%A: {BUF}) -> (%B: {BUF}) grid [1] threads [128] {{\n"
            "  %t = arith.constant true\n")
    return head + "scf.if %t {\n" * n + f"tirx.copy cta %B, %A : {BUF}, {BUF}\n" + \
        "}\n" * n + "  tirx.return\n}\n"


def op_with(attr: str) -> str:
    return f'"test.op"() {{a = {attr}}} : () -> ()\n'


NESTS = {
    # name: (text nested n levels deep, the levels of brackets beyond n)
    "scf.for": (loops, 2),
    "scf.if": (ifs, 2),
    "array attribute": (lambda n: op_with("[" * n + "]" * n), 1),
    "dictionary attribute": (lambda n: op_with("{a = " * n + "1" + "}" * n), 1),
    "tuple type": (lambda n: op_with("tuple<" * n + "i32" + ">" * n), 1),
    "function type": (lambda n: op_with("(" * n + "i32" + ") -> i32" * n), 1),
    "dense literal": (lambda n: op_with("dense<" + "[" * (n - 1) + "1" + "]" * (n - 1) +
                                        "> : tensor<" + "1x" * (n - 1) + "i32>"), 1),
    "generic regions": (lambda n: '"builtin.module"() ({' * (n // 2) + "^bb0:"
                        + "}) : () -> ()" * (n // 2) + "\n", 0),
}


@pytest.mark.parametrize("name", NESTS)
def test_one_level_too_deep_is_a_located_error(name: str) -> None:
    make, extra = NESTS[name]
    text = make(MAX_NESTING_DEPTH + 2)
    with pytest.raises(ParseError) as info:
        parse_module(text, "deep.mlir", make_context(allow_unregistered=True))
    message = str(info.value)
    assert f"tirx_mlir accepts at most {MAX_NESTING_DEPTH} levels" in message
    assert "deep.mlir:" in message


STAGES = textwrap.dedent("""
    import io, json, sys
    import numpy as np
    from xdsl.printer import Printer
    from tirx_mlir.located_parser import make_context, parse_module
    from tirx_mlir.pipelines import Pipeline
    from tirx_mlir.tools.diagnostics_cli import verify_located

    def deep(n, fn):
        return fn() if n == 0 else deep(n - 1, fn)

    def stages(text, runs):
        module = parse_module(text, "at_limit.mlir", make_context(allow_unregistered=True))
        verify_located(module, "at_limit.mlir")
        for generic in (False, True):
            Printer(stream=io.StringIO(), print_generic_format=generic).print_op(module)
        str(module.clone())
        Pipeline.parse("canonicalize,cse,dce").apply(module)
        if runs:
            from tirx_mlir.interpreter.launch import KernelRunner
            runner = KernelRunner(module, None)
            x = np.arange(128 * 64, dtype=np.float32).reshape(128, 64)
            out, = runner.run(runner.prepare([x], False))
            assert (out == x).all()
        return "ok"

    case = json.loads(sys.argv[1])
    print(deep(150, lambda: stages(case["text"], case["runs"])))
""")


@pytest.mark.parametrize("name", NESTS)
def test_every_stage_runs_at_the_limit(name: str) -> None:
    make, extra = NESTS[name]
    text = make(MAX_NESTING_DEPTH - extra)
    case = json.dumps({"text": text, "runs": name.startswith("scf.")})
    result = subprocess.run([sys.executable, "-c", STAGES, case], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "ok"


def test_a_recursive_production_without_brackets_is_a_located_error() -> None:
    """``- - - d0`` recurses once per minus sign: the parser's backstop reports it."""
    text = op_with("affine_map<(d0) -> (" + "-" * 5000 + "d0)>")
    with pytest.raises(ParseError, match="nests too deeply here to be parsed"):
        parse_module(text, "minus.mlir", make_context(allow_unregistered=True))
