"""IRDL op classes completed on first use, not when their module is imported.

xDSL 0.74's ``irdl_op_definition`` builds an ``OpDef`` from the class (every operand, result,
region, property and attribute constraint converted, the traits merged) and installs the
accessors when the class is defined: importing ``xdsl.dialects.arith``, ``scf``, the ``tirx``
dialect and a backend's dialect runs it for ~126 classes, while one compile creates ops of
10-26 of them (bench/README.md, "Start-up: op classes completed on first use"). `install()` makes the decorator record the class instead; the class is completed by
xDSL's own decorator (`define`) the first time anything needs its definition:

* an instance is made: ``Op(...)`` (``__init__``), ``Op.create`` (the generic parser, cloning)
  or ``Op.build``;
* ``Op.get_irdl_definition()``, ``Op.parse(parser)`` (the custom-syntax parser asks the class
  before any instance exists) or ``Op.traits`` (``has_trait``, ``get_trait`` on the class);
* an op class is defined on top of it (its parents are completed first, as xDSL reads them).

Until then those six class attributes are `_Define` descriptors that complete the class and
answer with what it then holds; completing removes them, so a completed class is exactly what
xDSL's decorator makes (the same ``OpDef``, accessors, ``verify_``, formats). Work the project
does to a defined class (`tirx_mlir.dialects.def_check`'s compiled checks and segment accessors)
is queued with `when_defined`, which runs it at once for a class already complete. What an op
parses, prints and verifies is unchanged; only an error in an op's definition (a bug in a
dialect, not in the user's input) is raised at the op's first use instead of at import.

Not covered: an instance made without any of those (``object.__new__(Op)``, unpickling) of a
class nothing completed yet; neither xDSL nor the project makes ops that way (copies start from
an existing instance, whose class is complete).

`install` is idempotent and runs where `tirx_mlir.lazy_formats` does (before the tools' context
loads a dialect); classes defined before it stay eager.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

_pending: dict[type, tuple[Callable[[type], type], dict[str, Any], list[Callable[[type], Any]]]] = {}
"""Recorded classes: xDSL's decorator, the class's own values of the names `_MARKERS` covers,
and the work queued for after the definition."""

_MARKERS = ("__init__", "create", "build", "get_irdl_definition", "parse", "traits")
"""What completes a recorded class when read on it: every way xDSL and the project make an
instance (``Op(...)`` through ``__init__``, ``Op.create``, ``Op.build``), the definition, the
custom-syntax parser and the traits. (Not ``__new__``: CPython keeps the slower generic
instance-creation slot for a class once ``__new__`` was assigned on it, even after removal.)"""
_LOCK = threading.RLock()

defined: list[str] = []
"""The op names completed lazily in this process, in order (what a run needed)."""


class _Define:
    """A recorded class's attribute ``name``: reading it completes the class, then answers."""

    __slots__ = ("cls", "name")

    def __init__(self, cls: type, name: str):
        self.cls, self.name = cls, name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        define(self.cls)
        return getattr(owner if obj is None else obj, self.name)


def install() -> None:
    """Make every op class decorated with ``irdl_op_definition`` from now on complete lazily."""
    from xdsl import irdl
    from xdsl.irdl import operations

    if getattr(operations.irdl_op_definition, "lazy_op_definitions", False):
        return
    eager = operations.irdl_op_definition

    def irdl_op_definition(cls):
        if not (isinstance(cls, type) and issubclass(cls, operations.IRDLOperation)):
            return eager(cls)  # xDSL's own error
        for base in cls.__mro__[1:]:
            define(base)
        own = {name: cls.__dict__[name] for name in _MARKERS if name in cls.__dict__}
        with _LOCK:
            _pending[cls] = (eager, own, [])
            for name in _MARKERS:
                type.__setattr__(cls, name, _Define(cls, name))
        return cls

    irdl_op_definition.lazy_op_definitions = True  # type: ignore[attr-defined]
    irdl_op_definition.eager = eager  # type: ignore[attr-defined]
    operations.irdl_op_definition = irdl_op_definition
    irdl.irdl_op_definition = irdl_op_definition


def define(cls: type) -> None:
    """Complete ``cls`` with xDSL's decorator and the queued work (nothing when it is not a
    recorded class, or is complete already)."""
    if cls not in _pending:
        return
    with _LOCK:
        entry = _pending.pop(cls, None)
        if entry is None:
            return
        eager, own, after = entry
        for name in _MARKERS:
            type.__delattr__(cls, name)
        for name, value in own.items():
            type.__setattr__(cls, name, value)
        eager(cls)
        defined.append(getattr(cls, "name", cls.__name__))
        for work in after:
            work(cls)
        for work in _every:
            work(cls)


def when_defined(cls: type, work: Callable[[type], Any]) -> None:
    """Run ``work(cls)`` once ``cls`` is complete: now if it is, else right after `define`."""
    with _LOCK:
        entry = _pending.get(cls)
        if entry is not None:
            entry[2].append(work)
            return
    work(cls)


_every: list[Callable[[type], Any]] = []
"""Work run on every class `define` completes, after its own queued work."""


def after_each_definition(work: Callable[[type], Any]) -> None:
    """Run ``work(cls)`` on every class completed from now on (once per ``work``); a class
    completed before, or defined before `install`, is for `when_defined` to reach."""
    with _LOCK:
        if work not in _every:
            _every.append(work)


def is_pending(cls: type) -> bool:
    """Whether ``cls`` was recorded and not completed yet."""
    return cls in _pending


def pending_names() -> list[str]:
    """The op names recorded and never completed so far (what a run did not need)."""
    return sorted(getattr(cls, "name", cls.__name__) for cls in list(_pending))
