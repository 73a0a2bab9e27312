"""`Target`: a target kind with attribute values, an optional host, printable and re-parsable.

    Target("cuda -arch=sm_90a -max_shared_memory_per_block=232448")
    Target({"kind": "trn", "num_cores": 2})
    Target("nvidia/nvidia-h100")                        # a registered tag
    Target("nvidia/jetson-agx-orin-64gb").host          # a tag with a host target
    Target("nvidia/nvidia-h100 -max_shared_memory_per_block=49152")   # a tag, refined

``str(target)`` parses back to an equal target. ``target.to_attr()`` is the IR attribute
``#tirx.target<"...">`` (put it on a module as ``tirx.target`` or give it to a kernel);
`target_of` reads it back from a kernel or module. ``with Target(...):`` makes a target current
for code that has no other source (`Target.current`).
"""

from __future__ import annotations

import contextvars
import shlex
from typing import Any, Mapping

from tirx_mlir.target.kind import TargetError, TargetKind, lookup_kind, tags

_current: contextvars.ContextVar[tuple["Target", ...]] = contextvars.ContextVar(
    "tirx_target_stack", default=())


class Target:
    """A compilation target: a kind with attribute values (defaults filled in)."""

    __slots__ = ("kind", "attrs", "host")

    kind: TargetKind
    attrs: dict[str, Any]
    host: "Target | None"

    def __init__(self, spec: "str | Mapping[str, Any] | Target",
                 host: "Target | str | Mapping[str, Any] | None" = None):
        if isinstance(spec, Target):
            kind, attrs, spec_host = spec.kind, dict(spec.attrs), spec.host
        elif isinstance(spec, str):
            kind, attrs, spec_host = _from_string(spec)
        elif isinstance(spec, Mapping):
            kind, attrs, spec_host = _from_dict(spec)
        else:
            raise TargetError(f"cannot make a Target from {type(spec).__name__}; give a target "
                              f"string, a dict with a 'kind', a tag name or a Target")
        if host is not None:
            spec_host = host if isinstance(host, Target) else Target(host)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "attrs", attrs)
        object.__setattr__(self, "host", spec_host)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Target is immutable; build a new one (Target(t.export() | {...}))")

    # ---- queries ----
    @property
    def kind_name(self) -> str:
        return self.kind.name

    @property
    def keys(self) -> list[str]:
        return list(self.attrs.get("keys") or self.kind.keys or (self.kind.name,))

    def get(self, name: str, default: Any = None) -> Any:
        """The value of attribute ``name`` (``-`` or ``_`` spelling), or ``default`` if unset."""
        name = name.replace("-", "_")
        self.kind.spec(name)
        value = self.attrs.get(name)
        return default if value is None else value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        self.kind.spec(name)  # raises TargetAttributeError naming the allowed attributes
        return self.attrs.get(name)

    def with_host(self, host: "Target | str | Mapping[str, Any]") -> "Target":
        return Target(self, host=host)

    def refine(self, **attrs: Any) -> "Target":
        """A copy with some attributes changed (validated against the schema)."""
        config = self.export()
        config.update(attrs)
        return Target(config)

    # ---- the current target ----
    @staticmethod
    def current(allow_none: bool = True) -> "Target | None":
        """The innermost ``with Target(...):`` target of this thread/context, if any."""
        stack = _current.get()
        if stack:
            return stack[-1]
        if not allow_none:
            raise TargetError("no target is set; use `with Target(...):` or give one explicitly")
        return None

    def __enter__(self) -> "Target":
        _current.set((*_current.get(), self))
        return self

    def __exit__(self, *exc: object) -> None:
        stack = _current.get()
        _current.set(stack[:-1])

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
            parts.append(f"-{spec.name}={shlex.quote(str(value))}")
        if self.host is not None:
            parts.append(f"-host={shlex.quote(str(self.host))}")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"Target({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))

    def export(self) -> dict[str, Any]:
        """A dict that ``Target(...)`` accepts (non-default attributes only)."""
        out: dict[str, Any] = {"kind": self.kind.name}
        for spec in self.kind.attrs:
            value = self.attrs.get(spec.name)
            if value is not None and value != spec.default:
                out[spec.name] = list(value) if isinstance(value, list) else value
        if self.host is not None:
            out["host"] = self.host.export()
        return out

    def to_attr(self):
        """The IR attribute ``#tirx.target<"...">``."""
        from tirx_mlir.dialects.tirx.attributes import TargetAttr

        return TargetAttr(str(self))


# --- parsing ------------------------------------------------------------------------------------


def _complete(kind: TargetKind, given: Mapping[str, Any]) -> dict[str, Any]:
    attrs = {spec.name: spec.default for spec in kind.attrs}
    for name, value in given.items():
        key = name.replace("-", "_")
        attrs[key] = None if value is None else kind.spec(key).convert(kind.name, value)
    return attrs


def _from_dict(config: Mapping[str, Any]) -> tuple[TargetKind, dict, "Target | None"]:
    config = dict(config)
    if "kind" not in config:
        if "tag" in config and config["tag"] in tags:
            base = Target(config.pop("tag"))
            merged = {**base.export(), **config, "tag": base.attrs.get("tag")}
            return _from_dict(merged)
        raise TargetError(f"a target dict needs a 'kind' key, got keys {sorted(config)}")
    kind = lookup_kind(config.pop("kind"))
    host = config.pop("host", None)
    return kind, _complete(kind, config), None if host is None else Target(host)


def _from_string(text: str) -> tuple[TargetKind, dict, "Target | None"]:
    try:
        words = shlex.split(text)
    except ValueError as err:
        raise TargetError(f"cannot parse target '{text}': {err}") from None
    if not words:
        raise TargetError("empty target string; expected a kind or a tag, e.g. 'cuda "
                          "-arch=sm_90a' or 'nvidia/nvidia-h100'")
    head, rest = words[0], words[1:]
    given: dict[str, Any] = {}
    host = None
    if head in tags:
        base = dict(tags.lookup(head))
        kind = lookup_kind(base.pop("kind"))
        host_cfg = base.pop("host", None)
        host = None if host_cfg is None else Target(host_cfg)
        given.update(base)
        given.setdefault("tag", head)
    else:
        kind = lookup_kind(head)
    for word in rest:
        if not word.startswith("-") or "=" not in word:
            raise TargetError(f"target '{text}': expected -attr=value, got '{word}'")
        name, value = word.lstrip("-").split("=", 1)
        if name == "host":
            host = Target(value)
        else:
            given[name] = value
    return kind, _complete(kind, given), host


# --- targets in the IR ----------------------------------------------------------------------------

MODULE_TARGET_ATTR = "tirx.target"


def target_of(op: Any, *, default: "Target | None" = None) -> "Target | None":
    """The target an op compiles for: its kernel's ``target``, else the enclosing module's
    ``tirx.target`` attribute, else ``default`` (else the current ``with Target``)."""
    from xdsl.dialects.builtin import ModuleOp, StringAttr

    from tirx_mlir.dialects.tirx.attributes import TargetAttr
    from tirx_mlir.dialects.tirx.kernel import KernelOp

    node = op
    while node is not None:
        text = None
        if isinstance(node, KernelOp) and node.target is not None:
            text = node.target.data
        elif isinstance(node, ModuleOp):
            attr = node.attributes.get(MODULE_TARGET_ATTR)
            if isinstance(attr, (TargetAttr, StringAttr)):
                text = attr.data
        if text is not None:
            return Target(text)
        node = node.parent_op()
    return default if default is not None else Target.current()


def set_target(op: Any, target: "Target | str") -> None:
    """Attach ``target`` to a kernel (its ``target``) or a module (``tirx.target``)."""
    from xdsl.dialects.builtin import ModuleOp

    from tirx_mlir.dialects.tirx.kernel import KernelOp

    attr = (target if isinstance(target, Target) else Target(target)).to_attr()
    if isinstance(op, KernelOp):
        op.target = attr
    elif isinstance(op, ModuleOp):
        op.attributes[MODULE_TARGET_ATTR] = attr
    else:
        raise TargetError(f"a target goes on a tirx.kernel or a builtin.module, not {op.name}")
