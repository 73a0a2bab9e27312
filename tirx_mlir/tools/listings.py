"""``tirx-opt --list-passes`` / ``--list-targets`` (and the ``--help`` lines of ``-p``, ``-t``):
the project's own entries first, grouped by owner, upstream xDSL's below a heading.

    tirx_mlir core passes:
      tirx-dispatch            Lower tile primitives to the ops of the target's dispatch ...
    trn backend passes:
      trn-lower-layout         ...
    upstream xDSL passes (117):
      canonicalize, cse, dce, ...

The owner of an entry is the one `tirx_mlir.registry` recorded (``core`` or a backend's name);
an entry no registry holds is xDSL's (or a plugin's, through ``xdsl.universe``). A project
entry shows the first line of its class's docstring (its module is imported to read it; an entry
whose module fails to import says so instead of failing the listing).
"""

from __future__ import annotations

import textwrap
from typing import Callable, Iterable

CORE = "core"
UPSTREAM = "upstream"


def group_by_owner(names: Iterable[str], owner_of: Callable[[str], str | None]
                   ) -> list[tuple[str, list[str]]]:
    """``[(owner, sorted names)]``: ``core`` first, then backends by name, then ``upstream``."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(owner_of(name) or UPSTREAM, []).append(name)
    order = sorted(groups, key=lambda o: (o == UPSTREAM, o != CORE, o))
    return [(owner, sorted(groups[owner])) for owner in order]


def heading(owner: str, what: str, count: int) -> str:
    if owner == CORE:
        return f"tirx_mlir core {what}:"
    if owner == UPSTREAM:
        return f"upstream xDSL {what} ({count}):"
    return f"{owner} backend {what}:"


def describe(factory: Callable[[], object]) -> str:
    """The first docstring line of what ``factory()`` returns (a pass or printer class)."""
    try:
        obj = factory()
    except Exception as err:  # noqa: BLE001 - a broken backend module must not break --list
        return f"(cannot load: {type(err).__name__}: {err})"
    doc = (getattr(obj, "__doc__", None) or "").strip().replace("``", "")
    return doc.split("\n\n", 1)[0].replace("\n", " ").split(". ")[0].rstrip(".") if doc else ""


def render(groups: list[tuple[str, list[str]]], what: str,
           factories: dict[str, Callable[[], object]], width: int = 100) -> str:
    """The listing: project entries one a line with their description, upstream ones wrapped."""
    lines: list[str] = []
    for owner, names in groups:
        lines.append(heading(owner, what, len(names)))
        if owner == UPSTREAM:
            lines += textwrap.wrap(", ".join(names), width, initial_indent="  ",
                                   subsequent_indent="  ", break_on_hyphens=False)
            continue
        column = max(len(n) for n in names) + 2
        for name in names:
            text = describe(factories[name])
            lines.append(f"  {name:<{column}}{text}".rstrip())
    return "\n".join(lines) + "\n"


def summary(groups: list[tuple[str, list[str]]]) -> str:
    """One line for ``--help``: the project's names by owner, upstream ones counted."""
    parts = [f"{owner}: {', '.join(names)}" for owner, names in groups if owner != UPSTREAM]
    upstream = sum(len(names) for owner, names in groups if owner == UPSTREAM)
    if upstream:
        parts.append(f"and {upstream} upstream xDSL ones")
    return "; ".join(parts)
