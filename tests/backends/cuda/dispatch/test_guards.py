"""A guarded view (a tirx.slice size given by an index value) reaching the CUDA dispatch: no
CUDA variant takes dynamic extents yet, so the dispatch refuses it with a table row saying so,
instead of copying the view at its maximum."""

from __future__ import annotations

import pytest

from tirx_mlir.diagnostics import PassError
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

X = "!tirx.buffer<100x64xf32, global>"
KERNEL = """tirx.kernel @k(%X: X) -> (%Y: X) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<64x64xf32, shared>
  %c64 = arith.constant 64 : index
  %c36 = arith.constant 36 : index
  %x = tirx.slice %X[%c64, 0] [%c36, 64] : X -> !tirx.buffer<64x64xf32, global>
  tirx.copy cta %t, %x : !tirx.buffer<64x64xf32, shared>, !tirx.buffer<64x64xf32, global>
  tirx.return
}
""".replace("X)", f"{X})").replace(": X ", f": {X} ")


def test_the_cuda_dispatch_refuses_dynamic_extents():
    with pytest.raises(PassError) as info:
        get_pipeline("cuda").apply(parse_module(KERNEL))
    assert "operand 'src' has a dynamic extent (a guarded tirx.slice); dynamic extents are not " \
           "supported by the cuda dispatch yet" in info.value.message
    assert info.value.op.name == "tirx.copy"
