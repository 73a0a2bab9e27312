"""The tools' regex cache: a pattern built from the table is the one the standard compiler makes
(program, flags, groups, group names, matches), a second run reads what the first compiled, a
file of another build or a corrupt one is ignored (never used), and only the tools install it."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PATTERNS = [
    (r"(?P<int>-?\d+)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)", 0),
    (r"%((?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))(?:#([0-9]+))?", 0),
    (r"straße|ǅ", 2),  # re.IGNORECASE: the Unicode case tables
    (r"^\s*(\w+)\s*$", 8 | 16),  # MULTILINE | DOTALL
    (rb"[\x00-\x1f]+(?P<tail>x)?", 0),
    (r"a{2,5}?b", 64),  # re.VERBOSE
]
SAMPLES = ["-12 abc", "%x#3 = y", "STRASSE ǆ", "  hello\n word  \n", "a" * 7 + "b", "x_1"]

PROBE = """
import json, re, sys
from tirx_mlir.tools import regex_cache
regex_cache.install()
patterns = json.loads(sys.argv[1]); samples = json.loads(sys.argv[2])
out = []
for text, flags in patterns:
    p = re.compile(text[2:].encode('latin-1') if text.startswith('b:') else text, flags)
    subject = [s.encode('utf-8') for s in samples] if isinstance(p.pattern, bytes) else samples
    matches = [[m.span(), m.groups()] if (m := p.search(s)) else None for s in subject]
    out.append([repr(p.pattern), p.flags, p.groups, dict(p.groupindex), repr(matches)])
print(json.dumps({"installed": regex_cache.installed(), "stats": regex_cache.stats(),
                  "patterns": out}))
"""


def _encoded() -> str:
    return json.dumps([("b:" + p.decode("latin-1"), f) if isinstance(p, bytes) else (p, f)
                       for p, f in PATTERNS])


def run_probe(cache: Path, *, enabled: bool = True) -> dict:
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": str(cache),
           "TIRX_MLIR_CACHE": "1" if enabled else "0"}
    out = subprocess.run([sys.executable, "-c", PROBE, _encoded(), json.dumps(SAMPLES)],
                         capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cache_file(cache: Path) -> Path:
    files = [f for f in cache.iterdir() if f.name.startswith("regex-code-")]
    assert len(files) == 1
    return files[0]


def test_the_second_run_builds_from_the_table_the_patterns_the_standard_compiler_makes(tmp_path):
    cold = run_probe(tmp_path)
    warm = run_probe(tmp_path)
    off = run_probe(tmp_path / "unused", enabled=False)
    assert cold["installed"] and warm["installed"] and not off["installed"]
    assert cold["stats"]["new"] >= len(PATTERNS) and warm["stats"]["new"] == 0
    assert warm["stats"]["hits"] >= len(PATTERNS)
    assert cold["patterns"] == warm["patterns"] == off["patterns"]
    assert not (tmp_path / "unused").exists()


def test_the_table_holds_the_standard_compilers_arguments_to_sre(tmp_path):
    run_probe(tmp_path)
    from tirx_mlir.tools import regex_cache

    table = regex_cache.read(str(cache_file(tmp_path)))
    import _sre
    import re
    from re import _compiler

    seen = []
    real = _compiler._sre

    class Spy:
        def __getattr__(self, name):
            return getattr(real, name)

        def compile(self, *args):
            seen.append(args)
            return real.compile(*args)

    _compiler._sre = Spy()
    try:
        for text, flags in PATTERNS:
            regex_cache._standard(text, flags)
    finally:
        _compiler._sre = real
    for (text, flags), args in zip(PATTERNS, seen):
        age, entry = table[(text, flags)]
        assert age == 0
        assert entry == (args[1], list(args[2]), args[3], dict(args[4]), tuple(args[5]))
        assert _sre.compile(text, *entry).pattern == re.compile(text, flags).pattern


def test_another_build_a_corrupt_file_or_a_bad_program_is_never_used(tmp_path):
    reference = run_probe(tmp_path / "fresh")
    path = cache_file(tmp_path / "fresh")
    form, build, crc, payload = marshal.loads(path.read_bytes())
    table = marshal.loads(payload)
    key = (PATTERNS[0][0], PATTERNS[0][1])
    age, (flags, code, groups, groupindex, indexgroup) = table[key]
    bad_program = dict(table)
    bad_program[key] = (age, (flags, [1, 2, 3, 99999], groups, groupindex, indexgroup))
    other = dict(table)  # a valid program, but of another pattern: must not pass the checks
    other[key] = table[(PATTERNS[1][0], PATTERNS[1][1])]
    cases = {
        "truncated": path.read_bytes()[:-7],
        "garbage": b"\x00garbage",
        "other-build": marshal.dumps((form, build + "x", zlib.crc32(marshal.dumps(other)),
                                      marshal.dumps(other))),
        "bad-crc": marshal.dumps((form, build, crc ^ 1, marshal.dumps(other))),
        "bad-program": marshal.dumps((form, build, zlib.crc32(marshal.dumps(bad_program)),
                                      marshal.dumps(bad_program))),
        "wrong-types": marshal.dumps((form, build, zlib.crc32(marshal.dumps({key: 1})),
                                      marshal.dumps({key: 1}))),
    }
    for name, content in cases.items():
        cache = tmp_path / name
        cache.mkdir()
        (cache / path.name).write_bytes(content)
        first = run_probe(cache)
        assert first["patterns"] == reference["patterns"], name
        if name != "bad-program":
            assert first["stats"]["new"] >= len(PATTERNS), name
        second = run_probe(cache)
        assert second["stats"]["new"] == 0 and second["patterns"] == reference["patterns"], name


def test_patterns_that_differ_per_process_and_debug_patterns_are_not_kept(tmp_path):
    probe = ("import re, sys, tokenize\n"
             "from tirx_mlir.tools import regex_cache\n"
             "regex_cache.install()\n"
             "re.compile(tokenize.PseudoToken, re.UNICODE)\n"
             "print(regex_cache.stats()['new'])\n")
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env)
    assert out.stdout.split()[-1] == "0"
    assert not any(tmp_path.iterdir())  # nothing new: nothing written
    from tirx_mlir.tools import regex_cache

    assert regex_cache._UNCACHED_FLAGS & 128  # re.DEBUG prints its program: compiled each time


def test_an_entry_no_run_uses_ages_out(tmp_path, monkeypatch):
    from tirx_mlir.tools import regex_cache

    path = tmp_path / "regex-code-test.marshal"
    monkeypatch.setattr(regex_cache, "_table", regex_cache._Table(str(path)))
    table = regex_cache._table
    table.entries[("x", 0)] = (0, [1], 0, {}, (None,))
    table.ages[("x", 0)] = (regex_cache.MAX_AGE, table.entries[("x", 0)])
    table.entries[("y", 0)] = (0, [1], 0, {}, (None,))
    table.ages[("y", 0)] = (3, table.entries[("y", 0)])
    table.entries[("z", 0)] = (0, [1], 0, {}, (None,))
    table.used.add(("z", 0))
    table.new = 1
    regex_cache.save()
    written = regex_cache.read(str(path))
    assert {key: age for key, (age, _) in written.items()} == {("y", 0): 4, ("z", 0): 0}


def test_only_the_tools_install_it(tmp_path):
    probe = ("import re._compiler as c\n"
             "import tirx_mlir, tirx_mlir.tools, tirx_mlir.tools.xdsl_universe\n"
             "print(getattr(c.compile, 'regex_cache', False))\n"
             "import tirx_mlir.tools.tirx_opt\n"
             "print(getattr(c.compile, 'regex_cache', False))\n")
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": str(tmp_path / "c")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env)
    assert out.stdout.split() == ["False", "True"]
