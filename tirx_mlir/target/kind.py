"""Target kinds, their typed attribute schemas, and the kind and tag registries.

(`register_tag` and `list_tags` build `Target` objects, so they live in target.py.)

A *target kind* (``cuda``, ``trn``, ``llvm``...) is registered by its backend (``llvm`` by the
core) with a schema: one `AttrSpec` per attribute, with a type, a default, a category
(``arch``: architecture / ISA; ``resource``: sizes and counts of the hardware; ``option``:
compile options; ``meta``: keys, tag, device...) and optionally allowed values, a pattern, or
the range a number must lie in (numbers without one are in `DEFAULT_RANGE`: 0 to 2**48).
A *tag* names a full configuration (``"nvidia/nvidia-h100"``), validated when registered.

Both registries are owner-tracked `tirx_mlir.registry.Registry` objects, so a backend whose
load fails leaves no kind or tag behind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping

from tirx_mlir import registry


class TargetError(ValueError):
    """An unknown kind, tag or attribute, or a value of the wrong type."""


class TargetAttributeError(TargetError, AttributeError):
    """An attribute a target kind does not have (also an AttributeError, so ``getattr(t, name,
    default)`` and ``hasattr`` behave)."""


CATEGORIES = ("arch", "resource", "option", "meta")

DEFAULT_RANGE = (0, 2**48)
"""What a number attribute of a schema may be when its spec gives no range: a count or a size
(2**48 bytes is 256 TiB)."""


def _within(value: float, bounds: tuple[float, float]) -> bool:
    return bounds[0] <= value <= bounds[1]  # False for NaN


def _number(value: float) -> str:
    """A bound or a value as written: 2**N for large powers of two, else the digits."""
    if isinstance(value, float) and not value.is_integer():
        return repr(value)
    if abs(value) >= 2**20 and int(value) & (int(value) - 1) == 0:
        return f"2**{int(value).bit_length() - 1}"
    return str(int(value)) if abs(value) < 1e30 else repr(float(value))

_TYPE_NAMES = {int: "integer", float: "number", str: "string", bool: "boolean (true/false)",
               list: "comma-separated list"}


@dataclass(frozen=True)
class AttrSpec:
    """One attribute of a target kind's schema."""

    name: str
    type: type  # int, float, str, bool, or list (of str)
    default: Any = None
    doc: str = ""
    choices: tuple = ()
    category: str = "resource"
    pattern: str | None = None
    """A regular expression a string value must match in full (e.g. ``sm_\\d+[af]?``)."""
    range: tuple[float, float] | None = None
    """``(lowest, highest)`` a number may be, both included; an integer or number attribute
    without one may be anything in `DEFAULT_RANGE` (never negative, never absurd)."""

    def convert(self, kind: str, value: Any) -> Any:
        """``value`` converted to the attribute's type; a TargetError says what is allowed."""
        try:
            value = self._coerce(value)
        except (TypeError, ValueError):
            type_name = _TYPE_NAMES.get(self.type, self.type.__name__)
            article = "an" if type_name[:1] in "aeiou" else "a"
            raise TargetError(f"target kind '{kind}': attribute '{self.name}' expects {article} "
                              f"{type_name}, got {value!r}") from None
        if self.choices and value not in self.choices:
            raise TargetError(f"target kind '{kind}': attribute '{self.name}' must be one of "
                              f"{', '.join(map(str, self.choices))}; got {value!r}")
        if self.type in (int, float) and not _within(value, self.bounds):
            low, high = self.bounds
            raise TargetError(f"target kind '{kind}': attribute '{self.name}' must be in "
                              f"[{_number(low)}, {_number(high)}]; got {_number(value)}")
        if self.pattern is not None and not re.fullmatch(self.pattern, str(value)):
            raise TargetError(f"target kind '{kind}': attribute '{self.name}' must match "
                              f"{self.pattern} (e.g. {self.doc or 'see the kind schema'}); got "
                              f"{value!r}")
        return value

    @property
    def bounds(self) -> tuple[float, float]:
        return self.range if self.range is not None else DEFAULT_RANGE

    def _coerce(self, value: Any) -> Any:
        if self.type is bool:
            if isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0"):
                    raise ValueError(value)
                return value.lower() in ("true", "1")
            if not isinstance(value, (bool, int)):
                raise TypeError(value)
            return bool(value)
        if self.type is list:
            items = value.split(",") if isinstance(value, str) else list(value)
            return [str(v) for v in items if str(v) != ""]
        if self.type is int:
            if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(value)
        if self.type is float:
            if isinstance(value, bool):
                raise ValueError(value)
            return float(value)
        if not isinstance(value, (str, int, float)):
            raise TypeError(value)
        return self.type(value)


@dataclass(frozen=True)
class TargetKind:
    """A kind of target and its attribute schema."""

    name: str
    attrs: tuple[AttrSpec, ...] = ()
    keys: tuple[str, ...] = ()
    device_type: str | None = None
    doc: str = ""

    def spec(self, attr: str) -> AttrSpec:
        for a in self.attrs:
            if a.name == attr:
                return a
        allowed = ", ".join(a.name for a in self.attrs) or "(none)"
        raise TargetAttributeError(f"target kind '{self.name}' has no attribute '{attr}'; "
                                   f"allowed: {allowed}")

    def attr_names(self, category: str | None = None) -> list[str]:
        return [a.name for a in self.attrs if category is None or a.category == category]

    def describe(self) -> str:
        """The schema as a text table (name, type, default, category, doc)."""
        rows = [(a.name, a.type.__name__, "" if a.default is None else str(a.default),
                 a.category, a.doc) for a in self.attrs]
        widths = [max(len(r[i]) for r in rows + [("attribute", "type", "default", "category",
                                                   "")]) for i in range(4)]
        head = ("attribute", "type", "default", "category", "meaning")
        lines = [f"target kind '{self.name}': {self.doc}"]
        for row in [head, *rows]:
            lines.append("  ".join(c.ljust(w) for c, w in zip(row[:4], widths)) + "  " + row[4])
        return "\n".join(lines)


COMMON_ATTRS = (
    AttrSpec("keys", list, None, "target keys used for dispatch and pipeline choice", category="meta"),
    AttrSpec("tag", str, None, "the tag this target was created from", category="meta"),
    AttrSpec("device", str, None, "device family within the kind (e.g. adreno)", category="meta"),
    AttrSpec("model", str, None, "device model name", category="meta"),
    AttrSpec("libs", list, None, "external libraries the target may call", category="option"),
    AttrSpec("mcpu", str, None, "CPU / device model (LLVM -mcpu)", category="arch"),
    AttrSpec("mtriple", str, None, "LLVM target triple", category="arch"),
    AttrSpec("num_cores", int, None, "number of cores", category="resource", range=(1, 2**20)),
)

target_kinds: registry.Registry[TargetKind] = registry.Registry("target kind")
tags: registry.Registry[dict] = registry.Registry(
    "target tag", same=lambda a, b: _normalise(a) == _normalise(b))


def _normalise(config: Mapping[str, Any]) -> dict[str, Any]:
    return {k.replace("-", "_"): v for k, v in config.items()}


def register_target_kind(kind: TargetKind, *, override: bool = False) -> TargetKind:
    """Register a target kind; its schema also receives the common attributes (keys, tag...)."""
    own = {a.name for a in kind.attrs}
    for a in kind.attrs:
        if a.range is not None and (a.type not in (int, float) or a.range[0] > a.range[1]):
            raise TargetError(f"target kind '{kind.name}': attribute '{a.name}' has range "
                              f"{a.range}; a range is (lowest, highest) of a number attribute")
        if a.category not in CATEGORIES:
            raise TargetError(f"target kind '{kind.name}': attribute '{a.name}' has category "
                              f"'{a.category}'; expected one of {', '.join(CATEGORIES)}")
    full = TargetKind(kind.name, (*kind.attrs, *(a for a in COMMON_ATTRS if a.name not in own)),
                      kind.keys, kind.device_type, kind.doc)
    return target_kinds.register(kind.name, full, override=override)


def list_target_kinds() -> dict[str, TargetKind]:
    return dict(sorted(target_kinds.items()))


def lookup_kind(name: str) -> TargetKind:
    kind = target_kinds.get(name)
    if kind is not None:
        return kind
    import difflib

    known = sorted(target_kinds.keys())
    close = difflib.get_close_matches(name, [*known, *tags.keys()], n=3)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise TargetError(f"unknown target kind or tag '{name}'; kinds: "
                      f"{', '.join(known) or '(none: no backend is loaded)'}; tags: see "
                      f"tirx_mlir.target.list_tags().{hint}")
