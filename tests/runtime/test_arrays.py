"""Artifact.run takes numpy and DLPack arrays and returns the kind it was given."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import tirx_mlir
from tirx_mlir.runtime.arrays import from_host, to_host
from tirx_mlir.runtime.errors import DeviceError, LaunchError


class HostArray:
    """A minimal DLPack producer in host memory, from a library with ``from_dlpack``."""

    def __init__(self, arr):
        self.arr = np.ascontiguousarray(arr)

    def __dlpack__(self, **kwargs):
        return self.arr.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


@pytest.fixture
def dlpack_library(monkeypatch):
    lib = types.ModuleType("fake_dlpack_lib")
    lib.from_dlpack = lambda x: HostArray(np.from_dlpack(x))
    HostArray.__module__ = "fake_dlpack_lib"
    monkeypatch.setitem(sys.modules, "fake_dlpack_lib", lib)
    return lib


@pytest.fixture
def art(add_one_text):
    return tirx_mlir.compile(add_one_text, target="aws/trn1/trn1.2xlarge", pipeline="none")


def test_numpy_in_numpy_out(art):
    x = np.arange(1024, dtype=np.float32)
    y = art.run(x)
    assert type(y) is np.ndarray and y.dtype == np.float32
    np.testing.assert_array_equal(y, x + 1)


def test_a_dlpack_array_in_gives_the_same_kind_out(art, dlpack_library):
    x = np.arange(1024, dtype=np.float32)
    y = art.run(HostArray(x))
    assert isinstance(y, HostArray)
    np.testing.assert_array_equal(y.arr, x + 1)


def test_a_given_output_array_is_written_in_place(art):
    x, out = np.arange(1024, dtype=np.float32), np.zeros(1024, np.float32)
    assert art.run(x, out) is out
    np.testing.assert_array_equal(out, x + 1)


def test_host_views_of_dlpack_arrays_share_memory(dlpack_library):
    x = np.arange(6, dtype=np.int32)
    arr, kind = to_host(HostArray(x), "arg")
    assert np.shares_memory(arr, x) and kind.library == "fake_dlpack_lib"
    assert isinstance(from_host(arr, kind), HostArray)


def test_bad_arguments_are_clear(art):
    with pytest.raises(LaunchError, match=r"input A of @add_one is \[3\] f32; the parameter "
                                          r"is A: 1024xf32"):
        art.run(np.zeros(3, np.float32))
    with pytest.raises(LaunchError, match=r"is \[1024\] f64"):
        art.run(np.zeros(1024, np.float64))
    with pytest.raises(LaunchError, match="takes 1 inputs and 1 optional outputs"):
        art.run()
    with pytest.raises(DeviceError, match="expected a numpy array or a DLPack array"):
        art.run(object())


def test_repeated_runs_reuse_the_pool():
    from tirx_mlir.runtime import get_device
    from tirx_mlir.runtime.interpreter_device import InterpreterDevice

    dev = InterpreterDevice()
    art = tirx_mlir.compile("examples/trn/add.mlir")
    ins = [np.ones((128, 512), np.float32), np.ones((128, 512), np.float32),
           np.ones((128, 1), np.float32)]
    for _ in range(3):
        np.testing.assert_array_equal(art.run(*ins, device=dev), np.full((128, 512), 4.0))
    stats = dev.pool.stats()
    assert (stats.misses, stats.hits, stats.live_buffers) == (4, 8, 0)
    assert get_device("interpreter") is get_device("interpreter:0")
