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

import functools

import contextvars
import shlex
from typing import Any, Mapping

from tirx_mlir.target.kind import TargetError, TargetKind, lookup_kind, tags, target_kinds
from tirx_mlir.type_tests import IsInstance, KindOf

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


_parsed: dict[str, tuple[tuple[int, int], TargetKind, dict, "Target | None"]] = {}
"""Target string -> (the kind and tag registries' versions, kind, attributes, host) of its
parse: every pass reads the kernel's target string again (`kernel_target`), so each distinct
string is split and checked once while no kind or tag is registered meanwhile."""


def _from_string(text: str) -> tuple[TargetKind, dict, "Target | None"]:
    versions = (target_kinds.version, tags.version)
    known = _parsed.get(text)
    if known is None or known[0] != versions:
        if len(_parsed) >= 256:
            _parsed.clear()
        known = _parsed[text] = (versions, *_parse_string(text))
    return known[1], dict(known[2]), known[3]  # a fresh dict: each Target owns its attributes


def _parse_string(text: str) -> tuple[TargetKind, dict, "Target | None"]:
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
    seen: set[str] = set()
    for word in rest:
        if not word.startswith("-") or "=" not in word:
            raise TargetError(f"target '{text}': expected -attr=value, got '{word}'")
        name, value = word.lstrip("-").split("=", 1)
        if name in seen:  # the last one won silently: -arch=sm_80 -arch=sm_70 was sm_70
            raise TargetError(f"target '{text}': -{name} is given twice; give it once")
        seen.add(name)
        if name == "host":
            host = Target(value)
        else:
            given[name] = value
    return kind, _complete(kind, given), host


# --- tags ----------------------------------------------------------------------------------------


def register_tag(name: str, config: Mapping[str, Any], override: bool = False) -> Target:
    """Register a named target configuration (``"nvidia/nvidia-h100"``); returns its Target.

    The config is validated now against its kind's schema, so a bad tag fails at registration.
    """
    target = Target(dict(config))
    tags.register(name, dict(config), override=override)
    return target


def list_tags(kind: str | None = None) -> dict[str, Target]:
    """``{tag: Target}`` of every registered tag (of one kind if given), sorted by name."""
    out = {name: Target(name) for name in sorted(tags.keys())}
    return out if kind is None else {n: t for n, t in out.items() if t.kind_name == kind}


# --- targets in the IR ----------------------------------------------------------------------------

MODULE_TARGET_ATTR = "tirx.target"


@functools.lru_cache(maxsize=256)
def target_error(text: str) -> str | None:
    """Why ``text`` is not a valid target (the `TargetError` message), or None."""
    try:
        Target(text)
    except TargetError as err:
        return str(err)
    return None


@functools.lru_cache(maxsize=256)
def thread_limit(text: str) -> int | None:
    """The ``max_threads_per_block`` of the target ``text`` (None when its kind has none, or
    ``text`` is not a valid target: `target_error` says why)."""
    try:
        value = Target(text).attrs.get("max_threads_per_block")
    except TargetError:
        return None
    return value if isinstance(value, int) else None


def thread_limit_error(kernel: Any, text: str) -> str | None:
    """Why ``kernel``'s threads per block exceed the target ``text``'s
    ``max_threads_per_block`` (a GPU kind's), or None."""
    limit = thread_limit(text)
    threads = kernel.num_threads()
    if limit is None or threads <= limit:
        return None
    return (f"threads {list(kernel.thread_dims())} is {threads} threads per block; the target "
            f"\"{text}\" allows at most {limit} (max_threads_per_block)")


def target_text_of(op: Any) -> str | None:
    """The target string an op compiles for, unparsed: its kernel's ``target``, else the
    enclosing module's ``tirx.target`` attribute; None when neither is set. The one reading of
    "the kernel's target" in the IR (`target_of` and `kernel_target` parse it)."""
    holder_kind, is_target_text = _HOLDER_TESTS or _holder_tests()
    node = op
    while node is not None:
        kind = holder_kind(node)
        if kind == "kernel" and node.target is not None:
            return node.target.data
        if kind == "module":
            attr = node.attributes.get(MODULE_TARGET_ATTR)
            if is_target_text(attr):
                return attr.data
        node = node.parent_op()
    return None


_HOLDER_TESTS: tuple[KindOf, IsInstance] | None = None
"""`target_text_of`'s class tests (a kernel or a module; a target attribute), made on its
first call: this module does not import the dialects."""


def _holder_tests() -> tuple[KindOf, IsInstance]:
    global _HOLDER_TESTS
    from xdsl.dialects.builtin import ModuleOp, StringAttr

    from tirx_mlir.dialects.tirx.attributes import TargetAttr
    from tirx_mlir.dialects.tirx.kernel import KernelOp

    _HOLDER_TESTS = (KindOf({"kernel": (KernelOp,), "module": (ModuleOp,)}),
                     IsInstance(TargetAttr, StringAttr))
    return _HOLDER_TESTS


def target_of(op: Any, *, default: "Target | None" = None) -> "Target | None":
    """The target an op compiles for: its kernel's ``target``, else the enclosing module's
    ``tirx.target`` attribute, else ``default`` (else the current ``with Target``)."""
    text = target_text_of(op)
    if text is not None:
        return Target(text)
    return default if default is not None else Target.current()


def kernel_target(kernel: Any, option: str | None = None, *,
                  required: bool = True) -> "Target | None":
    """The Target a kernel compiles for, as every pass resolves it: the pass option ``option``
    (a target string or tag) > the kernel's ``target`` > the module's ``tirx.target`` > the
    current ``with Target``. A bad target string is a `PassError` at the kernel; so is no target
    at all, unless ``required`` is False (then None)."""
    from tirx_mlir.diagnostics import PassError

    try:
        target = Target(option) if option is not None else target_of(kernel)
    except TargetError as err:
        raise PassError(str(err), kernel, hint="see tirx_mlir.target.list_target_kinds() and "
                                               "list_tags()") from None
    if target is None and required:
        raise PassError(f"kernel @{kernel.kernel_name} has no target", kernel,
                        hint="add `target \"...\"` to the kernel, a tirx.target attribute to the "
                             "module, or pass tirx-dispatch{target=...}")
    if target is not None and (message := thread_limit_error(kernel, str(target))) is not None:
        raise PassError(message, kernel, hint="launch fewer threads per block")
    return target


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


def bind_target(kernel: Any, text: str) -> None:
    """Set ``kernel``'s ``target`` property to ``text`` (a pass's ``target`` option, as
    written), reported to the running pass (`tirx_mlir.changes.current_changes`) when it
    differs from the one there: every op in the kernel reads it. A bad target string is a
    `PassError` at the kernel (`kernel_target`), never a target no later op can read."""
    from tirx_mlir.changes import current_changes
    from tirx_mlir.dialects.tirx.attributes import TargetAttr

    kernel_target(kernel, text)
    attr = TargetAttr(text)
    if kernel.properties.get("target") == attr:
        return
    kernel.properties["target"] = attr
    current_changes().changed(kernel)
