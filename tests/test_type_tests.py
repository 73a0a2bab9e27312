"""`IsInstance` and `KindOf` give ``isinstance``'s answers (kept per concrete type), for op
classes (abstract base classes in xDSL), their subclasses and plain objects."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType

from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.buffer_ops import VIEW_OPS, ReshapeOp, SliceOp, is_view_op
from tirx_mlir.dialects.tirx.tile_base import TileOp, is_tile_op
from tirx_mlir.type_tests import IsInstance, KindOf


def test_is_instance_matches_isinstance_for_classes_and_subclasses():
    class Base:
        pass

    class Derived(Base):
        pass

    test = IsInstance(Base)
    for obj, expected in ((Base(), True), (Derived(), True), (object(), False), (3, False)):
        assert test(obj) is expected is isinstance(obj, Base)
        assert test(obj) is expected  # the kept answer
    assert IsInstance(int, str)("x") and not IsInstance(int, str)(2.0)


def test_op_class_tests_agree_with_isinstance():
    const = arith.ConstantOp.from_int_and_width(4, IndexType())
    # bare instances of op classes (type() is all the tests read)
    ops = [object.__new__(c) for c in (arith.AddiOp, scf.ForOp, SliceOp, ReshapeOp, T.AddOp,
                                        T.GemmOp, T.SumOp)]
    for obj in (const, const.result, None, "text", *ops):
        assert is_view_op(obj) is isinstance(obj, VIEW_OPS)
        assert is_tile_op(obj) is isinstance(obj, TileOp)
    assert [is_view_op(o) for o in ops] == [False, False, True, True, False, False, False]
    assert [is_tile_op(o) for o in ops] == [False, False, False, False, True, True, True]


def test_kind_of_takes_the_first_matching_kind():
    class A:
        pass

    class B(A):
        pass

    kinds = KindOf({"b": (B,), "a": (A,), "num": (int, float)})
    assert kinds(B()) == "b" and kinds(A()) == "a" and kinds(2.5) == "num" and kinds("s") is None
    assert kinds(True) == "num"  # bool is an int, as isinstance says
    assert kinds(B()) == "b"  # the kept answer


def test_find_ops_is_the_filtered_walk_in_walk_order():
    """`find_ops(root, test)` == ``[o for o in root.walk() if test(o)]``: the root included,
    each op before the ops of its regions, nested loops and kernels alike."""
    from pathlib import Path

    from tirx_mlir.located_parser import make_context, parse_module
    from tirx_mlir.type_tests import find_ops

    examples = Path(__file__).resolve().parents[1] / "examples" / "trn"
    from xdsl.dialects.builtin import ModuleOp

    from tirx_mlir.dialects.tirx.kernel import KernelOp

    tests = (lambda o: True, lambda o: bool(o.regions), is_tile_op,
             lambda o: o.name in ("scf.for", "arith.constant", "builtin.module"),
             # `IsInstance` tests are read from their answers inline: first uses and known ones
             IsInstance(KernelOp), IsInstance(scf.ForOp, ModuleOp),
             IsInstance(arith.ConstantOp), IsInstance(KernelOp))
    nested = 0
    for name in ("nki_add_2.mlir", "causal_softmax_loop.mlir", "guarded_loop.mlir"):
        module = parse_module((examples / name).read_text(), name, make_context())
        for test in tests:
            assert find_ops(module, test) == [o for o in module.walk() if test(o)]
        nested += sum(1 for o in module.walk() if o.name == "scf.for")
    assert nested >= 3  # the walk went into loops inside kernels
    const = arith.ConstantOp.from_int_and_width(4, IndexType())
    assert find_ops(const, lambda o: True) == [const] and find_ops(const, is_tile_op) == []


def _ir_classes() -> list[type]:
    """Every loaded class of xDSL's IR trees (after loading the dialects a compile uses)."""
    import tirx_mlir.backends.trn.dialects.nki  # noqa: F401
    from tirx_mlir.type_tests import ir_roots

    seen: dict[type, None] = {}
    todo = list(ir_roots())
    assert len(todo) == 5
    while todo:
        cls = todo.pop()
        if cls not in seen:
            seen[cls] = None
            todo.extend(cls.__subclasses__())
    return list(seen)


def test_ir_classes_have_no_virtual_subclasses():
    """What `subclass_of` relies on: no IR class registers a virtual subclass or defines a
    ``__subclasshook__``, so ``issubclass`` is the MRO test for every one of them."""
    import abc

    classes = _ir_classes()
    assert len(classes) > 200
    for cls in classes:
        assert "__subclasshook__" not in vars(cls), cls
        registry = abc._get_dump(cls)[0] if type(cls) is abc.ABCMeta else set()  # noqa: SLF001
        assert not registry, (cls, registry)


def test_subclass_of_is_issubclass():
    """The MRO answers and the ``issubclass`` ones agree: IR classes against IR and Python
    kinds, plain classes, and abstract classes with registered virtual subclasses (which
    `by_mro` leaves to ``issubclass``: ``int`` is a ``numbers.Integral`` outside its MRO)."""
    import abc
    import numbers

    from xdsl.ir import Attribute, Operation

    from tirx_mlir.type_tests import by_mro, subclass_of

    class Virtual(abc.ABC):
        pass

    Virtual.register(str)
    ir = _ir_classes()
    kinds = [*ir[::7], int, bool, str, list, tuple, float, type(None), object]
    classes = [Attribute, Operation, TileOp, SliceOp, arith.AddiOp, scf.ForOp, IndexType,
               numbers.Integral, numbers.Number, Virtual, int, object]
    for kind in kinds:
        for cls in classes:
            assert subclass_of(kind, (cls,)) is issubclass(kind, cls), (kind, cls)
    assert not by_mro(numbers.Integral) and not by_mro(Virtual)
    assert by_mro(TileOp) and by_mro(int)
    assert IsInstance(numbers.Integral)(3) and IsInstance(Virtual)("s")
    assert KindOf({"n": (numbers.Number,)})(2.5) == "n"


def test_class_ref_is_no_base_until_its_module_defines_it():
    """A `ClassRef` answers False while its module is not imported (or lacks the name), then as
    the class it names; a kind's answer kept before stays right."""
    import sys
    import types

    from tirx_mlir.type_tests import ClassRef

    name = "tirx_test_class_ref_module"
    ref = ClassRef(name, "Thing")
    test = IsInstance(ref, int)
    kinds = KindOf({"thing": (ref,), "int": (int,)})
    assert ref.resolve() is None and not test("s") and test(3) and kinds("s") is None
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        assert ref.resolve() is None and not test(2.5)  # imported, the name not defined yet
        exec("class Thing:\n    pass\nclass Sub(Thing):\n    pass\n", module.__dict__)
        assert ref.resolve() is module.Thing
        assert test(module.Thing()) and test(module.Sub()) and kinds(module.Sub()) == "thing"
        assert not test("s") and kinds("s") is None  # the answers kept for str
        assert repr(test) == "IsInstance(Thing, int)"
    finally:
        del sys.modules[name]
