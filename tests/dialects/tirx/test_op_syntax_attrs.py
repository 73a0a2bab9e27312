"""op_syntax.to_attr: the memo of property attributes (equal values share one attribute) gives
what the conversion gives, whatever iterable holds the values."""

from __future__ import annotations

from tirx_mlir.dialects.tirx.op_syntax import to_attr


def test_a_one_shot_iterable_converts_whole_and_does_not_poison_the_memo():
    assert list(to_attr("ints", (x for x in [7, 8, 91])).get_values()) == [7, 8, 91]
    assert list(to_attr("ints", [7, 8, 91]).get_values()) == [7, 8, 91]
    assert list(to_attr("pattern", iter([iter((5, 1)), (93, 2)])).get_values()) == [5, 1, 93, 2]
    assert list(to_attr("pattern", [(5, 1), (93, 2)]).get_values()) == [5, 1, 93, 2]


def test_equal_values_share_one_attribute():
    assert to_attr("ints", [3, 4, 5]) is to_attr("ints", (3, 4, 5))
