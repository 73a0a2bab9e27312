"""What the project cites is something its users have: no docstring, hint or doc points at a file
outside the repository (the maintainers' research notes, ``reference/*.md``), and every
``docs/<page>.md`` that the package or the docs name exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [p for folder in ("tirx_mlir", "docs", "tests", "examples", "bench")
           for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md", ".mlir", ".cfg")
           and p != Path(__file__).resolve()] + [ROOT / "README.md"]
NOTES = re.compile(r"reference/[\w-]+\.md|\b(?:tirx|nki|cuda_ptx|xdsl|peers)\.md\s*§")
DOC_PAGE = re.compile(r"\bdocs/([\w-]+\.md)")


def _lines(pattern: re.Pattern[str]):
    for path in SOURCES:
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for match in pattern.finditer(line):
                yield f"{path.relative_to(ROOT)}:{n}", match


def test_no_citation_of_files_outside_the_repository():
    found = [f"{where}: {m.group(0)}" for where, m in _lines(NOTES)]
    assert not found, "cite docs/ or the upstream source instead:\n" + "\n".join(found)


def test_every_docs_page_named_exists():
    missing = [f"{where}: docs/{m.group(1)}" for where, m in _lines(DOC_PAGE)
               if not (ROOT / "docs" / m.group(1)).exists()]
    assert not missing, "these docs pages do not exist:\n" + "\n".join(missing)
