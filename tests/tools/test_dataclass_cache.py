"""The tools' dataclass-code cache: classes get the same methods as without it, a second run
reads the methods the first compiled, a corrupt file or ``TIRX_MLIR_CACHE=0`` only costs speed,
and plain ``xdsl-opt`` (which imports `tirx_mlir.tools` through its universe entry point) is
left alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from tirx_mlir.tools import dataclass_cache
dataclass_cache.install()
from dataclasses import dataclass, field

@dataclass(frozen=True)
class Point:
    x: int
    y: int = 2
    tags: tuple = field(default=())

@dataclass(order=True)
class Version:
    major: int
    minor: int = 0

p, q = Point(1), Point(1, 2, ())
try:
    p.x = 5
    frozen = False
except Exception as err:
    frozen = type(err).__name__
behaviour = [repr(p), p == q, hash(p) == hash(q), frozen, Version(1, 2) < Version(2),
             repr(Version(3)), Point.__init__.__qualname__, Point.__init__.__code__.co_filename]
import xdsl.dialects.builtin as builtin
behaviour.append(repr(builtin.IntegerType(32)))
print(json.dumps({"installed": dataclass_cache.installed(), "stats": dataclass_cache.stats(),
                  "behaviour": behaviour}))
"""


def run_probe(cache: Path, *, enabled: bool = True) -> dict:
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": str(cache),
           "TIRX_MLIR_CACHE": "1" if enabled else "0"}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_second_run_reads_what_the_first_compiled_and_classes_behave_the_same(tmp_path):
    cold = run_probe(tmp_path)
    files = list(tmp_path.iterdir())
    assert [f.name.startswith("dataclass-code-") for f in files] == [True]
    warm = run_probe(tmp_path)
    off = run_probe(tmp_path / "unused", enabled=False)
    assert cold["installed"] and warm["installed"] and not off["installed"]
    assert cold["stats"]["new"] > 0
    assert warm["stats"] == {"hits": warm["stats"]["hits"], "new": 0}
    assert warm["stats"]["hits"] >= cold["stats"]["new"]
    assert cold["behaviour"] == warm["behaviour"] == off["behaviour"]
    assert warm["behaviour"][:6] == ["Point(x=1, y=2, tags=())", True, True,
                                     "FrozenInstanceError", True, "Version(major=3, minor=0)"]
    assert not (tmp_path / "unused").exists()


def test_a_corrupt_or_foreign_cache_file_is_ignored_and_replaced(tmp_path):
    reference = run_probe(tmp_path / "fresh")
    for content in (b"", b"\x00garbage", b"\xfb\x00"):
        cache = tmp_path / f"bad{len(content)}"
        cache.mkdir()
        (cache / Path(next((tmp_path / "fresh").iterdir()).name)).write_bytes(content)
        first = run_probe(cache)
        assert first["behaviour"] == reference["behaviour"] and first["stats"]["new"] > 0
        assert run_probe(cache)["stats"]["new"] == 0  # rewritten whole by the first run


def test_an_unwritable_cache_directory_only_costs_speed(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = run_probe(blocker / "cache")
    assert result["installed"] and result["stats"]["new"] > 0


def test_only_the_tools_install_it_not_the_package_or_xdsl_opt(tmp_path):
    empty = tmp_path / "empty.mlir"
    empty.write_text("builtin.module {}\n")
    probe = ("import sys, dataclasses\n"
             "import tirx_mlir.tools, tirx_mlir.tools.xdsl_universe\n"
             "print('exec' in vars(dataclasses))\n"
             "import tirx_mlir.tools.tirx_opt\n"
             "print('exec' in vars(dataclasses))\n")
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": str(tmp_path / "c")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env)
    assert out.stdout.split() == ["False", "True"]
