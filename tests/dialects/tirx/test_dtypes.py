"""The element-type table: sizes and kinds without numpy agree with numpy's dtypes."""

import subprocess
import sys

import numpy as np
import pytest

from tirx_mlir.dialects.tirx import dtypes


@pytest.mark.parametrize("name", dtypes.SUPPORTED_ELEMENT_TYPES)
def test_static_facts_match_the_numpy_dtype(name):
    t = dtypes.element_type(name)
    dt = dtypes.numpy_dtype(t)
    assert dtypes.itemsize(t) == dt.itemsize
    assert dtypes.bit_width(t) == (1 if name == "i1" else dt.itemsize * 8)
    floating = np.issubdtype(dt, np.floating) or name in ("bf16", "f8E4M3FN", "f8E5M2")
    assert dtypes.is_float(t) == floating
    assert dtypes.is_integer(t) == (not floating)
    assert dtypes.from_numpy(dt) == t


def test_unsupported_types_are_refused():
    from xdsl.dialects.builtin import IndexType

    assert not dtypes.is_supported(IndexType())
    assert not dtypes.is_integer(IndexType())
    with pytest.raises(KeyError):
        dtypes.itemsize(IndexType())


def test_reading_the_table_imports_no_numpy():
    probe = ("import sys; from tirx_mlir.dialects.tirx import dtypes; "
             "t = dtypes.element_type('bf16'); "
             "facts = (dtypes.itemsize(t), dtypes.is_float(t), dtypes.bit_width(t)); "
             "print(facts, 'numpy' in sys.modules, 'ml_dtypes' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["(2,", "True,", "16)", "False", "False"]
