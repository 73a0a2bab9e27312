"""No import cycles in tirx_mlir: the graph is read from the source by
`tirx_testing.import_graph` (module-level and function-local imports both count; see its
docstring for why), and any cycle is printed with the line of each import in it."""

from __future__ import annotations

from pathlib import Path

import tirx_mlir
from tirx_testing.import_graph import cycles, describe, import_edges

PACKAGE = Path(tirx_mlir.__file__).parent


def test_tirx_mlir_has_no_import_cycle():
    found = cycles(import_edges(PACKAGE, "tirx_mlir"))
    assert not found, "import cycles in tirx_mlir:\n" + "\n".join(describe(c) for c in found)


def test_the_graph_sees_the_imports_that_make_cycles(tmp_path):
    """The checker finds a cycle closed by a lazy import and one through a package ``__init__``
    (importing ``p.sub.leaf`` runs ``p/sub/__init__.py``); it ignores ``TYPE_CHECKING`` imports
    and imports of other packages."""
    pkg = tmp_path / "p"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from p import b\n",
        "b.py": "def f():\n    from p.a import x\n",
        "c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.d import y\n"
                "import os\n",
        "d.py": "from . import c\n",
        "sub/__init__.py": "from p.e import z\n",
        "sub/leaf.py": "",
        "e.py": "import p.sub.leaf\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    found = {frozenset(e.source for e in c): c for c in cycles(import_edges(pkg, "p"))}
    assert set(found) == {frozenset({"p.a", "p.b"}), frozenset({"p.e", "p.sub"})}
    lazy = describe(found[frozenset({"p.a", "p.b"})])
    assert "p.a -> p.b (line 1 of p.a) -> p.a (line 2 of p.b, lazy)" == lazy
