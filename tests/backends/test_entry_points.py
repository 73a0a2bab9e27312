"""Out-of-tree backends: a real distribution (dist-info with entry_points.txt) on sys.path,
whose entry point loads its backend at ``import tirx_mlir``; broken entry points only warn."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def _write(path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def make_distribution(root) -> None:
    _write(root / "fooplug-1.0.dist-info" / "METADATA",
           "Metadata-Version: 2.1\nName: fooplug\nVersion: 1.0\n")
    _write(root / "fooplug-1.0.dist-info" / "entry_points.txt", """\
        [tirx_mlir.backends]
        foo = fooplug:_autoload
        broken = fooplug:_broken
        missing = fooplug_missing:hook
        leaky = fooplug:_leaky
        exits = fooplug:_exits
        interrupts = fooplug:_interrupts
        """)
    _write(root / "fooplug" / "__init__.py", """\
        import os

        def _autoload():
            from tirx_mlir.backends import add_search_path, load
            add_search_path(os.path.join(os.path.dirname(__file__), "tirx_backends"))
            load("foo")

        def _broken():
            raise RuntimeError("no foo accelerator attached")

        def _leaky():
            from tirx_mlir.pipelines import register_pipeline
            register_pipeline("leaky_pipeline", lambda: [])
            raise RuntimeError("registered, then failed")

        def _exits():
            raise SystemExit(3)

        def _interrupts():
            raise KeyboardInterrupt
        """)
    # the backend package: a folder without __init__.py above it, imported only by the loader
    _write(root / "fooplug" / "tirx_backends" / "foo" / "__init__.py", """\
        def _passes():
            return []

        def register_backend():
            from tirx_mlir.pipelines import register_pipeline
            from tirx_mlir.target import AttrSpec, TargetKind, register_tag, register_target_kind

            register_target_kind(TargetKind("foo", attrs=(AttrSpec("lanes", int, 8),)))
            register_tag("acme/foo-1", {"kind": "foo", "lanes": 32})
            register_pipeline("foo", _passes)
        """)


CHILD = """
import warnings
warnings.simplefilter("always")
import tirx_mlir
from tirx_mlir import backends
from tirx_mlir.target import Target
import tirx_mlir.tirx.foo as foo
print("loaded", backends.loaded_backends()[-1], backends.is_loaded("foo"))
print("tag", Target("acme/foo-1").lanes)
print("pipeline", "foo" in tirx_mlir.list_pipelines())
print("alias", foo.__name__)
print("leaky", "leaky_pipeline" in tirx_mlir.list_pipelines())
"""


def _run(root, **env):
    full = dict(os.environ)
    full["PYTHONPATH"] = os.pathsep.join(p for p in (str(root), full.get("PYTHONPATH")) if p)
    full.update(env)
    return subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                          timeout=120, env=full, cwd=root)


def test_entry_points_load_an_out_of_tree_backend_and_broken_ones_warn(tmp_path):
    make_distribution(tmp_path)
    out = _run(tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines == ["loaded foo True", "tag 32", "pipeline True",
                     "alias tirx_mlir.backends.foo", "leaky False"]
    assert ("failed to autoload tirx_mlir backend entry point 'broken' (fooplug:_broken): "
            "RuntimeError: no foo accelerator attached") in out.stderr
    assert "entry point 'missing'" in out.stderr and "ModuleNotFoundError" in out.stderr
    assert "entry point 'leaky' (fooplug:_leaky): RuntimeError: registered, then failed" \
        in out.stderr
    assert "entry point 'exits' (fooplug:_exits): SystemExit: 3" in out.stderr
    assert "entry point 'interrupts' (fooplug:_interrupts): KeyboardInterrupt" in out.stderr


def test_entry_points_are_skipped_when_autoload_is_off(tmp_path):
    make_distribution(tmp_path)
    out = _run(tmp_path, TIRX_MLIR_BACKEND_AUTOLOAD="0")
    assert out.returncode != 0  # tirx_mlir.tirx.foo does not exist: nothing was loaded
    assert "No module named 'tirx_mlir.tirx.foo'" in out.stderr
    assert "failed to autoload" not in out.stderr
