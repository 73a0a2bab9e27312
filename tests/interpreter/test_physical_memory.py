"""The physical memory model on its own, with a made-up memory: addressed allocations are views
of one shared byte array, so an allocation that overlaps a live buffer corrupts the result, and
one that does not fit is a located error."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr, i64

from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.memory_space import MemorySpace
from tirx_mlir.interpreter import InterpretError, KernelRunner
from tirx_mlir.interpreter.physical_memory import physical_interpreter
from tirx_mlir.located_parser import parse_module
from tirx_mlir.transforms.allocate import allocate_kernel
from tirx_testing.scopes import made_up_scope

SCOPE = "test.onchip"
ADDR = "test.addr"
SPACE = MemorySpace(SCOPE, rows=4, bytes_per_row=256, address_attr=ADDR, alignment=16,
                    row_name="lane")
T = f"!tirx.buffer<4x8xf32, {SCOPE}>"
G = "!tirx.buffer<4x8xf32, global>"

# out = (x + 1) + x, through two on-chip buffers that are live together
TEXT = f"""tirx.kernel @k(%x: {G}) -> (%o: {G}) grid [1] threads [1] {{
  %a = tirx.alloc : {T}
  %b = tirx.alloc : {T}
  %one = arith.constant 1.0 : f32
  tirx.copy %a, %x : {T}, {G}
  tirx.add %b, %a, %one : {T}, {T}, f32
  tirx.add %b, %b, %a : {T}, {T}, {T}
  tirx.copy %o, %b : {G}, {T}
  tirx.return
}}
"""


@pytest.fixture(autouse=True)
def onchip_scope():
    with made_up_scope(SCOPE, "the memory-model tests"):
        yield


def allocated():
    module = parse_module(TEXT, "phys.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
    allocate_kernel(kernel, [SPACE])
    return module


def allocs(module) -> dict[str, AllocOp]:
    return {op.result.name_hint: op for op in module.walk() if isinstance(op, AllocOp)}


def run_physical(module, x):
    return KernelRunner(module, interpreter=physical_interpreter(module, [SPACE]))(x)


def test_an_allocation_that_keeps_live_buffers_apart_gives_the_reference_result():
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    (out,) = run_physical(allocated(), x)
    np.testing.assert_array_equal(out, 2 * x + 1)


def test_overlapping_live_buffers_corrupt_the_result():
    module = allocated()
    for op in allocs(module).values():
        op.attributes[ADDR] = IntegerAttr(0, i64)
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    (out,) = run_physical(module, x)
    assert not np.array_equal(out, 2 * x + 1)


def test_fresh_memory_reads_as_nan():
    module = parse_module(TEXT.replace("  tirx.copy %a, %x", "  // no write of %a"), "p.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
    allocate_kernel(kernel, [SPACE])
    (out,) = run_physical(module, np.zeros((4, 8), np.float32))
    assert np.isnan(out).all()


def test_an_address_past_the_row_is_a_located_error():
    module = allocated()
    allocs(module)["b"].attributes[ADDR] = IntegerAttr(240, i64)  # 32 bytes from 240: past 256
    with pytest.raises(InterpretError, match=r"at byte 240 does not fit in test.onchip "
                                             r"\(4 lanes x 256 bytes\)") as info:
        run_physical(module, np.zeros((4, 8), np.float32))
    assert "phys.mlir:3:" in str(info.value)


def test_unaddressed_allocations_get_their_own_memory():
    module = parse_module(TEXT, "plain.mlir")  # no addresses: every buffer apart, as usual
    x = np.ones((4, 8), np.float32)
    (out,) = run_physical(module, x)
    np.testing.assert_array_equal(out, 2 * x + 1)
