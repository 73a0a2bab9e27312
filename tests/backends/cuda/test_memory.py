"""cuda's memory facts: the backend registers the tensor-memory scope and its axes itself."""

from tirx_mlir import registry
from tirx_mlir.backends.cuda import memory
from tirx_mlir.located_parser import parse_module


def test_the_backend_owns_tensor_memory_and_its_axes():
    assert registry.memory_scopes.owner_of(memory.TMEM) == "cuda"
    for axis in (memory.LANE_AXIS, memory.COLUMN_AXIS):
        assert registry.layout_axes.owner_of(axis) == "cuda"


def test_ir_naming_tensor_memory_parses():
    text = """tirx.kernel @k() grid [1] threads [128] {
  %t = tirx.alloc : !tirx.buffer<128x16xf32, tmem, S[(128,16):(1@TLane,1@TCol)]>
  tirx.return
}
"""
    parse_module(text, "t.mlir").verify()
