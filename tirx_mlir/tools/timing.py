"""``tirx-opt --mlir-timing``: a tree of wall-clock and CPU times, printed as mlir-opt prints it.

    ===-------------------------------------------------------------------------===
                             ... Execution time report ...
    ===-------------------------------------------------------------------------===
      Total Execution Time: 0.0135 seconds

      ----User Time----  ----Wall Time----  ----Name----
        0.0041 ( 30.4%)    0.0040 ( 29.6%)  Parser
        0.0080 ( 59.3%)    0.0081 ( 60.0%)  'builtin.module' Pipeline
        0.0051 ( 37.8%)    0.0052 ( 38.5%)    cse
        0.0029 ( 21.5%)    0.0029 ( 21.5%)    (V) verify
        ...
        0.0135 (100.0%)    0.0135 (100.0%)  Total

The layout follows upstream MLIR's ``DefaultTimingManager`` (mlir/lib/Support/Timing.cpp): a
header, then one row per timer, children indented two spaces under their parent, a parent's time
including its children's; ``Rest`` is the time of the root not covered by a child. ``User Time``
is the process's CPU time (`time.process_time`), ``Wall Time`` the clock (`time.perf_counter`).
Timers of the same key under the same parent add up (every ``--split-input-file`` chunk adds to
the same rows). ``--mlir-timing-display=list`` prints the leaves flat, summed by name and sorted
by wall time, as MLIR's list display does.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Hashable, Iterator

_RULE = "===" + "-" * 73 + "==="
_TITLE = "... Execution time report ..."


@dataclass
class Timer:
    """One row: a name, the time spent in it, and its children in the order they first ran."""

    name: str
    wall: float = 0.0
    user: float = 0.0
    children: dict[Hashable, "Timer"] = field(default_factory=dict)

    def child(self, key: Hashable, name: str | None = None) -> "Timer":
        timer = self.children.get(key)
        if timer is None:
            timer = self.children[key] = Timer(name if name is not None else str(key))
        return timer

    @contextmanager
    def measure(self) -> Iterator["Timer"]:
        """Add the time spent in the ``with`` block to this timer."""
        wall, user = time.perf_counter(), time.process_time()
        try:
            yield self
        finally:
            self.wall += time.perf_counter() - wall
            self.user += time.process_time() - user


class Timing:
    """The root timer of a tool run; ``enabled=False`` makes every scope free and the report
    empty."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.root = Timer("Total")
        self._start = (time.perf_counter(), time.process_time())

    @contextmanager
    def scope(self, *path: tuple[Hashable, str]) -> Iterator[None]:
        """Time the block under the timer at ``path`` (``(key, name)`` pairs from the root)."""
        if not self.enabled:
            yield
            return
        timer = self.root
        for key, name in path:
            timer = timer.child(key, name)
        with timer.measure():
            yield

    def add(self, path: tuple[tuple[Hashable, str], ...], wall: float, user: float) -> None:
        """Add a time measured by the caller to the timer at ``path``."""
        if not self.enabled:
            return
        timer = self.root
        for key, name in path:
            timer = timer.child(key, name)
        timer.wall += wall
        timer.user += user

    def report(self, display: str = "tree") -> str:
        """The report (the root's time is the time since this object was made)."""
        if not self.enabled:
            return ""
        self.root.wall = time.perf_counter() - self._start[0]
        self.root.user = time.process_time() - self._start[1]
        rows = _tree_rows(self.root) if display == "tree" else _list_rows(self.root)
        return render(self.root, rows)


def _tree_rows(root: Timer) -> list[tuple[int, Timer]]:
    rows: list[tuple[int, Timer]] = []

    def walk(timer: Timer, depth: int) -> None:
        for child in timer.children.values():
            rows.append((depth, child))
            walk(child, depth + 1)

    walk(root, 0)
    rows.append((0, _rest(root)))
    return rows


def _list_rows(root: Timer) -> list[tuple[int, Timer]]:
    by_name: dict[str, Timer] = {}

    def leaves(timer: Timer) -> Iterator[Timer]:
        for child in timer.children.values():
            if child.children:
                yield from leaves(child)
                yield _rest(child, child.name)
            else:
                yield child

    for leaf in leaves(root):
        total = by_name.setdefault(leaf.name, Timer(leaf.name))
        total.wall += leaf.wall
        total.user += leaf.user
    rows = sorted((t for t in by_name.values() if t.wall > 0 or t.user > 0),
                  key=lambda t: -t.wall)
    return [(0, t) for t in [*rows, _rest(root)]]


def _rest(timer: Timer, name: str = "Rest") -> Timer:
    """The time of ``timer`` that none of its children account for."""
    wall = timer.wall - sum(c.wall for c in timer.children.values())
    user = timer.user - sum(c.user for c in timer.children.values())
    return Timer(name, max(wall, 0.0), max(user, 0.0))


def _percent(part: float, whole: float) -> float:
    return 100.0 * part / whole if whole > 0 else 0.0


def render(root: Timer, rows: list[tuple[int, Timer]]) -> str:
    """MLIR's text layout for ``rows`` (depth, timer), closed by the root as ``Total``."""
    lines = [_RULE, " " * ((80 - len(_TITLE)) // 2) + _TITLE, _RULE,
             f"  Total Execution Time: {root.wall:.4f} seconds", "",
             "  ----User Time----  ----Wall Time----  ----Name----"]
    for depth, timer in [*rows, (0, root)]:
        lines.append(f"  {timer.user:8.4f} ({_percent(timer.user, root.user):5.1f}%)"
                     f"  {timer.wall:8.4f} ({_percent(timer.wall, root.wall):5.1f}%)  "
                     f"{'  ' * depth}{timer.name}")
    return "\n".join(lines) + "\n"
