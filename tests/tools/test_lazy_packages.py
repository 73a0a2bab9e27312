"""`tirx_mlir.tools.lazy_packages`: with a table, ``xdsl.dialects.utils`` imports only the modules
whose names are read, and every name (read, star-imported, or unknown to the table) is the
object the eager package binds; a stale or corrupt table is never used; only the tools install
it."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
from tirx_mlir.tools import lazy_packages
lazy_packages.install()
def describe(v):
    return f"{type(v).__name__}:{getattr(v, '__module__', '')}:{getattr(v, '__qualname__', '')}"
import tirx_mlir.located_parser  # formats parsed on first use, as in the tools
from xdsl.dialects import arith  # reads BitEnumAttribute, FastMathAttrBase, FastMathFlag
import xdsl.dialects.utils as utils
modules = sorted(m for m in sys.modules if m.startswith('xdsl.dialects.utils.')
                 or 'declarative_assembly' in m)
names = {}
exec('from xdsl.dialects.utils import *', names)
star = {k: describe(v) for k, v in names.items() if k != '__builtins__'}
same = all(getattr(utils, k) is v for k, v in names.items() if k != '__builtins__')
mode = sys.argv[1]
if mode == 'unknown':
    try:
        utils.no_such_name
        missing = 'no error'
    except AttributeError as err:
        missing = str(err)
else:
    missing = None
print(json.dumps({"lazy": lazy_packages.lazy_loaded, "modules_after_arith": modules,
                  "star": star, "same": same, "missing": missing,
                  "complete": hasattr(utils, 'dimension_list') and '__getattr__' not in vars(utils)}))
"""


def run_probe(cache: Path, mode: str = "plain", enabled: bool = True) -> dict:
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": str(cache),
           "TIRX_MLIR_CACHE": "1" if enabled else "0"}
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_second_run_imports_only_what_it_reads_and_gets_the_same_objects(tmp_path):
    cold = run_probe(tmp_path)
    warm = run_probe(tmp_path)
    off = run_probe(tmp_path / "unused", enabled=False)
    assert cold["lazy"] == [] and off["lazy"] == [] and warm["lazy"] == ["xdsl.dialects.utils"]
    assert "xdsl.irdl.declarative_assembly_format" in cold["modules_after_arith"]
    assert warm["modules_after_arith"] == ["xdsl.dialects.utils.bit_enum_attribute",
                                           "xdsl.dialects.utils.fast_math"]
    # a star import reads every name: the same names, bound to the same objects
    assert warm["star"] == cold["star"] == off["star"] and len(warm["star"]) > 50
    assert warm["same"] and cold["same"]
    assert not (tmp_path / "unused").exists()


def test_a_name_the_table_lacks_completes_the_package_eagerly(tmp_path):
    run_probe(tmp_path)
    warm = run_probe(tmp_path, "unknown")
    assert warm["lazy"] == ["xdsl.dialects.utils"]
    assert warm["missing"] == "module 'xdsl.dialects.utils' has no attribute 'no_such_name'"
    assert warm["complete"]


def test_a_stale_or_corrupt_table_is_never_used(tmp_path):
    run_probe(tmp_path / "fresh")
    path = tmp_path / "fresh" / "lazy-packages.marshal"
    form, crc, payload = marshal.loads(path.read_bytes())
    tables = marshal.loads(payload)

    def pack(tables, form=form):
        payload = marshal.dumps(tables)
        return marshal.dumps((form, zlib.crc32(payload), payload))

    table = tables["xdsl.dialects.utils"]
    stale = {**table, "files": [(p, size + 1, mtime) for p, size, mtime in table["files"]]}
    gone = {**table, "files": table["files"] + [("/nonexistent/x.py", 1, 1)]}
    # another environment's table (the cache folder is shared): its files exist, unchanged
    other_init = tmp_path / "other-env" / "__init__.py"
    other_init.parent.mkdir()
    other_init.write_text("")
    info = other_init.stat()
    other = {**table, "files": [(str(other_init), info.st_size, info.st_mtime_ns)]}
    cases = {"stale": pack({"xdsl.dialects.utils": stale}),
             "other-install": pack({"xdsl.dialects.utils": other}),
             "gone": pack({"xdsl.dialects.utils": gone}),
             "truncated": path.read_bytes()[:-5], "garbage": b"\x00\x01",
             "other-format": pack(tables, form + 1),
             "bad-crc": marshal.dumps((form, crc ^ 1, payload)),
             "bad-types": pack({"xdsl.dialects.utils": {**table, "order": 3}})}
    for name, content in cases.items():
        cache = tmp_path / name
        cache.mkdir()
        (cache / path.name).write_bytes(content)
        first = run_probe(cache)
        assert first["lazy"] == [], name
        assert run_probe(cache)["lazy"] == ["xdsl.dialects.utils"], name  # rewritten
    # a current table sending a name to a module without it: the package completes eagerly
    missing = {**table, "names": {**table["names"], "FastMathFlag": ("format", False)}}
    cache = tmp_path / "wrong-module"
    cache.mkdir()
    (cache / path.name).write_bytes(pack({"xdsl.dialects.utils": missing}))
    fixed = run_probe(cache)
    assert fixed["lazy"] == ["xdsl.dialects.utils"] and fixed["complete"] and fixed["same"]
    assert fixed["star"] == run_probe(tmp_path / "fresh")["star"]
    # and the trace only ever names a module that holds the very object (the real table)
    import importlib

    eager = importlib.import_module("xdsl.dialects.utils")
    for key, (sub, is_module) in table["names"].items():
        holder = importlib.import_module(f"xdsl.dialects.utils.{sub}")
        assert (holder if is_module else getattr(holder, key)) is getattr(eager, key), key


def test_only_the_tools_install_it(tmp_path):
    probe = ("import sys\n"
             "import tirx_mlir, tirx_mlir.tools, tirx_mlir.tools.xdsl_universe\n"
             "from tirx_mlir.tools import lazy_packages\n"
             "print(lazy_packages.installed())\n"
             "import tirx_mlir.tools.tirx_opt\n"
             "print(lazy_packages.installed())\n")
    env = {**os.environ, "TIRX_MLIR_CACHE_DIR": str(tmp_path / "c")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, cwd=ROOT, env=env)
    assert out.stdout.split() == ["False", "True"]


THREADS_PROBE = r'''
import sys, threading
from tirx_mlir.tools import lazy_packages
root = sys.argv[1]
sys.path.insert(0, root)
import lzsync


class Gate(dict):
    """The table's names: thread B's lookup of "from_b" waits until thread A runs __init__."""

    def get(self, key, default=None):
        if key == "from_b":
            lzsync.b_in_getattr.set()
            lzsync.init_running.wait(10)
        return super().get(key, default)


import os
init = os.path.join(root, "lzpkg", "__init__.py")
info = os.stat(init)
lazy_packages.LAZY = ("lzpkg",)
lazy_packages._tables["lzpkg"] = {"files": [(init, info.st_size, info.st_mtime_ns)],
                                  "names": Gate(FIRST=("first", False), B=("b", False)),
                                  "order": ["FIRST", "B"]}
sys.meta_path.insert(0, lazy_packages._Finder())
import lzpkg
assert lazy_packages.lazy_loaded == ["lzpkg"] and "FIRST" not in vars(lzpkg)


def import_b():  # thread B: holds lzpkg.b's import lock while its body reads an unknown name
    import lzpkg.b


b = threading.Thread(target=import_b, daemon=True)
b.start()
lzsync.b_in_getattr.wait(10)
a_error = []


def complete_from_a():  # thread A: an unknown name completes the package (imports lzpkg.b)
    try:
        lzpkg.unknown_to_a
    except AttributeError as err:
        a_error.append(str(err))


a = threading.Thread(target=complete_from_a, daemon=True)
a.start()
a.join(10)
b.join(10)
if a.is_alive() or b.is_alive():
    print("deadlock", flush=True)
    os._exit(0)
print(a_error[0])
print(lzsync.b_error)
print(lzpkg.FIRST, lzpkg.B, "__getattr__" in vars(lzpkg), sorted(lzpkg.__all__))
'''


def test_completing_in_one_thread_while_another_imports_a_submodule_does_not_deadlock(tmp_path):
    """Thread B imports ``lzpkg.b`` (holding its import lock), whose body reads a name the
    table lacks; meanwhile thread A completes the package, whose ``__init__`` imports
    ``lzpkg.b``. Holding the completion lock through ``__init__`` deadlocked: A waited for b's
    import lock, B for the completion lock."""
    (tmp_path / "lzsync.py").write_text(
        "import threading\nb_in_getattr = threading.Event()\n"
        "init_running = threading.Event()\nb_error = None\n")
    pkg = tmp_path / "lzpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .first import *\nfrom .b import *\n"
                                     "__all__ = ['FIRST', 'B']\n")
    (pkg / "first.py").write_text("import lzsync\nlzsync.init_running.set()\nFIRST = 1\n")
    (pkg / "b.py").write_text(
        "import lzsync, lzpkg\ntry:\n    lzpkg.from_b\nexcept AttributeError as err:\n"
        "    lzsync.b_error = str(err)\nB = 2\n")
    out = subprocess.run([sys.executable, "-c", THREADS_PROBE, str(tmp_path)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert lines != ["deadlock"]
    # B saw the package partially initialized (as Python shows it mid-import); A got the
    # eager package: every name bound, the hooks gone
    assert lines == ["module 'lzpkg' has no attribute 'unknown_to_a'",
                     "module 'lzpkg' has no attribute 'from_b'",
                     "1 2 False ['B', 'FIRST']"]
