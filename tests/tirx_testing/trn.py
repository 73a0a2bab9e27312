"""Shared helpers of the trn tests: a kernel skeleton with the usual tiles, and parsing."""

from __future__ import annotations

import io

from xdsl.printer import Printer

import tirx_mlir
from tirx_mlir.backends import load
from tirx_mlir.located_parser import parse_module
from tirx_testing.ir_text import buffer_type, kernel_text

load("trn")

TILES = {
    "s": "!tirx.buffer<128x512xf32, trn.sbuf>",
    "s2": "!tirx.buffer<128x512xf32, trn.sbuf>",
    "sh": "!tirx.buffer<128x512xbf16, trn.sbuf>",
    "sq": "!tirx.buffer<128x4x128xf32, trn.sbuf>",
    "col": "!tirx.buffer<128x1xf32, trn.sbuf>",
    "icol": "!tirx.buffer<128x1xi32, trn.sbuf>",
    "si": "!tirx.buffer<128x512xi32, trn.sbuf>",
    "mask": "!tirx.buffer<128x512xui8, trn.sbuf>",
    "p": "!tirx.buffer<128x512xf32, trn.psum>",
    "pbig": "!tirx.buffer<128x2048xf32, trn.psum>",
    "w": "!tirx.buffer<128x128xbf16, trn.sbuf>",
    "x": "!tirx.buffer<128x512xbf16, trn.sbuf>",
    "sq128": "!tirx.buffer<128x128xf32, trn.sbuf>",
}


def kernel(body: str, target: str | None = "aws/trn1/trn1.2xlarge",
           extra_tiles: dict[str, str] | None = None) -> str:
    """A kernel @k(%A: 256x512 f32) -> (%B: 256x512 f32) with the TILES allocated, the
    constants %c0, %c1, %one (f32 1.0), %two (f32 2.0), %i7 (i32 7), %true (i1), and ``body``."""
    tiles = {**TILES, **(extra_tiles or {})}
    allocs = "\n".join(f"  %{n} = tirx.alloc : {t}" for n, t in tiles.items())
    hbm = "!tirx.buffer<256x512xf32, global>"
    return kernel_text(f"{allocs}\n"
                       "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
                       "  %one = arith.constant 1.0 : f32\n  %two = arith.constant 2.0 : f32\n"
                       "  %i7 = arith.constant 7 : i32\n  %true = arith.constant true\n"
                       f"{body}", {"A": hbm}, {"B": hbm}, target=target)


def parse(text: str, verify: bool = True):
    module = parse_module(text, "test.mlir")
    if verify:
        module.verify()
    return module


def print_ir(op, generic: bool = False) -> str:
    out = io.StringIO()
    Printer(out, print_generic_format=generic).print_op(op)
    return out.getvalue()


# --- running nki code on numpy arrays -----------------------------------------------------------

import numpy as np  # noqa: E402

from tirx_mlir.dialects.tirx import dtypes  # noqa: E402


def np_dtype(name: str) -> np.dtype:
    return dtypes.numpy_dtype(dtypes.element_type(name))


def dtype_of(arr: np.ndarray) -> str:
    return dtypes.type_name(dtypes.from_numpy(arr.dtype))


buf = buffer_type
"""``buf((128, 512), "f32", "trn.sbuf")`` -> ``!tirx.buffer<128x512xf32, trn.sbuf>``."""


CONSTANTS = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %half = arith.constant 0.5 : f32
  %true = arith.constant true
  %false = arith.constant false
"""


def nki_kernel(body: str, inputs: dict, outputs: dict, target: str | None,
               extra: str = "") -> str:
    """A kernel whose on-chip tiles %<name> are filled from HBM inputs and stored to HBM
    outputs. ``inputs``: name -> (array, scope); ``outputs``: name -> (shape, dtype, scope)."""
    params_in, params_out, prologue, epilogue = [], [], [], []

    def stage(name: str, shape, dt: str, scope: str) -> str:
        prologue.append(f"  %{name} = tirx.alloc : {buf(shape, dt, scope)}")
        if scope == "trn.psum":
            prologue.append(f"  %{name}_stage = tirx.alloc : {buf(shape, dt, 'trn.sbuf')}")
            return f"%{name}_stage"
        return f"%{name}"

    for name, (arr, scope) in inputs.items():
        dt = dtype_of(arr)
        hbm = buf(arr.shape, dt, "global")
        params_in.append(f"%in_{name}: {hbm}")
        tile = stage(name, arr.shape, dt, scope)
        sb = buf(arr.shape, dt, "trn.sbuf")
        prologue.append(f"  nki.load {tile}, %in_{name} : {sb}, {hbm}")
        if tile != f"%{name}":
            prologue.append(f"  nki.tensor_copy %{name}, {tile} : {buf(arr.shape, dt, scope)}, "
                            f"{sb}")
    for name, (shape, dt, scope) in outputs.items():
        hbm = buf(shape, dt, "global")
        params_out.append(f"%out_{name}: {hbm}")
        tile = stage(name, shape, dt, scope)
        sb = buf(shape, dt, "trn.sbuf")
        if tile != f"%{name}":
            epilogue.append(f"  nki.tensor_copy {tile}, %{name} : {sb}, {buf(shape, dt, scope)}")
        epilogue.append(f"  nki.store %out_{name}, {tile} : {hbm}, {sb}")
    tgt = f' target "{target}"' if target else ""
    return (f"tirx.kernel @k({', '.join(params_in)}) -> ({', '.join(params_out)}) grid [1] "
            f"threads [1]{tgt} {{\n" + "\n".join(prologue) + "\n" + CONSTANTS + extra +
            body + "\n" + "\n".join(epilogue) + "\n  tirx.return\n}\n")


def run_nki(body: str, inputs: dict, outputs: dict, *, target: str | None =
            "aws/trn1/trn1.2xlarge", verify: bool = True, extra: str = ""):
    """Run ``body`` on the tiles; returns {output name: array}."""
    text = nki_kernel(body, inputs, outputs, target, extra)
    arrays = [arr for arr, _ in inputs.values()]
    result = tirx_mlir.interpret(text, "k", *arrays, verify=verify, name="nki_test.mlir")
    result = result if isinstance(result, tuple) else (result,)
    return dict(zip(outputs, result))
