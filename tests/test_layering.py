"""The core knows no backend (docs/backends.md): no file of ``tirx_mlir/`` outside
``tirx_mlir/backends/`` imports a backend's module or names a backend's memory scope, layout axis
or dialect. The forbidden names are what the builtin backends register (`registry.
registrations_of`), so a backend that adds a scope extends the check by itself.

How a name counts as named: a scope as a whole word (``trn.sbuf``, ``tmem``); an axis in layout
notation (``1@P``) or, for names longer than a letter, as a quoted string (``"Bank"``); a dialect as the prefix of an op, type or
attribute name (``nki.load``, ``!nki.x``) or, when the name is not also a backend's or a target
kind's (``cuda`` is all three), as a quoted string. The list of builtin backends in the loader
(``backends/_autoload.py``) is allowed: it lives under ``backends/``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import tirx_mlir
from tirx_mlir import backends, registry
from tirx_mlir.target import list_target_kinds

PACKAGE = Path(tirx_mlir.__file__).parent
TEXT_SUFFIXES = (".py", ".md", ".mlir", ".txt", ".toml", ".json")
BACKEND_PACKAGES = ("tirx_mlir.backends", "tirx_mlir.tirx")  # the alias package is a backend too


@dataclass
class Forbidden:
    """What the core must not name, each with a pattern and the backend that owns it."""

    patterns: list[tuple[re.Pattern[str], str]] = field(default_factory=list)

    def add(self, pattern: str, what: str) -> None:
        self.patterns.append((re.compile(pattern), what))


def forbidden_names() -> Forbidden:
    for name in backends.BUILTIN_BACKENDS:
        backends.load(name)  # idempotent; a run with autoload off still checks every backend
    not_quotable = {*backends.BUILTIN_BACKENDS, *list_target_kinds()}
    out = Forbidden()
    for owner in backends.BUILTIN_BACKENDS:
        made = registry.registrations_of(owner)
        for scope in made.get("memory scope", []):
            out.add(rf"(?<![\w.]){re.escape(scope)}(?!\w)", f"{owner}'s memory scope '{scope}'")
        for axis in made.get("layout axis", []):
            # a one-letter string ("F", "C") is too common to be an axis (numpy's memory order)
            quoted = rf"|[\"'`]{re.escape(axis)}[\"'`]" if len(axis) > 1 else ""
            out.add(rf"@{re.escape(axis)}(?!\w){quoted}", f"{owner}'s layout axis '{axis}'")
        for dialect in made.get("dialect", []):
            pattern = rf"(?<![\w.]){re.escape(dialect)}\.(?=[A-Za-z_])"
            if dialect not in not_quotable:
                pattern += rf"|[\"'`]{re.escape(dialect)}[\"'`]"
            out.add(pattern, f"{owner}'s dialect '{dialect}'")
    return out


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def backend_names() -> set[str]:
    """The builtin and loaded backends, and every backend package in the tree."""
    in_tree = {p.parent.name for p in (PACKAGE / "backends").glob("*/__init__.py")}
    return {*backends.BUILTIN_BACKENDS, *backends.loaded_backends(), *in_tree}


def _is_backend_module(module: str) -> bool:
    """``tirx_mlir.backends.<backend>[.sub]`` (not the loader's ``_private`` modules, nor a
    function of the package such as ``tirx_mlir.backends.load``), or the same under the alias."""
    for package in BACKEND_PACKAGES:
        if module.startswith(package + "."):
            return module[len(package) + 1:].split(".")[0] in backend_names()
    return False


def imported_backends(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module) of every import of a backend module: ``import``, ``from ... import``
    (relative ones resolved against ``module``) and ``importlib.import_module("...")``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(
                node.func, "id", None)) == "import_module" and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            names = [node.args[0].value]
        for name in names:
            if _is_backend_module(name):
                found.append((node.lineno, name))
                break
    return found


def violations(label: str, text: str, forbidden: Forbidden, module: str = "",
               is_package: bool = False) -> list[str]:
    out = [f"{label}:{line}: imports the backend module {name}"
           for line, name in (imported_backends(text, module, is_package)
                              if label.endswith(".py") else [])]
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, what in forbidden.patterns:
            if pattern.search(line):
                out.append(f"{label}:{number}: names {what}: {line.strip()}")
    return out


def core_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES
                  and p.relative_to(PACKAGE).parts[0] != "backends")


def test_the_core_imports_no_backend_and_names_none_of_their_scopes_axes_or_dialects():
    forbidden = forbidden_names()
    found: list[str] = []
    for path in core_files():
        label = str(path.relative_to(PACKAGE.parent))
        found += violations(label, path.read_text(encoding="utf-8"), forbidden,
                            _module_name(path), path.name == "__init__.py")
    assert not found, "the core must not know a backend (use neutral examples, or move the " \
                      "code into the backend's folder):\n" + "\n".join(found)


def test_the_forbidden_names_come_from_what_the_backends_register():
    whats = " ".join(what for _, what in forbidden_names().patterns)
    assert "trn's memory scope 'trn.sbuf'" in whats and "trn's layout axis 'Bank'" in whats
    assert "trn's dialect 'nki'" in whats and "cuda's memory scope 'tmem'" in whats
    assert "memory scope 'global'" not in whats  # the core's own scopes stay usable


def test_each_kind_of_violation_is_found_with_its_line():
    forbidden = forbidden_names()
    source = "\n".join([
        '"""A buffer in trn.sbuf, laid out S[(128,512):(1@P,1@F)]."""',
        "from tirx_mlir.backends.trn.memory import SBUF",
        "import tirx_mlir.backends.cuda",
        "from ..backends import trn",
        "from tirx_mlir.backends import missing_backend_hint",
        "op = 'nki.load'",
        "axis = 'Bank'",
        "mod = importlib.import_module('tirx_mlir.tirx.trn')",
        "scope = 'global'  # the core's own scope, 1@m, shared.dyn",
    ])
    found = violations("tirx_mlir/x/y.py", source, forbidden, "tirx_mlir.x.y")
    lines = sorted({int(v.split(":")[1]) for v in found})
    assert lines == [1, 2, 3, 4, 6, 7, 8], found
    assert "tirx_mlir/x/y.py:1: names trn's memory scope 'trn.sbuf'" in "\n".join(found)
    assert "tirx_mlir/x/y.py:4: imports the backend module tirx_mlir.backends.trn" in found
