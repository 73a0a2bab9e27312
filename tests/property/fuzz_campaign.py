"""A mutation-fuzzing campaign over every example, through every stage a user reaches.

    python tests/property/fuzz_campaign.py --mutants 20000 --seed 0 --jobs 2
    python tests/property/fuzz_campaign.py --mutants 300 --show internal,hang,injection

Seeds: ``examples/*.mlir``, ``examples/trn/*.mlir``, the sections of the cuda-level dialect tests
(``tests/filecheck/backends/cuda/dialects/*/ops.mlir``) and ``tests/bad_inputs/*.mlir``. Each
mutant is a seed with one to three edits (`MUTATIONS`: numbers, shapes, scopes, layout words,
attribute strings with injection payloads, op names, lines deleted/duplicated/swapped, SSA and
symbol names, bracket nesting, truncation, non-UTF-8 bytes, target strings).

Every mutant is run in process (``tirx-opt``'s and ``tirx-run``'s ``main`` with an argv) by a
pool of worker processes, each case under a soft alarm and a hard kill (`STAGES`): parse+verify;
then, when it parses, ``--disable-verify -t nki`` and ``-t cuda``; when it verifies, the core
passes, the trn pipeline with ``-t nki`` and ``-t nki-legacy``, ``-t cuda``, ``-t ptx``, ``-t mlir``, ``--print-op-generic``, and
``tirx-run`` at tile level and after the trn pipeline with a small ``--max-steps``.

Each run is classified (`classify`):

* ``ok`` (exit 0), ``located`` (exit 1 with ``file:line:col: error:``), ``cli`` (exit 1 with
  ``tirx-opt: error:`` / ``tirx-run: error:``);
* ``internal``: a traceback, an "internal (compiler) error", an exception out of ``main``, or an
  exit status other than 0/1, or exit 1 without any error line;
* ``hang``: the run passed the time limit;
* ``misplaced``: a located error whose ``file:line:col`` is not a position in the input;
* ``injection``: NKI text that holds an injected payload (checked on the text and on its Python
  syntax tree: no call of ``__import__``/``eval``/``exec``/``system``), or NKI text that is not
  Python at all;
* ``accepted-then-rejected`` (a candidate of "wrong code accepted"): ``tirx-opt --pass-pipeline
  trn -t nki`` printed NKI but ``tirx-run --pass-pipeline trn`` failed for a reason other than its
  step budget, or the tile-level run failed for such a reason where the pipeline did not.

The counts per outcome are printed at the end; ``--show`` prints each case of those outcomes
(the mutant's text, the command line and the report). The exit status is 1 when an outcome of
`FAILURES` occurred.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import hashlib
import io
import multiprocessing as mp
import os
import random
import re
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOFT_TIMEOUT_S = 20
"""A run past this many seconds of CPU time is a hang (so that a loaded machine makes no false
hangs; a worker is killed at twice that per stage of wall time)."""
MAX_STEPS = "20000"
MEMORY_LIMIT_BYTES = 6 << 30
"""The address space a worker may use: an allocation past it is a MemoryError in the worker."""

FAILURES = ("internal", "hang", "injection")
"""Outcomes that fail the campaign (``misplaced`` and ``accepted-then-rejected`` are reported
for review)."""
LOCATED = re.compile(r"^\S[^\n]*?:\d+:\d+: error: ", re.MULTILINE)
FILE_ERROR = re.compile(r"^\S[^\n]*?\.mlir: error: ", re.MULTILINE)
"""A module-level error (no kernel, several kernels) names the file without a line."""
CLI_ERROR = re.compile(r"^tirx-(opt|run): error: ", re.MULTILINE)
STEP_BUDGET = re.compile(r"step.budget|--max-steps", re.IGNORECASE)

PAYLOADS = ['__import__("os").system("PWN")', "x\"); __import__('os').system('PWN'); (\"",
            "a\\nimport os\\nos.system('PWN')", "exec('PWN')", "'''PWN", "x\\\"y", "add\\0A",
            "eval(\"PWN\")", "ядро", "--x", "a b", ""]
INJECTED_CALLS = {"__import__", "eval", "exec", "system", "compile", "open"}


# --- seeds --------------------------------------------------------------------------------------


def seed_files() -> list[Path]:
    return [*sorted(ROOT.glob("examples/*.mlir")), *sorted(ROOT.glob("examples/trn/*.mlir")),
            *sorted(ROOT.glob("examples/cuda/*.mlir")),
            *sorted(ROOT.glob("tests/filecheck/backends/cuda/dialects/*/ops.mlir")),
            *sorted(ROOT.glob("tests/bad_inputs/*.mlir"))]


@functools.cache
def seeds() -> list[tuple[str, str]]:
    """(name, text) of every seed; a file with ``// -----`` sections gives one per section. Each
    trn example also gives its IR after the trn pipeline (``name@trn``), so that mutants reach
    the nki ops and the printers directly."""
    out = []
    for path in seed_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        parts = [p for p in text.split("// -----") if p.strip()]
        name = str(path.relative_to(ROOT))
        out += [(f"{name}#{i}" if len(parts) > 1 else name, part) for i, part in enumerate(parts)]
        if name.startswith("examples/trn/"):
            code, lowered, _ = _run_main("opt", [str(path), *TRN, "-t", "mlir"])
            if code == 0:
                out.append((f"{name}@trn", lowered))
    return out


# --- mutations ----------------------------------------------------------------------------------

NUMBERS = ["0", "-1", "1", "2", "3", "7", "127", "129", "4096", "2147483648", "9223372036854775808",
           "18446744073709551616", "99999999999999999999", "1e308", "nan", "inf", "-0.0", "0x10",
           "-9223372036854775809", "65536", "1000000000000"]
SCOPES = ["global", "shared", "local", "trn.sbuf", "trn.psum", "trn.hbm", "cuda.shared",
          "cuda.local", "tmem", "register", "nosuch", "trn.", ""]
DTYPES = ["f32", "f16", "bf16", "f8E4M3FN", "i32", "i8", "i1", "index", "i64", "f64", "i0",
          "f128", "complex<f32>"]
LAYOUT_WORDS = ["P", "F", "TLane", "TCol", "laneid", "warpid", "x", "S", "swizzle", "where",
                "axes", "->", "R", "tid"]
TARGETS = ['"aws/trn1/trn1.2xlarge"', '"aws/trn2/trn2.48xlarge"', '"cuda -arch=sm_90a"',
           '"cuda -arch=sm_0"', '"aws/trn1/trn1.2xlarge -partitions=0"',
           '"aws/trn1/trn1.2xlarge -sbuf_bytes=0"', '"aws/trn1/trn1.2xlarge -partitions=1e20"',
           '"trn -partitions=129"', '"cuda -arch=__import__"', '""', '"nosuch"',
           '"aws/trn1/trn1.2xlarge -psum_bank_bytes=-1"', '"cuda -arch=sm_90a -max_threads=0"']
SYMBOLS = ['@"__import__"', '@"ядро"', '@"a-b"', '@a_b', '@"--x"', '@"x\\"y"', '@"0x"',
           '@"import os"', "@k", '@""', '@"a\\0Ab"']
NESTING = ["[" * 300, "(" * 300, "{" * 50, "<" * 300, ")" * 3, "]", "}"]
TOKENS = ["[", "]", "(", ")", "<", ">", ",", ":", "%x", "%0", "-1", "f32", "global", "@", "{", "}",
          "x", "cta", "->", '"', "\n", "?", "#tirx.layout<", "!tirx.buffer<", "^bb0:", "// ",
          "loc(", "dense<", "tirx.return", "scf.yield", "0 : index", "%c0 = arith.constant 0 : index\n"]
NON_UTF8 = [b"\xff", b"\xc3\x28", b"\x80\x80", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf"]

_NUMBER = re.compile(r"(?<![\w.%@#])-?\d+(\.\d+)?(e[+-]?\d+)?(?![\w])")
_SHAPE = re.compile(r"(?<=<)(\d+x)+(?=[a-z])")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_OPNAME = re.compile(r"\b(?:tirx|trn|nki|cuda|ptx|nvshmem|scf|arith|math|memref|func)\.[a-z_0-9.]+\b")
_SSA = re.compile(r"%[\w.$-]+")
_SYMBOL = re.compile(r'@(?:[\w.$-]+|"[^"\n]*")')
_SCOPE = re.compile(r"(?<=, )(global|shared|local|trn\.\w+|cuda\.\w+)(?=[,>])")
_TARGET = re.compile(r'target "[^"\n]*"')
_LAYOUT_WORD = re.compile(r"\b(P|F|TLane|TCol|laneid|warpid|S|R)\b")

@functools.cache
def op_names() -> list[str]:
    return sorted({m.group(0) for _, text in seeds() for m in _OPNAME.finditer(text)})


def _replace_match(rng: random.Random, text: str, pattern: re.Pattern, choices) -> str:
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    new = choices(m) if callable(choices) else rng.choice(choices)
    return text[:m.start()] + new + text[m.end():]


def _lines(rng: random.Random, text: str, how: str) -> str:
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if how == "delete":
        del lines[i]
    elif how == "duplicate":
        lines.insert(j, lines[i])
    else:
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def _shape(rng: random.Random, m: re.Match) -> str:
    dims = m.group(0).rstrip("x").split("x")
    how = rng.choice(["dim", "dim", "add", "drop", "many"])
    if how == "dim":
        dims[rng.randrange(len(dims))] = rng.choice(NUMBERS[:14] + ["?", "1"])
    elif how == "add":
        dims.insert(rng.randrange(len(dims) + 1), rng.choice(["1", "2", "128"]))
    elif how == "drop" and len(dims) > 1:
        del dims[rng.randrange(len(dims))]
    elif how == "many":
        dims = ["1"] * rng.choice([40, 5000]) + dims
    return "x".join(dims) + "x"


def _rename_ssa(rng: random.Random, text: str) -> str:
    names = sorted(set(_SSA.findall(text)))
    if not names:
        return text
    return _replace_match(rng, text, _SSA, names + ["%undefined", "%0", "%arg0"])


def _string(rng: random.Random, m: re.Match) -> str:
    body = rng.choice(PAYLOADS) if rng.random() < 0.7 else m.group(0)[1:-1][::-1]
    return '"' + body + '"'


def _insert(rng: random.Random, text: str, pieces: list[str]) -> str:
    i = rng.randrange(len(text) + 1)
    return text[:i] + rng.choice(pieces) + text[i:]


MUTATIONS = {
    "number": lambda r, t: _replace_match(r, t, _NUMBER, NUMBERS),
    "all-numbers": lambda r, t: _NUMBER.sub(r.choice(NUMBERS), t, count=r.randint(1, 6)),
    "shape": lambda r, t: _replace_match(r, t, _SHAPE, lambda m: _shape(r, m)),
    "dtype": lambda r, t: _replace_match(r, t, re.compile(r"\b(f32|f16|bf16|i32|index|f8\w+)\b"),
                                         DTYPES),
    "scope": lambda r, t: _replace_match(r, t, _SCOPE, SCOPES),
    "layout": lambda r, t: _replace_match(r, t, _LAYOUT_WORD, LAYOUT_WORDS),
    "string": lambda r, t: _replace_match(r, t, _STRING, lambda m: _string(r, m)),
    "op-name": lambda r, t: _replace_match(r, t, _OPNAME, op_names()),
    "line-delete": lambda r, t: _lines(r, t, "delete"),
    "line-duplicate": lambda r, t: _lines(r, t, "duplicate"),
    "line-swap": lambda r, t: _lines(r, t, "swap"),
    "ssa": _rename_ssa,
    "symbol": lambda r, t: _replace_match(r, t, _SYMBOL, SYMBOLS),
    "nesting": lambda r, t: _insert(r, t, NESTING),
    "truncate": lambda r, t: t[:r.randrange(len(t) + 1)],
    "token": lambda r, t: _insert(r, t, TOKENS),
    "delete-span": lambda r, t: (lambda i: t[:i] + t[i + r.randint(1, 30):])(r.randrange(len(t) + 1)),
    "target": lambda r, t: _replace_match(r, t, _TARGET, lambda m: "target " + r.choice(TARGETS)),
}


@dataclass
class Mutant:
    seed: str
    edits: list[str]
    data: bytes
    options: str = ""
    """What a campaign varies besides the text (the CUDA campaign: the pipeline's options)."""


SEED_GROUPS = {"@trn": 0.15, "examples/trn/": 0.25, "examples/": 0.25, "tests/filecheck/": 0.15,
               "tests/bad_inputs/": 0.2}
"""How often a mutant starts from each group of seeds: ``@trn`` (a trn example after the
pipeline), then the first prefix of the seed's name that matches."""


def _group(name: str) -> str:
    return "@trn" if name.endswith("@trn") else next(g for g in SEED_GROUPS if name.startswith(g))


def pick_seed(rng: random.Random, seed_list: list[tuple[str, str]]) -> tuple[str, str]:
    """A seed: a group by `SEED_GROUPS` (the corpus holds many more bad inputs than examples),
    then a seed of the group."""
    groups = {g: [s for s in seed_list if _group(s[0]) == g] for g in SEED_GROUPS}
    present = [g for g in SEED_GROUPS if groups[g]]
    group = rng.choices(present, [SEED_GROUPS[g] for g in present])[0]
    return rng.choice(groups[group])


def mutate(rng: random.Random, seed_list: list[tuple[str, str]]) -> Mutant:
    name, text = pick_seed(rng, seed_list)
    edits = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        edit = rng.choice(list(MUTATIONS) + ["non-utf8"] * (1 if rng.random() < 0.3 else 0))
        edits.append(edit)
        if edit != "non-utf8":
            text = MUTATIONS[edit](rng, text)
    data = text.encode("utf-8")
    if "non-utf8" in edits:
        i = rng.randrange(len(data) + 1)
        data = data[:i] + rng.choice(NON_UTF8) + data[i:]
    return Mutant(name, edits, data)


# --- stages -------------------------------------------------------------------------------------

TRN = ["--pass-pipeline=trn"]
STAGES = {
    # name: (tool, extra argv, when: "always" | "parses" | "verifies")
    "verify": ("opt", [], "always"),
    "nki-unverified": ("opt", ["--disable-verify", "-t", "nki"], "parses"),
    "core-passes": ("opt", ["-p", "canonicalize,cse,dce,tirx-check-bounds"], "verifies"),
    "nki": ("opt", ["-t", "nki"], "verifies"),
    "nki-legacy": ("opt", ["-t", "nki-legacy"], "verifies"),
    "trn-nki": ("opt", [*TRN, "-t", "nki"], "verifies"),
    "trn-nki-legacy": ("opt", [*TRN, "-t", "nki-legacy"], "verifies"),
    "cuda-unverified": ("opt", ["--disable-verify", "-t", "cuda"], "parses"),
    "cuda": ("opt", ["-t", "cuda"], "verifies"),
    "ptx": ("opt", ["-t", "ptx"], "verifies"),
    "mlir": ("opt", ["-t", "mlir"], "verifies"),
    "generic": ("opt", ["--print-op-generic"], "verifies"),
    "run-tile": ("run", ["--max-steps", MAX_STEPS], "verifies"),
    "run-trn": ("run", ["--pass-pipeline", "trn", "--max-steps", MAX_STEPS], "verifies"),
}
NKI_STAGES = ("nki-unverified", "nki", "nki-legacy", "trn-nki", "trn-nki-legacy")
SOURCE_STAGES = ("cuda-unverified", "cuda", "ptx")
"""Stages printing CUDA C++ or PTX: checked for the payload's text (`payload_in`)."""


class Timeout(BaseException):
    """The soft time limit of one run (a BaseException: ``main`` catches every Exception)."""


def _expired(*_):
    raise Timeout()


def _run_main(tool: str, argv: list[str]) -> tuple[object, str, str]:
    """(exit status or the exception, stdout, stderr) of one in-process run."""
    from xdsl.ir import Attribute

    from tirx_mlir.tools import tirx_opt, tirx_run

    main = tirx_opt.main if tool == "opt" else tirx_run.main
    post_init = Attribute.__post_init__  # --disable-verify replaces it for the process
    out, err = io.StringIO(), io.StringIO()
    signal.signal(signal.SIGPROF, _expired)
    signal.setitimer(signal.ITIMER_PROF, SOFT_TIMEOUT_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code: object = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            except Timeout:
                code = "hang"
            except BaseException as exc:  # noqa: BLE001 - an exception out of main
                code = exc
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        Attribute.__post_init__ = post_init
    return code, out.getvalue(), err.getvalue()


def payload_in(text: str) -> str | None:
    """Why printed source holds a payload's text (quoted or called), or None."""
    if "PWN" in text and re.search(r"""["'(]PWN|PWN["')]""", text):
        return "payload text in the output"
    return None


def injected(nki: str) -> str | None:
    """Why the NKI text holds injected code, or None."""
    if why := payload_in(nki):
        return why
    try:
        tree = ast.parse(nki)
    except SyntaxError as err:
        return f"the output is not Python: {err}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in INJECTED_CALLS:
                return f"a call of {name}() in the output"
    return None


def classify(stage: str, code: object, out: str, err: str) -> tuple[str, str]:
    """(outcome, detail) of one run."""
    text = out + err
    if code == "hang":
        return "hang", f"ran past {SOFT_TIMEOUT_S} s of CPU time"
    if isinstance(code, BaseException):
        return "internal", f"{type(code).__name__} out of main: {code}"
    if "Traceback (most recent call last)" in text:
        return "internal", "a traceback"
    if "internal compiler error" in text or "internal error" in text:
        return "internal", _first_error(err)
    if code == 0:
        if stage in NKI_STAGES and (why := injected(out)):
            return "injection", why
        if stage in SOURCE_STAGES and (why := payload_in(out)):
            return "injection", why
        return "ok", ""
    if code != 1:
        return "internal", f"exit status {code!r}"
    if LOCATED.search(err) or FILE_ERROR.search(err):
        return "located", _first_error(err)
    if CLI_ERROR.search(err):
        return "cli", _first_error(err)
    return "internal", "exit 1 without an error line: " + err[:200]


def _first_error(err: str) -> str:
    for line in err.splitlines():
        if "error:" in line:
            return line
    return err[:200]


_POSITION = re.compile(r"^(?P<file>\S[^\n]*?):(?P<line>\d+):(?P<col>\d+): error: ", re.MULTILINE)


def misplaced(err: str, path: str, data: bytes) -> str | None:
    """Why the first ``file:line:col`` of a report is not a position in the input, or None."""
    m = _POSITION.search(err)
    if m is None or m.group("file") != path:
        return None if m is None else f"names {m.group('file')!r}, not the input"
    lines = data.split(b"\n")
    line, col = int(m.group("line")), int(m.group("col"))
    if not 1 <= line <= len(lines):
        return f"line {line} is outside the file ({len(lines)} lines): {_first_error(err)}"
    if not 1 <= col <= len(lines[line - 1]) + 1:
        return f"column {col} is outside line {line}: {_first_error(err)}"
    return None


def run_mutant(data: bytes, workdir: str) -> list[tuple[str, str, str]]:
    """[(stage, outcome, detail)] of one mutant through the stages its validity reaches."""
    path = os.path.join(workdir, "in.mlir")
    with open(path, "wb") as f:
        f.write(data)
    results = []
    reached = {"always"}

    def go(stage: str) -> tuple[str, str]:
        tool, extra, _ = STAGES[stage]
        argv = [path, *extra]
        if tool == "opt":
            argv += ["--crash-reproducer", os.path.join(workdir, "repro.mlir")]
        code, out, err = _run_main(tool, argv)
        outcome, detail = classify(stage, code, out, err)
        if outcome == "located" and (why := misplaced(err, path, data)):
            outcome, detail = "misplaced", why
        results.append((stage, outcome, detail))
        return outcome, err

    outcome, err = go("verify")
    if outcome == "ok":
        reached |= {"parses", "verifies"}
    elif outcome == "located" and "op " in _first_error(err) and "'" in _first_error(err):
        reached.add("parses")  # a verifier error names the op: the text parsed
    for stage, (_, _, when) in STAGES.items():
        if stage != "verify" and when in reached:
            go(stage)
    by_stage = {s: (o, d) for s, o, d in results}
    if by_stage.get("trn-nki", ("",))[0] == "ok":
        run = by_stage.get("run-trn")
        if run and run[0] == "located" and not STEP_BUDGET.search(run[1]):
            results.append(("wrong-code", "accepted-then-rejected", run[1]))
    return results


# --- the pool -----------------------------------------------------------------------------------


def run_mutant_text(mutant: Mutant, workdir: str) -> list[tuple[str, str, str]]:
    return run_mutant(mutant.data, workdir)


def _worker(conn, run) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))
    os.environ.pop("TIRX_MLIR_DEBUG", None)
    import tirx_mlir.tools.tirx_opt  # noqa: F401 - warm the imports once
    import tirx_mlir.tools.tirx_run  # noqa: F401

    with tempfile.TemporaryDirectory(prefix="tirx-fuzz-") as workdir:
        while True:
            mutant = conn.recv()
            if mutant is None:
                return
            try:
                results = run(mutant, workdir)
            except Timeout:
                results = [("?", "hang", "outside main")]
            conn.send(results)


class Pool:
    """Worker processes, each running one mutant at a time through ``run(mutant, workdir)``; a
    worker stuck past ``hard_limit_s`` is killed (the mutant is a hang) and replaced."""

    def __init__(self, jobs: int, run=run_mutant_text,
                 hard_limit_s: float = 2 * SOFT_TIMEOUT_S * len(STAGES)):
        self.run, self.hard_limit_s = run, hard_limit_s
        self.ctx = mp.get_context("fork")
        self.workers = [self._spawn() for _ in range(jobs)]

    def _spawn(self):
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=_worker, args=(child, self.run), daemon=True)
        proc.start()
        return [proc, parent, None, 0.0]  # process, pipe, current task, start time

    def map(self, tasks, on_result) -> None:
        tasks = iter(tasks)
        busy = 0
        done = False
        while True:
            for w in self.workers:
                if w[2] is None and not done:
                    task = next(tasks, None)
                    if task is None:
                        done = True
                        continue
                    w[1].send(task[1])
                    w[2], w[3] = task, time.monotonic()
                    busy += 1
            if busy == 0:
                return
            for i, w in enumerate(self.workers):
                if w[2] is None:
                    continue
                if w[1].poll(0.01):
                    try:
                        results = w[1].recv()
                    except EOFError:
                        results = [("?", "internal", "the worker died (killed by the OS?)")]
                        self._replace(i)
                    on_result(w[2], results)
                    w[2] = None
                    busy -= 1
                elif not w[0].is_alive() or time.monotonic() - w[3] > self.hard_limit_s:
                    reason = "the worker died" if not w[0].is_alive() else "killed past the hard limit"
                    on_result(w[2], [("?", "hang" if w[0].is_alive() else "internal", reason)])
                    self._replace(i)
                    busy -= 1

    def _replace(self, i: int) -> None:
        w = self.workers[i]
        if w[0].is_alive():
            w[0].kill()
        w[0].join()
        self.workers[i] = self._spawn()

    def close(self) -> None:
        for w in self.workers:
            with contextlib.suppress(OSError, BrokenPipeError):
                w[1].send(None)
            w[0].join(timeout=5)
            if w[0].is_alive():
                w[0].kill()


# --- the campaign -------------------------------------------------------------------------------


@dataclass
class Campaign:
    mutants: int
    seed: int
    jobs: int = 2
    show: tuple[str, ...] = ()
    progress: bool = False
    stage_counts: Counter = field(default_factory=Counter)
    outcome_counts: Counter = field(default_factory=Counter)
    cases: list[tuple[Mutant, str, str, str]] = field(default_factory=list)
    signatures: Counter = field(default_factory=Counter)
    located: Counter = field(default_factory=Counter)
    """(stage, signature) of every located error."""
    make_mutant: object = mutate
    """``(rng, seeds) -> Mutant``; another campaign passes its own (with `seed_list` and `pool`)."""
    seed_list: object = seeds
    pool: object = Pool
    failing: tuple[str, ...] = FAILURES

    def tasks(self):
        rng = random.Random(self.seed)
        seed_list = self.seed_list()
        seen = set()
        made = 0
        while made < self.mutants:
            m = self.make_mutant(rng, seed_list)
            key = hashlib.sha1(m.data).digest()
            if key in seen:
                continue
            seen.add(key)
            made += 1
            yield made, m

    def on_result(self, task, results) -> None:
        _, mutant = task
        if self.progress and task[0] % 1000 == 0:
            print(f"[{task[0]}] {dict(self.outcome_counts)}", file=sys.stderr, flush=True)
        for stage, outcome, detail in results:
            self.stage_counts[(stage, outcome)] += 1
            self.outcome_counts[outcome] += 1
            if outcome == "located":
                self.located[(stage, signature(detail))] += 1
            if outcome not in ("ok", "located", "cli"):
                if outcome in self.failing and self.progress:
                    print(f"[{task[0]}] {outcome} at {stage}: {detail[:200]}", file=sys.stderr,
                          flush=True)
                self.cases.append((mutant, stage, outcome, detail))
                self.signatures[(outcome, stage, signature(detail))] += 1

    def run(self) -> float:
        start = time.monotonic()
        pool = self.pool(self.jobs)
        try:
            pool.map(self.tasks(), self.on_result)
        finally:
            pool.close()
        return time.monotonic() - start

    def failures(self) -> list[tuple[Mutant, str, str, str]]:
        return [c for c in self.cases if c[2] in self.failing]


def signature(detail: str) -> str:
    """The detail without its numbers, names and locations: one line per kind of failure."""
    detail = re.sub(r"^\S+:\d+:\d+: ", "", detail)
    detail = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", detail)
    return re.sub(r"\d+", "N", detail)[:160]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mutants", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--show", default="internal,hang,injection",
                   help="comma-separated outcomes whose cases are printed (at most 3 per kind)")
    p.add_argument("--located", type=int, default=0, metavar="N",
                   help="also print the N most frequent kinds of located error")
    args = p.parse_args(argv)
    campaign = Campaign(args.mutants, args.seed, args.jobs, tuple(args.show.split(",")),
                        progress=True)
    return report(campaign, campaign.run(), args.located)


def report(campaign: Campaign, elapsed: float, located: int = 0) -> int:
    """Print the counts, the signatures and the cases `Campaign.show` asks for; the exit
    status (1 when an outcome of `FAILURES` occurred)."""
    print(f"{campaign.mutants} mutants (seed {campaign.seed}) in {elapsed:.0f} s, "
          f"{sum(campaign.outcome_counts.values())} runs")
    for outcome, n in sorted(campaign.outcome_counts.items()):
        print(f"  {outcome:24} {n}")
    print("per stage:")
    for (stage, outcome), n in sorted(campaign.stage_counts.items()):
        print(f"  {stage:16} {outcome:24} {n}")
    if campaign.signatures:
        print("signatures:")
        for (outcome, stage, sig), n in campaign.signatures.most_common():
            print(f"  {n:6}  {outcome:10} {stage:16} {sig}")
    if located:
        print("located errors (most frequent):")
        for (stage, sig), n in campaign.located.most_common(located):
            print(f"  {n:6}  {stage:16} {sig}")
    shown = Counter()
    for mutant, stage, outcome, detail in campaign.cases:
        key = (outcome, stage, signature(detail))
        if outcome in campaign.show and shown[key] < 3:
            shown[key] += 1
            print(f"\n=== {outcome} at {stage} ({mutant.seed}; {', '.join(mutant.edits)}): {detail}")
            if mutant.options:
                print(f"(options: {mutant.options})")
            print(mutant.data.decode("utf-8", "replace")[:3000])
    return 1 if campaign.failures() else 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
