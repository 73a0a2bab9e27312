"""Targets: what a kernel compiles for (TVM's Target / TargetKind / tags, in Python).

    Target("cuda -arch=sm_90a -max_shared_memory_per_block=232448")
    Target({"kind": "trn", "partitions": 128})
    Target("aws/trn1/trn1.2xlarge")                  # a registered tag
    Target("nvidia/jetson-agx-orin-64gb").host       # a tag with a host target

A *target kind* (registered by a backend) declares a typed attribute schema with defaults; a
*target* is a kind plus attribute values, optionally a host target and the tag it came from.
Targets print as a string that parses back to an equal target, and become IR attributes with
`Target.to_attr()` (``#tirx.target<"...">`` on a module or kernel).

Registries here: target kinds, tags and device detectors, all owner-tracked (see registry.py).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from tirx_mlir import registry


class TargetError(ValueError):
    """An unknown kind, tag or attribute, or a value of the wrong type."""


@dataclass(frozen=True)
class AttrSpec:
    """One attribute of a target kind's schema."""

    name: str
    type: type  # int, float, str, bool, or list (of str)
    default: Any = None
    doc: str = ""
    choices: tuple = ()

    def convert(self, kind: str, value: Any) -> Any:
        try:
            if self.type is bool:
                if isinstance(value, str):
                    if value.lower() not in ("true", "false", "1", "0"):
                        raise ValueError(value)
                    value = value.lower() in ("true", "1")
                else:
                    value = bool(value)
            elif self.type is list:
                value = value.split(",") if isinstance(value, str) else list(value)
            elif self.type is int and isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            else:
                value = self.type(value)
        except (TypeError, ValueError):
            raise TargetError(f"target kind '{kind}': attribute '{self.name}' expects a "
                              f"{self.type.__name__}, got {value!r}") from None
        if self.choices and value not in self.choices:
            raise TargetError(f"target kind '{kind}': attribute '{self.name}' must be one of "
                              f"{', '.join(map(str, self.choices))}, got {value!r}")
        return value


@dataclass(frozen=True)
class TargetKind:
    """A kind of target (``cuda``, ``trn``, ``llvm``...) and its attribute schema."""

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
        raise TargetError(f"target kind '{self.name}' has no attribute '{attr}'; allowed: "
                          f"{allowed}")


COMMON_ATTRS = (
    AttrSpec("keys", list, None, "target keys used for dispatch and pipeline choice"),
    AttrSpec("tag", str, None, "the tag this target was created from"),
    AttrSpec("mcpu", str, None, "CPU / device model"),
    AttrSpec("mtriple", str, None, "LLVM target triple"),
    AttrSpec("num_cores", int, None, "number of cores"),
)

target_kinds: registry.Registry[TargetKind] = registry.Registry("target kind")
tags: registry.Registry[dict] = registry.Registry("target tag")
device_detectors: registry.Registry[Callable[[Any], "Target"]] = registry.Registry(
    "device target detector")


def register_target_kind(kind: TargetKind, *, override: bool = False) -> TargetKind:
    """Register a target kind; its schema also receives the common attributes (keys, tag...)."""
    own = {a.name for a in kind.attrs}
    full = TargetKind(kind.name, (*kind.attrs, *(a for a in COMMON_ATTRS if a.name not in own)),
                      kind.keys, kind.device_type, kind.doc)
    return target_kinds.register(kind.name, full, override=override)


def list_target_kinds() -> dict[str, TargetKind]:
    return target_kinds.listing()


def register_tag(name: str, config: Mapping[str, Any], override: bool = False) -> "Target":
    """Register a named target configuration (``"nvidia/nvidia-h100"``); returns its Target.

    The config is validated now against its kind's schema, so a bad tag fails at registration.
    """
    target = Target(dict(config))
    tags.register(name, dict(config), override=override)
    return target


def list_tags() -> dict[str, "Target"]:
    return {name: Target(name) for name in tags.keys()}


def register_device_target_detector(device_type: str, detector: Callable[[Any], "Target"], *,
                                    override: bool = False) -> None:
    """``detector(device) -> Target`` for devices of ``device_type`` (e.g. "cuda")."""
    device_detectors.register(device_type, detector, override=override)


def detect_target_from_device(device: Any) -> "Target":
    """The target of a device: ``"cuda"``, ``"cuda:0"``, or an object with ``device_type``."""
    device_type = device if isinstance(device, str) else getattr(device, "device_type", None)
    if isinstance(device_type, str):
        device_type = device_type.split(":")[0]
    detector = device_detectors.get(device_type)
    if detector is None:
        known = ", ".join(sorted(device_detectors.keys())) or "(none)"
        raise TargetError(f"auto detection for device '{device}' is not supported; devices with "
                          f"a detector: {known}")
    return detector(device)


@dataclass(frozen=True, eq=False)
class Target:
    """A compilation target: a kind with attribute values (defaults filled in)."""

    kind: TargetKind
    attrs: Mapping[str, Any] = field(default_factory=dict)
    host: "Target | None" = None

    def __init__(self, spec: "str | Mapping[str, Any] | Target", host: "Target | str | dict | None" = None):
        if isinstance(spec, Target):
            kind, attrs, spec_host = spec.kind, dict(spec.attrs), spec.host
        elif isinstance(spec, str):
            kind, attrs, spec_host = _from_string(spec)
        elif isinstance(spec, Mapping):
            kind, attrs, spec_host = _from_dict(spec)
        else:
            raise TargetError(f"cannot make a Target from {type(spec).__name__}")
        if host is not None:
            spec_host = host if isinstance(host, Target) else Target(host)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "attrs", attrs)
        object.__setattr__(self, "host", spec_host)

    # ---- queries ----
    @property
    def kind_name(self) -> str:
        return self.kind.name

    @property
    def keys(self) -> list[str]:
        return list(self.attrs.get("keys") or self.kind.keys or (self.kind.name,))

    def get(self, name: str, default: Any = None) -> Any:
        value = self.attrs.get(name.replace("-", "_"))
        return default if value is None else value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        self.kind.spec(name)  # raises TargetError naming the allowed attributes
        return self.attrs.get(name)

    # ---- text and IR ----
    def __str__(self) -> str:
        parts = [self.kind.name]
        for spec in self.kind.attrs:
            value = self.attrs.get(spec.name)
            if value is None or value == spec.default:
                continue
            if isinstance(value, list):
                value = ",".join(map(str, value))
            elif isinstance(value, bool):
                value = str(value).lower()
            parts.append(f"-{spec.name}={shlex.quote(str(value))}" if " " in str(value)
                         else f"-{spec.name}={value}")
        text = " ".join(parts)
        if self.host is not None:
            text += f" -host={shlex.quote(str(self.host))}"
        return text

    def __repr__(self) -> str:
        return f"Target({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def export(self) -> dict[str, Any]:
        out = {"kind": self.kind.name, **{k: v for k, v in self.attrs.items() if v is not None}}
        if self.host is not None:
            out["host"] = self.host.export()
        return out

    def to_attr(self):
        from tirx_mlir.dialects.tirx.attributes import TargetAttr

        return TargetAttr(str(self))


def _complete(kind: TargetKind, given: Mapping[str, Any]) -> dict[str, Any]:
    attrs = {spec.name: spec.default for spec in kind.attrs}
    for name, value in given.items():
        key = name.replace("-", "_")
        attrs[key] = kind.spec(key).convert(kind.name, value)
    return attrs


def _lookup_kind(name: str) -> TargetKind:
    kind = target_kinds.get(name)
    if kind is None:
        known = ", ".join(sorted(target_kinds.keys())) or "(none: no backend is loaded)"
        raise TargetError(f"unknown target kind or tag '{name}'; kinds: {known}; tags: see "
                          f"tirx_mlir.target.list_tags()")
    return kind


def _from_dict(config: Mapping[str, Any]) -> tuple[TargetKind, dict, "Target | None"]:
    config = dict(config)
    if "kind" not in config:
        raise TargetError(f"a target dict needs a 'kind' key, got {sorted(config)}")
    kind = _lookup_kind(config.pop("kind"))
    host = config.pop("host", None)
    return kind, _complete(kind, config), None if host is None else Target(host)


def _from_string(text: str) -> tuple[TargetKind, dict, "Target | None"]:
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise TargetError(f"cannot parse target '{text}': {err}") from None
    if not words:
        raise TargetError("empty target string")
    head, rest = words[0], words[1:]
    given: dict[str, Any] = {}
    host = None
    if head in tags:
        base = dict(tags.lookup(head))
        kind = _lookup_kind(base.pop("kind"))
        host_cfg = base.pop("host", None)
        host = None if host_cfg is None else Target(host_cfg)
        given.update(base)
        given.setdefault("tag", head)
    else:
        kind = _lookup_kind(head)
    for word in rest:
        if not word.startswith("-") or "=" not in word:
            raise TargetError(f"target '{text}': expected -attr=value, got '{word}'")
        name, value = word[1:].split("=", 1)
        if name == "host":
            host = Target(value)
        else:
            given[name] = value
    return kind, _complete(kind, given), host
