"""``tirx-layout``: draw how a layout maps a buffer's elements to axes (tools/layout_view.py).

    tirx-layout "S[(4,8):(8@laneid,1@laneid)]" --shape 4x8       # a text grid
    tirx-layout "swizzle(3,3,3) S[8,64]" --shape 8x64 --dtype f16 --svg swz.svg
    tirx-layout "S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)]" --shape 16x8 --color warpid

(the axes a layout may name are the core's and those of the loaded backends, so a backend's
memory layouts draw too: docs/tools.md). The grid goes to
stdout, coloured when stdout is a terminal (``--color-output=never`` turns it off); ``--svg
FILE`` also writes the picture. A malformed layout, a shape it does not cover or an unknown
axis is ``tirx-layout: error: ...`` with exit status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Sequence

from tirx_mlir.tools import dataclass_cache, lazy_packages

dataclass_cache.install()  # before this tool imports xDSL
lazy_packages.install()


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):
        raise SystemExit(_fail(f"{message} (see tirx-layout --help)"))


def _fail(message: str) -> int:
    sys.stderr.write(f"tirx-layout: error: {message}\n")
    return 1


def _parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog="tirx-layout", description="Draw how a TIRx layout maps the "
                        "elements of a buffer to axes: a text grid, and an SVG picture.")
    p.add_argument("layout", help="the layout, as in the IR: 'S[(8,2,4,2):(4@laneid,1@warpid,1@laneid,1)]'")
    p.add_argument("--shape", required=True, help="the buffer shape, e.g. 128x512")
    p.add_argument("--color", metavar="AXIS", default=None,
                   help="the axis that colours the cells (default: the first axis other than "
                        "m; 'bank' for a layout on m alone)")
    p.add_argument("--dtype", default="f32", help="element type, for banks (default f32)")
    p.add_argument("--banks", type=int, default=32, help="shared-memory banks (default 32)")
    p.add_argument("--bank-bytes", type=int, default=4, help="bytes per bank word (default 4)")
    p.add_argument("--rows", type=int, default=None,
                   help="rows drawn before the grid is cut (default 16 text, 32 SVG)")
    p.add_argument("--cols", type=int, default=None,
                   help="columns drawn before the grid is cut (default 16 text, 32 SVG)")
    p.add_argument("--svg", metavar="FILE", default=None, help="also write the picture as SVG")
    p.add_argument("--color-output", choices=("auto", "always", "never"), default="auto",
                   help="colour the text grid (auto: when stdout is a terminal)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tirx-layout``; returns the exit code."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as stop:
        return int(stop.code or 0)
    import tirx_mlir  # noqa: F401 - loads the backends, whose axes a layout may name
    from tirx_mlir.tools.atomic_file import OutputFileError, write_atomically
    from tirx_mlir.tools.layout_view import LayoutView, LayoutViewError, element_bytes

    try:
        view = LayoutView.of(args.layout, args.shape, args.color, element_bytes(args.dtype),
                             args.banks, args.bank_bytes)
    except LayoutViewError as err:
        return _fail(str(err))
    ansi = args.color_output == "always" or (args.color_output == "auto" and
                                             sys.stdout.isatty() and not os.environ.get("NO_COLOR"))
    text_limits = {k: v for k, v in (("max_rows", args.rows), ("max_cols", args.cols)) if v}
    try:
        sys.stdout.write(view.text(ansi=ansi, **text_limits))
        if args.svg:
            write_atomically(args.svg, view.svg(**text_limits))
    except OutputFileError as err:
        return _fail(str(err))
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
