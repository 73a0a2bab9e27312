"""Shared helpers of the trn tests: a kernel skeleton with the usual tiles, and parsing."""

from __future__ import annotations

import io

from xdsl.printer import Printer

import tirx_mlir  # noqa: F401  (autoloads the trn backend)
from tirx_mlir.backends import load
from tirx_mlir.context import parse_module

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
    tgt = f' target "{target}"' if target else ""
    return (f"tirx.kernel @k(%A: !tirx.buffer<256x512xf32, global>) -> "
            f"(%B: !tirx.buffer<256x512xf32, global>) grid [1] threads [1]{tgt} {{\n"
            f"{allocs}\n"
            "  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            "  %one = arith.constant 1.0 : f32\n  %two = arith.constant 2.0 : f32\n"
            "  %i7 = arith.constant 7 : i32\n  %true = arith.constant true\n"
            f"{body}\n  tirx.return\n}}\n")


def parse(text: str, verify: bool = True):
    module = parse_module(text, "test.mlir")
    if verify:
        module.verify()
    return module


def print_ir(op, generic: bool = False) -> str:
    out = io.StringIO()
    Printer(out, print_generic_format=generic).print_op(op)
    return out.getvalue()
