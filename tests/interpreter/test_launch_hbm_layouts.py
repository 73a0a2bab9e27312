"""KernelRunner with global parameters that have layouts: arguments are logical arrays, placed
in a memory of the layout's span; outputs are the logical tensors (views into that memory), and
an output array the caller passes is written back."""

import numpy as np
import pytest

from tirx_mlir.interpreter import InterpretError, KernelRunner
from tirx_mlir.located_parser import parse_module

IN = "!tirx.buffer<4x6xf32, global, S[(4,6):(1,4)]>"
OUT = "!tirx.buffer<4x6xf32, global, S[(4,6):(8,1)] + 3>"
TEXT = f"""tirx.kernel @k(%A: {IN}) -> (%B: {OUT}) grid [1] threads [1] {{
  %c = arith.constant 1.0 : f32
  tirx.add %B, %A, %c : {OUT}, {IN}, f32
  tirx.return
}}
"""


def runner(text: str = TEXT) -> KernelRunner:
    return KernelRunner(parse_module(text, "k.mlir"))


def test_outputs_are_logical_views_of_the_laid_out_memory():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    (b,) = runner()(x)
    np.testing.assert_array_equal(b, x + 1)
    memory = b.base
    while memory.base is not None:
        memory = memory.base
    assert memory.size == 33 and memory[3 + 8 * 2 + 5] == x[2, 5] + 1
    assert np.isnan(memory[:3]).all()  # padding is never written


def test_inputs_are_placed_by_their_layout_and_stay_read_only():
    r = runner()
    (a, b) = r.prepare([np.ones((4, 6), np.float32)])
    assert a.strides == (4, 16) and not a.flags.writeable  # column-major f32
    assert b.strides == (32, 4)


def test_a_passed_output_is_written_back():
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = np.zeros((4, 6), np.float32)
    (b,) = runner()(x, out)
    assert b is out
    np.testing.assert_array_equal(out, x + 1)


def test_an_unaddressable_layout_is_an_error_at_the_kernel_naming_the_parameter():
    with pytest.raises(InterpretError, match=r"k.mlir:1:1: .*parameter %A of @k: global layout "
                                             r"S\[\(4,6\):\(1,1\)\] puts two elements"):
        runner(TEXT.replace("S[(4,6):(1,4)]", "S[(4,6):(1,1)]"))
