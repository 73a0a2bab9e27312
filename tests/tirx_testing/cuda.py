"""Shared helpers of the cuda tests: SSA values of a type, and buffers, for building ops."""

from __future__ import annotations

from xdsl.utils.test_value import create_ssa_value

import tirx_mlir  # noqa: F401  (autoloads the backends, so CUDA's scopes are registered)
from tirx_mlir.backends import load
from tirx_mlir.dialects.tirx.attributes import BufferType

load("cuda")


def value(t):
    """An SSA value of type ``t`` with no defining op."""
    return create_ssa_value(t)


def buffer(shape, elem, scope: str = "global"):
    """An SSA value of type ``!tirx.buffer<shape x elem, scope>``."""
    return value(BufferType(shape, elem, scope))


def parse_cuda(text: str, name: str = "<test>"):
    """A module of cuda / ptx / nvshmem ops parsed and verified (the tirx-opt context)."""
    from tirx_mlir.located_parser import parse_module

    module = parse_module(text, name)
    module.verify()
    return module
