"""printers/ptx/registers.py: the register classes of a value's type, looked up by the type
object's id first (equal types answer alike, and the answer is a fresh list)."""

from __future__ import annotations

from xdsl.dialects.builtin import Float16Type, IntegerType, VectorType, f32

from tirx_mlir.backends.cuda.printers.ptx import registers as regs


def test_equal_types_of_different_objects_have_the_same_classes():
    a, b = IntegerType(32), IntegerType(32)
    assert a is not b
    assert regs.value_classes(a) == regs.value_classes(b) == [regs.B32]
    assert regs.value_classes(f32) == [regs.F32]
    assert regs.value_classes(VectorType(Float16Type(), [4])) == [regs.B32, regs.B32]
    assert regs.value_classes(VectorType(Float16Type(), [3])) is None


def test_the_classes_are_a_fresh_list_each_time():
    t = IntegerType(64)
    first = regs.value_classes(t)
    first.append(regs.PRED)
    assert regs.value_classes(t) == [regs.B64]


def test_the_id_cache_is_bounded():
    for width in range(1, regs._MAX_BY_ID + 10):
        regs.value_classes(IntegerType(width))
    assert len(regs._BY_ID) <= regs._MAX_BY_ID


def test_register_classes_are_the_six_singletons():
    assert len(set(regs.CLASSES)) == 6
    assert all(regs.BY_PTX_TYPE[c.ptx_type] is c for c in regs.CLASSES)
    assert regs.scalar_class(IntegerType(32)) is regs.B32
