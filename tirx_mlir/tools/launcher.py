"""``python -m tirx_mlir TOOL ARGS...``: the console scripts, for an environment without them on
``PATH`` (a notebook kernel, ``pip install --target``, a zipapp).

    python -m tirx_mlir opt kernel.mlir --pass-pipeline=trn -t nki     # = tirx-opt ...
    python -m tirx_mlir run kernel.mlir --entry softmax                 # = tirx-run ...
    python -m tirx_mlir layout "swizzle(3,3,3) S[8,64]" --shape 8x64    # = tirx-layout ...
    python -m tirx_mlir --version

Each tool module runs on its own too: ``python -m tirx_mlir.tools.tirx_opt ...``,
``python -m tirx_mlir.tools.tirx_run ...``. A tool's module is imported only when it is asked
for, so the launcher adds nothing to a tool's start-up.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from typing import Sequence

TOOLS = {
    "opt": ("tirx_mlir.tools.tirx_opt", "tirx-opt: parse, verify, transform and print IR"),
    "run": ("tirx_mlir.tools.tirx_run", "tirx-run: run a kernel in the reference interpreter"),
    "layout": ("tirx_mlir.tools.tirx_layout", "tirx-layout: draw how a layout maps elements"),
}
"""Subcommand -> (module whose ``main(argv)`` it runs, one-line description)."""


def usage() -> str:
    lines = ["usage: python -m tirx_mlir TOOL [ARGS...]", "", "tools:"]
    lines += [f"  {name:<8}{doc}" for name, (_, doc) in TOOLS.items()]
    lines += ["", "python -m tirx_mlir TOOL --help shows a tool's options."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        sys.stderr.write(usage())
        return 1
    if args[0] in ("-h", "--help"):
        sys.stdout.write(usage())
        return 0
    if args[0] in ("-v", "--version"):
        from tirx_mlir import __version__

        print(f"tirx_mlir {__version__}")
        return 0
    name = args[0].removeprefix("tirx-")
    if name not in TOOLS:
        close = difflib.get_close_matches(name, TOOLS, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        sys.stderr.write(f"python -m tirx_mlir: error: unknown tool '{args[0]}'{hint}; tools: "
                         f"{', '.join(TOOLS)}\n")
        return 1
    return importlib.import_module(TOOLS[name][0]).main(args[1:])
