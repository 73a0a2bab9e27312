"""Fixtures of the runtime tests: a fresh interpreter device per test, a compile cache in a
temporary directory, and small kernels the interpreter device runs at the tile level."""

from __future__ import annotations

import pytest

from tirx_testing.ir_text import buffer_type, kernel_text

VEC = buffer_type("1024xf32")


def _unary(name: str, body_op: str, const: str) -> str:
    body = (f"  %c = arith.constant {const} : f32\n"
            f"  tirx.{body_op} %B, %A, %c : {VEC}, {VEC}, f32")
    return kernel_text(body, {"A": VEC}, {"B": VEC}, name=name)


PIPELINE_TEXT = "\n".join([_unary("add_one", "add", "1.0"), _unary("double", "mul", "2.0"),
                           _unary("sub_three", "sub", "3.0")])
"""Three kernels of one module, each 1024 f32 -> 1024 f32: +1, *2, -3."""

ADD_ONE_TEXT = _unary("add_one", "add", "1.0")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TIRX_MLIR_CACHE_DIR", str(tmp_path / "compile-cache"))
    monkeypatch.delenv("TIRX_MLIR_CACHE", raising=False)


@pytest.fixture
def add_one_text() -> str:
    return ADD_ONE_TEXT


@pytest.fixture
def device():
    from tirx_mlir.runtime.interpreter_device import InterpreterDevice

    return InterpreterDevice()


@pytest.fixture
def pipeline_module(device):
    from tirx_mlir.located_parser import parse_module

    return device.load_module(parse_module(PIPELINE_TEXT, "pipeline.mlir"))
