"""The on-disk compile cache: a second compile in a new process is a hit; the key covers the
IR, target, pipeline and options; TIRX_MLIR_CACHE=0 turns it off; broken entries are misses."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import tirx_mlir
from tirx_mlir.runtime.cache import CompileCache, cache_dir
from tirx_testing.trn_lowering import example_path

CHILD = ("import sys, tirx_mlir\n"
         "art = tirx_mlir.compile(sys.argv[1])\n"
         "print(art.cache_hit, art.key, len(art.source))\n")


def _compile_in_a_new_process(path: str) -> tuple[bool, str, int]:
    proc = subprocess.run([sys.executable, "-c", CHILD, path], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    hit, key, size = proc.stdout.split()
    return hit == "True", key, int(size)


def test_a_second_compile_in_a_new_process_is_a_hit():
    first = _compile_in_a_new_process(example_path("softmax_128x512"))
    second = _compile_in_a_new_process(example_path("softmax_128x512"))
    assert first[0] is False and second[0] is True
    assert first[1:] == second[1:]
    entry = cache_dir() / first[1][:2] / first[1]
    assert sorted(p.name for p in entry.iterdir()) == ["lowered.mlir", "meta.json",
                                                       "source0.txt", "source1.txt"]


def test_a_hit_gives_the_same_artifact():
    miss = tirx_mlir.compile(example_path("add"))
    hit = tirx_mlir.compile(example_path("add"))
    assert (miss.cache_hit, hit.cache_hit) == (False, True)
    assert hit.sources == miss.sources and hit.stats == miss.stats
    assert str(hit.lowered) == str(miss.lowered) and hit.pipeline == miss.pipeline


@pytest.mark.parametrize("change", [
    {"target": "aws/trn2/trn2.48xlarge"}, {"max_inst_size": 128}, {"source": "nki-legacy"},
])
def test_the_key_changes_with_target_options_and_printer(change):
    base = tirx_mlir.compile(example_path("add"))
    other = tirx_mlir.compile(example_path("add"), **change)
    assert other.key != base.key and not other.cache_hit


def test_the_key_changes_with_the_ir():
    text = open(example_path("add")).read()
    a = tirx_mlir.compile(text)
    b = tirx_mlir.compile(text.replace("arith.constant 2.0", "arith.constant 3.0"))
    assert a.key != b.key and not b.cache_hit


def test_cache_off_by_environment_or_argument(monkeypatch, tmp_path):
    monkeypatch.setenv("TIRX_MLIR_CACHE", "0")
    tirx_mlir.compile(example_path("add"))
    again = tirx_mlir.compile(example_path("add"))
    assert not again.cache_hit and again.key is None and not cache_dir().exists()
    monkeypatch.delenv("TIRX_MLIR_CACHE")
    assert not tirx_mlir.compile(example_path("add"), cache=False).cache_hit
    where = tmp_path / "elsewhere"
    tirx_mlir.compile(example_path("add"), cache=where)
    assert tirx_mlir.compile(example_path("add"), cache=where).cache_hit


def test_a_partial_or_corrupt_entry_is_a_miss_and_is_rewritten():
    art = tirx_mlir.compile(example_path("add"))
    meta = CompileCache().path(art.key) / "meta.json"
    meta.write_text("{not json")
    again = tirx_mlir.compile(example_path("add"))
    assert not again.cache_hit and json.loads(meta.read_text())["format"] == 1
    (CompileCache().path(art.key) / "source0.txt").unlink()
    assert not tirx_mlir.compile(example_path("add")).cache_hit
    assert tirx_mlir.compile(example_path("add")).cache_hit


def test_an_unwritable_cache_only_costs_the_cache(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    art = tirx_mlir.compile(example_path("add"), cache=blocker / "sub")
    assert not art.cache_hit and "cannot be written" in art.notes[-1]
    assert "@nki.jit" in art.source


def test_the_key_changes_when_the_compilers_sources_change(tmp_path):
    """An edited (or reinstalled) tirx_mlir never reuses what an older one built: the key
    covers the package's sources by path, size and modification time."""
    from tirx_mlir.runtime.cache import _FINGERPRINTS, source_fingerprint

    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    first = source_fingerprint(pkg)
    assert source_fingerprint(pkg) == first  # once per process
    _FINGERPRINTS.clear()
    assert source_fingerprint(pkg) == first  # stable while nothing changes
    (pkg / "sub" / "b.py").write_text("y = 22\n")
    _FINGERPRINTS.clear()
    edited = source_fingerprint(pkg)
    assert edited != first
    os.utime(pkg / "a.py", ns=(1, 1))
    _FINGERPRINTS.clear()
    assert source_fingerprint(pkg) not in (first, edited)
