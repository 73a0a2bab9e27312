"""Host-built TMA tensor maps: parameters added once per (tensor, box, swizzle) at the end of a
kernel's inputs, the attributes that describe them, and the binding of a caller's arrays (the
SIMT interpreter then reads the tensor through the encoded map)."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda import host_tensor_maps as htm
from tirx_mlir.backends.cuda.interpreter.tensor_map import decode
from tirx_mlir.backends.cuda.layout.swizzle import Swizzle
from tirx_mlir.diagnostics import TirxError
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.located_parser import parse_module

KERNEL = """
tirx.kernel @k(%A: !tirx.buffer<128x64xf16, global>, %B: !tirx.buffer<64x64xf16, global>)
    -> (%C: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  tirx.return
}
"""


def _kernel() -> KernelOp:
    module = parse_module(KERNEL, "k.mlir")
    return next(op for op in module.walk() if isinstance(op, KernelOp))


def test_maps_are_inputs_made_once_per_box_and_swizzle() -> None:
    k = _kernel()
    a, b = k.body.block.args[0], k.body.block.args[1]
    ma = htm.tensor_map_param(k, a, (64, 64), Swizzle.B128)
    assert htm.tensor_map_param(k, a, (64, 64), Swizzle.B128) is ma
    mb = htm.tensor_map_param(k, b, (64, 64), Swizzle.B128)
    ma2 = htm.tensor_map_param(k, a, (128, 64), Swizzle.B128)
    assert [x.index for x in (ma, mb, ma2)] == [2, 3, 4] and k.n_inputs == 5
    assert str(ma.type) == "!tirx.buffer<128xi8, global>"
    assert ma.name_hint == "A_tmap0" and ma2.name_hint == "A_tmap1"
    assert htm.host_tensor_maps(k) == [htm.HostTensorMap(2, 0, (64, 64), Swizzle.B128),
                                       htm.HostTensorMap(3, 1, (64, 64), Swizzle.B128),
                                       htm.HostTensorMap(4, 0, (128, 64), Swizzle.B128)]
    assert list(k.attributes[htm.TENSOR_MAPS_ATTR].get_values()) == [2, 3, 4]
    assert htm.user_parameters(k) == [0, 1, 5]
    k.verify()


def test_bind_encodes_each_map_from_its_source() -> None:
    k = _kernel()
    htm.tensor_map_param(k, k.body.block.args[0], (64, 64), Swizzle.B128)
    a = np.arange(128 * 64, dtype=np.float16).reshape(128, 64)
    b = np.zeros((64, 64), np.float16)
    c = np.zeros((128, 64), np.float32)
    full = htm.bind_arguments(k, [a, b, c])
    assert full[0] is a and full[1] is b and full[3] is c
    tmap = decode(full[2])
    assert tmap.dims == (64, 128) and tmap.box == (64, 64) and tmap.swizzle == 128
    assert tmap.strides == (2, 128)
    inputs_only = htm.bind_arguments(k, [a, b])           # a runner allocates the outputs
    assert len(inputs_only) == 3 and inputs_only[0] is a and decode(inputs_only[2]).box == (64, 64)
    with pytest.raises(TirxError, match="takes 2 input arrays"):
        htm.bind_arguments(k, [a])
    assert htm.bind_arguments(_kernel(), [a, b, c]) == (a, b, c)


def test_only_this_kernels_parameters_have_maps() -> None:
    with pytest.raises(TirxError, match="maps a kernel parameter"):
        htm.tensor_map_param(_kernel(), _kernel().body.block.args[0], (8, 8), Swizzle.NONE)


def test_attributes_round_trip_through_the_text() -> None:
    k = _kernel()
    htm.tensor_map_param(k, k.body.block.args[1], (64, 64), Swizzle.B64)
    text = str(k.parent_op())
    assert 'cuda.host_tensor_maps = [{param = 2 : i64, source = 1 : i64, box = array<i64: 64, ' \
           '64>, swizzle = "64B"}]' in text
    again = next(op for op in parse_module(text, "again.mlir").walk() if isinstance(op, KernelOp))
    assert htm.host_tensor_maps(again) == htm.host_tensor_maps(k)
