"""``isinstance(x, classes)`` answered once per concrete type: for the hot loops of the passes.

xDSL's op, attribute and value classes are abstract base classes, so ``isinstance(op, SliceOp)``
goes through ``ABCMeta.__instancecheck__`` (about 4x a plain class's check, and once per class
of a tuple). A pass that walks every op of a 1,000-op kernel and asks each a few such questions
spent ~5% of its time there. `IsInstance` keeps the answer per ``type(x)``:

    IS_VIEW = IsInstance(SliceOp, TransposeOp, ReshapeOp)
    if IS_VIEW(op): ...
    allocs = find_ops(kernel, IS_ALLOC)   # [o for o in kernel.walk() if IS_ALLOC(o)]

The answer is ``issubclass(type(x), classes)``, which is ``isinstance``'s for every object that
does not fake its ``__class__`` (IR objects do not), and it cannot go stale: a class's bases do
not change, and the IR classes register no virtual subclasses.

Each first answer is read from the MRO (`subclass_of`) where that is ``issubclass``'s answer:
``ABCMeta`` answers a kind that is *not* a subclass by asking every subclass of the class in
turn, for a virtual subclass registered below it, and for xDSL's ``Attribute``, ``Operation``
or the tile ops' base that is the whole tree (hundreds of classes, ~0.1-0.3 ms the first time
a kind is asked; a trn compile's first answers cost 1-2 ms that way).

A test may name a class by its module instead (`ClassRef`), so that the module holding it is not
imported for the test's sake: ``IsInstance(ClassRef("xdsl.dialects.scf", "ForOp"))`` answers
False while scf is not imported (no object can be an instance of a class not yet defined), and
as ``isinstance`` once it is.
"""

from __future__ import annotations

import sys
from abc import ABCMeta
from typing import Any, Callable

_IR_ROOT_NAMES = ("Attribute", "Operation", "Block", "Region", "SSAValue")
_ir_roots: tuple[type, ...] = ()


def ir_roots() -> tuple[type, ...]:
    """xDSL's IR class trees (attributes and types; ops, blocks and regions; values), whose
    classes are abstract base classes without virtual subclasses: none is registered with
    ``ABCMeta.register`` and none defines ``__subclasshook__`` (tests/test_type_tests.py checks
    every loaded one). Empty while ``xdsl.ir.core`` is not imported (``import tirx_mlir`` imports
    this module and no xDSL IR), when no class can be one of them."""
    global _ir_roots
    if not _ir_roots:
        core = sys.modules.get("xdsl.ir.core")
        if core is not None and all(hasattr(core, name) for name in _IR_ROOT_NAMES):
            _ir_roots = tuple(getattr(core, name) for name in _IR_ROOT_NAMES)
    return _ir_roots


def by_mro(cls: type) -> bool:
    """Whether ``issubclass(kind, cls)`` is ``cls in kind.__mro__`` for every ``kind``: a plain
    class (``type`` as its metaclass), or an IR class (`ir_roots`) under ``ABCMeta``. Not for
    other abstract classes (``int`` is a registered ``numbers.Integral``) or other metaclasses
    (protocols, generic aliases). Kept per class."""
    known = _BY_MRO.get(cls)
    if known is None:
        meta = type(cls)
        known = _BY_MRO[cls] = meta is type or (
            meta is ABCMeta and any(root in cls.__mro__ for root in ir_roots()))
    return known


_BY_MRO: dict[type, bool] = {}


class ClassRef:
    """The class ``name`` of ``module``, for `IsInstance` and `KindOf` (which do not import the
    module): while the module is not imported, or does not define ``name`` yet, no kind is a
    subclass of it, and a kind's answer kept from then stays right (a class defined later is no
    base of a kind that exists)."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module, self.name = module, name

    def __repr__(self) -> str:
        return f"ClassRef({self.module!r}, {self.name!r})"

    def resolve(self) -> type | None:
        """The class, or None while it is not defined."""
        module = sys.modules.get(self.module)
        return None if module is None else getattr(module, self.name, None)


def subclass_of(kind: type, classes: tuple[type | ClassRef, ...]) -> bool:
    """``issubclass(kind, classes)``, read from ``kind.__mro__`` for the classes `by_mro`
    accepts (the others through ``issubclass``); a `ClassRef` not defined yet is no base."""
    mro = kind.__mro__
    for cls in classes:
        if type(cls) is ClassRef:
            cls = cls.resolve()
            if cls is None:
                continue
        if cls in mro if by_mro(cls) else issubclass(kind, cls):
            return True
    return False


class IsInstance:
    """A callable ``x -> isinstance(x, classes)`` with the answer kept per concrete type."""

    __slots__ = ("classes", "_answers")

    def __init__(self, *classes: type | ClassRef):
        self.classes = classes
        self._answers: dict[type, bool] = {}

    def __call__(self, x: object) -> bool:
        kind = type(x)
        answer = self._answers.get(kind)
        if answer is None:
            answer = self._answers[kind] = subclass_of(kind, self.classes)
        return answer

    def __repr__(self) -> str:
        names = (c.name if type(c) is ClassRef else c.__name__ for c in self.classes)
        return f"IsInstance({', '.join(names)})"


class KindOf:
    """A callable ``x -> the first kind whose classes x is an instance of`` (None if none), the
    answer kept per concrete type like `IsInstance`'s:

        KIND = KindOf({"division": (arith.DivSIOp, ...), "slice": (SliceOp,)})
    """

    __slots__ = ("kinds", "_answers")

    def __init__(self, kinds: dict[str, tuple[type | ClassRef, ...]]):
        self.kinds = dict(kinds)
        self._answers: dict[type, str | None] = {}

    def __call__(self, x: object) -> str | None:
        kind = type(x)
        try:
            return self._answers[kind]
        except KeyError:
            answer = self._answers[kind] = next(
                (name for name, classes in self.kinds.items() if subclass_of(kind, classes)), None)
            return answer


def find_ops(root: Any, test: Callable[[Any], bool]) -> list[Any]:
    """The ops of ``root`` (``root`` itself included) that ``test`` accepts, in the order of
    xDSL's ``root.walk()``: each op before the ops of its regions. What
    ``[o for o in root.walk() if test(o)]`` gives, without xDSL's generator per op, region and
    block (the passes look up the kernels and the allocations of a module several times each).
    Each block's ops are followed by their links (``_first_op`` / ``_next_op``, as
    `tirx_mlir.ir_walk` does); an `IsInstance` test is read from its answers per class inline
    (a call per op otherwise)."""
    found = [root] if test(root) else []
    if type(test) is IsInstance:
        _find_typed(root, test, test._answers, found)  # noqa: SLF001
    else:
        _find_in(root, test, found)
    return found


def _find_in(op: Any, test: Callable[[Any], bool], found: list[Any]) -> None:
    for region in op.regions:
        for block in region.blocks:
            child = block._first_op  # noqa: SLF001
            while child is not None:
                if test(child):
                    found.append(child)
                if child.regions:
                    _find_in(child, test, found)
                child = child._next_op  # noqa: SLF001


def _find_typed(op: Any, test: IsInstance, answers: dict[type, bool], found: list[Any]) -> None:
    for region in op.regions:
        for block in region.blocks:
            child = block._first_op  # noqa: SLF001
            while child is not None:
                hit = answers.get(type(child))
                if hit is None:
                    hit = test(child)
                if hit:
                    found.append(child)
                if child.regions:
                    _find_typed(child, test, answers, found)
                child = child._next_op  # noqa: SLF001
