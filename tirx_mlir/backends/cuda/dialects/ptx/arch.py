"""GPU architectures and PTX ISA versions: what a target accepts, and what a table row needs.

* `Arch` parses ``sm_90a`` into its number and suffix (``a``: arch-specific, ``f``: family);
* `TARGET_MIN_PTX`: the lowest ``.version`` ptxas accepts for a ``.target`` (PTX ISA, "PTX
  Versions and Target ISA", as CUDA 13.0's ptxas applies it: tests/.../ptx/test_arch.py checks
  every entry); `MAX_PTX` is what that ptxas accepts at most;
* `requirement(entry, mods)` folds a row's `Req`s that apply to one variant into one `Need`;
* `ptx_version(arch, needs)`: ``max(target minimum, features used)``, the printers' rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from tirx_mlir.backends.cuda.dialects.ptx.schema import Entry, Mods
from tirx_mlir.backends.cuda.target_tags import parse_arch

MAX_PTX = "9.0"

TARGET_MIN_PTX: dict[str, str] = {
    "sm_75": "6.3", "sm_80": "7.0", "sm_86": "7.1", "sm_87": "7.4", "sm_88": "7.3",
    "sm_89": "7.8", "sm_90": "7.8", "sm_90a": "8.0", "sm_100": "8.6", "sm_100a": "8.6",
    "sm_100f": "8.8", "sm_103": "8.8", "sm_103a": "8.8", "sm_103f": "8.8", "sm_110": "9.0",
    "sm_110a": "9.0", "sm_110f": "9.0", "sm_120": "8.7", "sm_120a": "8.7", "sm_120f": "8.8",
    "sm_121": "8.8", "sm_121a": "8.8", "sm_121f": "8.8",
}



def version_key(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


@dataclass(frozen=True)
class Arch:
    """A ``.target`` such as ``sm_90a``."""

    number: int
    suffix: str = ""

    @classmethod
    def parse(cls, text: str) -> "Arch":
        return cls(*parse_arch(text))

    def __str__(self) -> str:
        return f"sm_{self.number}{self.suffix}"

    @property
    def min_ptx(self) -> str:
        return TARGET_MIN_PTX.get(str(self), MAX_PTX)


@dataclass(frozen=True)
class Need:
    """What one instruction variant needs: ``min_sm`` (any target at least that number) and, for
    arch-specific instructions, the exact targets that have it; a minimum PTX ISA version."""

    min_sm: int
    only: tuple[str, ...] | None
    ptx: str

    def allows(self, arch: Arch) -> bool:
        if self.only is not None:
            return str(arch) in self.only
        return arch.number >= self.min_sm

    def describe(self) -> str:
        where = " or ".join(self.only) if self.only is not None else f"sm_{self.min_sm} or newer"
        return f"{where} (PTX ISA {self.ptx})"

    @property
    def lowest_arch(self) -> Arch:
        """The oldest target with this instruction (for assembling it)."""
        return Arch.parse(self.only[0]) if self.only is not None else Arch(self.min_sm)


def _applies(when: dict, mods: Mods) -> bool:
    return all(mods.get(slot) in values for slot, values in when.items())


def requirement(entry: Entry, mods: Mods) -> Need:
    min_sm, only, ptx = 0, None, "1.0"
    for req in entry.requires:
        if not _applies(dict(req.when), mods):
            continue
        if isinstance(req.sm, tuple):
            only = req.sm if only is None else tuple(a for a in only if a in req.sm)
            min_sm = max(min_sm, min(Arch.parse(a).number for a in req.sm))
        else:
            min_sm = max(min_sm, Arch.parse(req.sm).number)
        ptx = max(ptx, req.ptx, key=version_key)
    return Need(min_sm, only, ptx)


def ptx_version(arch: Arch, needs: Iterable[Need] = ()) -> str:
    """The ``.version`` a module for ``arch`` using ``needs`` declares."""
    return max([arch.min_ptx, *(n.ptx for n in needs)], key=version_key)


def ptx_header(arch: Arch, needs: Iterable[Need] = ()) -> str:
    """The three header directives of a PTX module."""
    return f".version {ptx_version(arch, needs)}\n.target {arch}\n.address_size 64\n"
