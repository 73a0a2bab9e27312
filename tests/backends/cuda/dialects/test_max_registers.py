"""dialects/cuda/max_registers.py: a kernel's ``cuda.max_registers`` (registers per thread at
launch) is a multiple of 8 in [24, 255]; anything else is named by `max_registers_error`."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, f32, i64

from tirx_mlir.backends.cuda.dialects.cuda.max_registers import (MAX_REGISTERS, max_registers,
                                                                max_registers_error)
from tirx_mlir.located_parser import parse_module

KERNEL = """tirx.kernel @k() grid [1] threads [256] target "cuda -arch=sm_90a" {
  tirx.return
}"""


def _kernel(attr=None):
    module = parse_module(KERNEL, "k")
    kernel = next(iter(module.body.block.ops))
    if attr is not None:
        kernel.attributes[MAX_REGISTERS] = attr
    return kernel


@pytest.mark.parametrize("count", [24, 80, 168, 248])
def test_a_valid_count(count):
    kernel = _kernel(IntegerAttr(count, i64))
    assert max_registers_error(kernel) is None and max_registers(kernel) == count


def test_no_attribute_no_count():
    assert max_registers_error(_kernel()) is None and max_registers(_kernel()) is None


@pytest.mark.parametrize("attr", [IntegerAttr(16, i64), IntegerAttr(256, i64),
                                  IntegerAttr(100, i64), FloatAttr(80.0, f32)])
def test_an_invalid_count_is_named(attr):
    assert max_registers_error(_kernel(attr)).startswith(
        "cuda.max_registers must be an integer multiple of 8 in [24, 255]")
