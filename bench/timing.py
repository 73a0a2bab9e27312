"""Timing helpers shared by the compile benches: samples, alternating rounds, CPU time.

A shared, loaded machine makes one-side-after-the-other ratios swing; the benches therefore run
the two sides of each ratio in alternating rounds (``A B``, then ``B A``, ...), record wall time
(``time.perf_counter``) beside CPU time (``time.process_time`` in this process, or the children's
user + system time from ``resource.getrusage`` for a subprocess), and report the median with the
interquartile range, and the median of the per-round ratios.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence


@dataclass
class Series:
    """Samples of one figure over the rounds."""

    values: list[float] = field(default_factory=list)

    def add(self, value: float) -> None:
        self.values.append(value)

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    @property
    def iqr(self) -> float:
        """The interquartile range (0 with fewer than two samples)."""
        if len(self.values) < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.values, n=4, method="inclusive")
        return q3 - q1


@dataclass
class Side:
    """Wall and CPU samples of one side of a comparison."""

    wall: Series = field(default_factory=Series)
    cpu: Series = field(default_factory=Series)

    def add(self, sample: tuple[float, float]) -> None:
        self.wall.add(sample[0])
        self.cpu.add(sample[1])


@dataclass
class Ratio:
    """Per-round ratios A / B, wall and CPU."""

    wall: Series = field(default_factory=Series)
    cpu: Series = field(default_factory=Series)

    def add(self, a: tuple[float, float], b: tuple[float, float]) -> None:
        self.wall.add(a[0] / b[0])
        self.cpu.add(a[1] / b[1])


def timed(fn: Callable[..., object], *args: object) -> tuple[float, float]:
    """``(wall_s, cpu_s)`` of one call in this process."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn(*args)
    return time.perf_counter() - wall, time.process_time() - cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_process(cmd: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """``(wall_s, cpu_s)`` of one run of ``cmd`` to completion (its output discarded; a
    failure raises CalledProcessError)."""
    cpu = _children_cpu()
    wall = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    return time.perf_counter() - wall, _children_cpu() - cpu


def alternate(rounds: int, a: Callable[[], tuple[float, float]],
              b: Callable[[], tuple[float, float]]) -> tuple[Side, Side, Ratio]:
    """Run ``a`` and ``b`` ``rounds`` times each, ``a`` first on even rounds and ``b`` first on
    odd ones; returns both sides' samples and the per-round ratios a / b."""
    side_a, side_b, ratio = Side(), Side(), Ratio()
    for r in range(rounds):
        if r % 2:
            sb = b()
            sa = a()
        else:
            sa = a()
            sb = b()
        side_a.add(sa)
        side_b.add(sb)
        ratio.add(sa, sb)
    return side_a, side_b, ratio


def ms(series: Series) -> str:
    """``median (IQR)`` in milliseconds."""
    return f"{series.median * 1e3:8.2f} ({series.iqr * 1e3:6.2f})"


def ratio_text(series: Series) -> str:
    return f"{series.median:6.3f} ({series.iqr:5.3f})"


def load_line(before: tuple[float, float, float]) -> str:
    after = os.getloadavg()
    return (f"load average (1, 5, 15 min): before {', '.join(f'{x:.2f}' for x in before)}; "
            f"after {', '.join(f'{x:.2f}' for x in after)}; {os.cpu_count()} CPUs")


REFERENCE_VENV_VARIABLE = "TIRX_REF_VENV"


def reference_venv() -> Path:
    """Where the TIRx reference environment is: ``$TIRX_REF_VENV``, else ``tirx_ref_venv``
    next to the repository (bench/setup_tirx_reference.sh creates it there)."""
    explicit = os.environ.get(REFERENCE_VENV_VARIABLE)
    if explicit:
        return Path(explicit)
    return Path(__file__).resolve().parent.parent.parent / "tirx_ref_venv"


class ReferenceServer:
    """A bench script run with ``--serve`` by another Python (the reference environment's):
    it prints a ``{"_meta": ...}`` line, then answers each JSON line written to it with one."""

    def __init__(self, python: Path, script: Path) -> None:
        self.stderr = tempfile.TemporaryFile("w+")  # a pipe could fill with the peer's warnings
        self.proc = subprocess.Popen([str(python), str(script), "--serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True)
        self.meta = self._answer()["_meta"]

    def _answer(self) -> dict:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.stderr.seek(0)
            tail = self.stderr.read().strip().splitlines()[-3:]
            raise RuntimeError(f"the reference exited ({self.proc.returncode}): "
                               + " | ".join(tail))
        return json.loads(line)

    def ask(self, request: object) -> dict:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
        self.stderr.close()
