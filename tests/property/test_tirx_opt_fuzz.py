"""Fuzzing tirx-opt: a corrupted valid program is either accepted or rejected with a located
error, never a crash, an internal compiler error, or a hang.

Each example takes a section of tests/filecheck/dialects/tirx/ops.mlir and applies a few
random edits (delete a character, insert a token, cut a span, change numbers). Run through
``tirx-opt``'s ``main`` in process, the result must be exit 0, or exit 1 with a
``file:line:col: error:`` line and no internal error. The deadline catches inputs that make the
parser slow (xDSL's string regex once hung on an unterminated string).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tirx_mlir.tools.tirx_opt import main

OPS = Path(__file__).resolve().parents[1] / "filecheck" / "dialects" / "tirx" / "ops.mlir"
SECTIONS = ["\n".join(line for line in chunk.splitlines() if not line.startswith("//"))
            for chunk in OPS.read_text().split("// -----") if "tirx." in chunk]
TOKENS = ["[", "]", "(", ")", "<", ">", ",", ":", "%x", "0", "-1", "99999999999999999999999",
          "f32", "global", "@", "{", "}", "x", "cta", "axes", "where", "->", '"', "tirx.copy",
          "\n", "?", "#tirx.layout<", "!tirx.buffer<", "S[", "@P", "swizzle(", "// "]
LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)


UNTERMINATED_STRING = ('tirx.kernel @k() grid [1] threads [1] target "aws/trn1/trn1.2xlarge, '
                       'the quote is never closed on this line {\n  tirx.return\n}\n')


@contextlib.contextmanager
def time_limit(seconds: int):
    """Fail (instead of hanging the suite) when one run takes longer than ``seconds``."""
    def expired(*_):
        raise TimeoutError(f"tirx-opt took longer than {seconds} s on this input")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@st.composite
def corrupted_programs(draw) -> str:
    text = draw(st.sampled_from(SECTIONS))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text) - 1))
        edit = draw(st.sampled_from(["delete", "insert", "cut", "numbers"]))
        if edit == "delete":
            text = text[:i] + text[i + 1:]
        elif edit == "insert":
            text = text[:i] + draw(st.sampled_from(TOKENS)) + text[i:]
        elif edit == "cut":
            text = text[:i] + text[i + draw(st.integers(1, 40)):]
        else:
            value = str(draw(st.sampled_from([0, 1, 3, 7, 64, 100000, -5])))
            text = re.sub(r"\d+", value, text, count=draw(st.integers(1, 4)))
    return text


@settings(max_examples=60, deadline=10000, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(corrupted_programs())
@example(UNTERMINATED_STRING)
def test_corrupted_input_is_accepted_or_located(tmp_path_factory, text: str) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "in.mlir"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    os.environ.pop("TIRX_MLIR_DEBUG", None)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), time_limit(20):
        code = main([str(path), "--crash-reproducer", str(path.with_suffix(".repro"))])
    report = err.getvalue()
    assert "internal compiler error" not in report, f"{report}\n--- input ---\n{text}"
    assert code in (0, 1)
    if code == 1:
        assert LOCATED.search(report), f"{report}\n--- input ---\n{text}"
