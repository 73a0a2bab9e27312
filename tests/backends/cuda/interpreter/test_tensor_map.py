"""The host-side tensor map encoder: its fields round-trip, cuTensorMapEncodeTiled's argument
rules are refused with a sentence, and a launch maps the tensor (or names a parameter whose
bytes hold no tensor map)."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.backends.cuda.interpreter.tensor_map import (MAP_BYTES, TensorMapError, decode,
                                                            encode_tensor_map)
from tirx_mlir.interpreter.runtime import InterpretError


def test_fields_round_trip_innermost_first():
    a = np.zeros((3, 40, 64), np.float16)
    raw = encode_tensor_map(a, (64, 8, 1), swizzle="128B", element_strides=(1, 2, 1),
                            oob_fill="nan")
    assert raw.dtype == np.int8 and raw.shape == (MAP_BYTES,)
    tmap = decode(raw)
    assert tmap.dims == (64, 40, 3)
    assert tmap.strides == (2, 128, 128 * 40)
    assert tmap.box == (64, 8, 1) and tmap.box_elements == (64, 4, 1)
    assert tmap.box_bytes == 64 * 4 * 2
    assert tmap.swizzle == 128 and tmap.nan_fill and tmap.dtype == np.float16
    assert tmap.address == 0  # written when a launch maps the tensor


def test_explicit_dims_and_strides_describe_a_sub_tensor():
    a = np.zeros((16, 32), np.float32)
    tmap = decode(encode_tensor_map(a, (8, 8), dims=(8, 16), strides=(128,), dtype="tf32"))
    assert tmap.dims == (8, 16) and tmap.strides == (4, 128) and tmap.dtype_code == 11


@pytest.mark.parametrize("kwargs,message", [
    (dict(box=(16, 8), strides=(100,)), "global strides must be positive multiples of 16"),
    (dict(box=(300, 8)), "box dims must be in [1, 256]"),
    (dict(box=(6, 8)), "the inner box dim spans 12 bytes; it must be a multiple of 16"),
    (dict(box=(32, 8), swizzle="32B"), "spans 64 bytes, more than the 32B swizzle span"),
    (dict(box=(16, 8), element_strides=(1, 9)), "element strides must be in [1, 8]"),
    (dict(box=(16, 8), swizzle="16B"), "swizzle must be one of none, 32B, 64B, 128B"),
    (dict(box=(16, 8), interleave="32B"), "interleaved tensor maps"),
    (dict(box=(16,)), "box needs 2 entries for rank 2"),
    (dict(box=(16, 8), dims=(16, 64)), "the tensor map spans 2048 bytes, but the array holds "
                                       "1024"),
])
def test_arguments_the_driver_refuses_are_refused(kwargs, message):
    a = np.zeros((32, 16), np.float16)
    with pytest.raises(TensorMapError) as err:
        encode_tensor_map(a, **kwargs)
    assert message in str(err.value)


def test_nan_fill_needs_a_float_type():
    with pytest.raises(TensorMapError, match="NaN out-of-bounds fill"):
        encode_tensor_map(np.zeros((8, 8), np.int32), (8, 8), oob_fill="nan")


def test_a_tensor_map_parameter_without_a_map_is_a_located_error():
    text = cuda_kernel("(%Tm: !tirx.buffer<128xi8, global>) -> (%Out: !tirx.buffer<4xi32, "
                       "global>)", "  %t = cuda.thread_idx x : index",
                       attrs=" attributes {cuda.tensor_maps = array<i64: 0>}")
    with pytest.raises(InterpretError) as err:
        run_simt(text, np.zeros(128, np.int8))
    assert "parameter %Tm is a tensor map (cuda.tensor_maps), but its bytes do not hold one " \
           "made by encode_tensor_map" in str(err.value)
