"""tirx_mlir.emit: the source of any registered printer in one call; registries are
subscriptable with a KeyError that lists what exists."""

from __future__ import annotations

import pytest

import tirx_mlir
from tirx_mlir import registry
from tirx_mlir.printers.source_printer import PrintError

TILE = """tirx.kernel @scale(%X: !tirx.buffer<1024xf32, global>)
    -> (%Y: !tirx.buffer<1024xf32, global>) grid [1] threads [256] target "cuda -arch=sm_80" {
  %two = arith.constant 2.0 : f32
  tirx.mul cta %Y, %X, %two : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, f32
  tirx.return
}"""


def test_emit_prints_a_lowered_module_with_each_printer():
    module = tirx_mlir.parse_module(TILE, "scale.mlir")
    tirx_mlir.get_pipeline("cuda").apply(module)
    assert "__global__" in tirx_mlir.emit(module, "cuda")
    assert ".entry scale" in tirx_mlir.emit(module, "ptx")


def test_emit_takes_a_path_and_leaves_the_callers_module_alone():
    ptx = tirx_mlir.emit("examples/cuda/vector_add.mlir", "ptx")
    assert "ld.global.nc.v4.f32" in ptx
    module = tirx_mlir.parse_module(TILE, "scale.mlir")
    before = str(module)
    with pytest.raises(PrintError, match="cannot print tirx.mul"):
        tirx_mlir.emit(module, "cuda")  # tile level: lower it first
    assert str(module) == before


def test_an_unknown_printer_is_a_key_error_listing_the_printers():
    with pytest.raises(KeyError, match="unknown printer target 'nope'; candidates are: .*nki"):
        tirx_mlir.emit(TILE, "nope")
    with pytest.raises(KeyError, match="candidates are: .*ptx"):
        registry.printers["nope"]
    assert registry.printers["nki"] is registry.printers.lookup("nki")
