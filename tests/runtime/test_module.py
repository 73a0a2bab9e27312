"""Modules and launches on the interpreter device: get_function, the argument checks against
the kernel's signature, and a launch computing what the interpreter computes."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.runtime.errors import KernelNotFound, LaunchError


def test_get_function_names_the_kernels(pipeline_module):
    assert sorted(pipeline_module.functions) == ["add_one", "double", "sub_three"]
    with pytest.raises(KernelNotFound, match="no kernel @nope .* it has: @add_one, @double, "
                                             "@sub_three"):
        pipeline_module.get_function("nope")
    with pytest.raises(KernelNotFound, match="has 3 kernels"):
        pipeline_module.only_function()


def test_launch_runs_the_kernel_on_device_memory(device, pipeline_module):
    x = np.linspace(-1, 1, 1024, dtype=np.float32)
    a, b = device.to_device(x), device.alloc(shape=(1024,), dtype="f32")
    pipeline_module.get_function("double").launch((1,), (1,), 0, [a, b])
    np.testing.assert_array_equal(b.numpy(), x * 2)
    raw = device.alloc(4096)  # a raw buffer of enough bytes is accepted as the output
    pipeline_module.get_function("@add_one").launch(1, 1, 0, [a, raw])
    np.testing.assert_array_equal(raw.numpy().view(np.float32), x + 1)


@pytest.mark.parametrize("make_args, message", [
    (lambda d: [d.alloc(shape=(1024,), dtype="f32")],
     r"@double takes 2 arguments \(A: 1024xf32, B: 1024xf32\), got 1"),
    (lambda d: [d.alloc(shape=(1024,), dtype="f32"), d.alloc(shape=(512,), dtype="f32")],
     r"argument 1 \(B\) of @double is \[512\] float32; the parameter is 1024xf32"),
    (lambda d: [d.alloc(shape=(1024,), dtype="f16"), d.alloc(shape=(1024,), dtype="f32")],
     r"argument 0 \(A\) of @double is \[1024\] float16; the parameter is 1024xf32"),
    (lambda d: [d.alloc(100), d.alloc(shape=(1024,), dtype="f32")],
     r"argument 0 \(A\) of @double holds 100 bytes; the parameter \(1024xf32\) needs 4,096"),
    (lambda d: [np.zeros(1024, np.float32), d.alloc(shape=(1024,), dtype="f32")],
     r"argument 0 \(A\) of @double: expected a DeviceBuffer of interpreter:0, got ndarray"),
])
def test_arguments_are_checked_against_the_signature(device, pipeline_module, make_args,
                                                     message):
    with pytest.raises(Exception, match=message) as info:
        pipeline_module.get_function("double").launch(1, 1, 0, make_args(device))
    assert info.value.code in ("launch", "invalid-handle")


def test_a_freed_argument_is_refused(device, pipeline_module):
    a, b = device.alloc(shape=(1024,), dtype="f32"), device.alloc(shape=(1024,), dtype="f32")
    a.free()
    with pytest.raises(Exception, match=r"argument 0 \(A\) of @double of buffer .* after it was "
                                        r"freed") as info:
        pipeline_module.get_function("double").launch(1, 1, 0, [a, b])
    assert info.value.code == "use-after-free"


@pytest.mark.parametrize("grid, block, shared, message", [
    ((2,), (1,), 0, r"launched with grid \[2, 1, 1\], but its IR declares grid \[1, 1, 1\]"),
    ((1,), (32,), 0, r"block \[32, 1, 1\], but its IR declares block \[1, 1, 1\]"),
    ((0,), (1,), 0, r"launch dims \[0\] must be one to three positive integers"),
    ((1, 1, 1, 1), (1,), 0, "one to three positive integers"),
])
def test_the_launch_configuration_is_checked(device, pipeline_module, grid, block, shared,
                                             message):
    args = [device.alloc(shape=(1024,), dtype="f32") for _ in range(2)]
    with pytest.raises(LaunchError, match=message):
        pipeline_module.get_function("double").launch(grid, block, shared, args)


def test_signature_describes_the_parameters(pipeline_module):
    sig = pipeline_module.get_function("double").signature
    assert sig.describe() == "A: 1024xf32, B: 1024xf32"
    assert (sig.n_inputs, sig.grid, sig.block, sig.cluster) == (1, (1, 1, 1), (1, 1, 1), None)
    assert [p.nbytes for p in sig.params] == [4096, 4096]
