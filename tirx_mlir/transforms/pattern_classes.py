"""Tables of xDSL's rewrite-pattern classes that do not import the modules defining them.

``canonicalize`` keeps a few facts about some of xDSL's patterns (which ones it replaces, which
return at once without a constant operand, whose rewrites its listener follows). Naming those
classes in an import loaded ``xdsl.transforms.canonicalization_patterns`` (its ``arith`` and
``scf`` modules, ~1 ms) in every compile, though only the ops that have such patterns need them:
a pattern is an instance of a class of a module already imported, by the op trait that gave it
(``HasCanonicalizationPatternsTrait.get_patterns``). The Trainium kernels without loops or index
arithmetic (9 of the 24 examples/trn kernels, nki_add_1 among them) have none.

A `PatternTable` names each class by ``(module, qualified name)`` and answers for a class by
identity: ``table.get(cls)`` is the value of the entry naming ``cls`` when ``cls`` is the very
class its module holds under that name (so a class of the same name elsewhere is not it), else
None; each class is resolved once. A class exists only once its module ran, so the answers are
the ones a table keyed by the imported classes gives.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

ARITH = "xdsl.transforms.canonicalization_patterns.arith"
SCF = "xdsl.transforms.canonicalization_patterns.scf"


class PatternTable:
    """``(module, class name) -> value`` looked up by class; ``own`` adds classes at hand."""

    __slots__ = ("names", "own", "_resolved")

    def __init__(self, names: Mapping[tuple[str, str], Any],
                 own: Mapping[type, Any] | None = None):
        self.names = dict(names)
        self.own = dict(own or {})
        self._resolved: dict[type, Any] = dict(self.own)

    def get(self, cls: type) -> Any:
        try:
            return self._resolved[cls]
        except KeyError:
            pass
        value = self._resolved[cls] = self._lookup(cls)
        return value

    def __contains__(self, cls: type) -> bool:
        return self.get(cls) is not None

    def _lookup(self, cls: type) -> Any:
        key = (getattr(cls, "__module__", None), getattr(cls, "__qualname__", None))
        value = self.names.get(key)  # type: ignore[arg-type]
        if value is None:
            return None
        module = sys.modules.get(key[0])  # type: ignore[arg-type]
        return value if module is not None and getattr(module, key[1], None) is cls else None

    def with_classes(self, classes: Iterable[type], value: Any = True) -> "PatternTable":
        """This table and ``classes`` (each to ``value``)."""
        return PatternTable(self.names, {**self.own, **dict.fromkeys(classes, value)})

    def __or__(self, other: "PatternTable") -> "PatternTable":
        return PatternTable({**self.names, **other.names}, {**self.own, **other.own})
