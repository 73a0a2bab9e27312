"""The ``-t ptx`` text of every CUDA example, one file each, to check that a change to the PTX
printer keeps its output byte for byte (run it on two trees, then ``diff -r``).

    PYTHONPATH=/path/to/main python bench/ptx_dump.py /tmp/ptx-main
    PYTHONPATH=. python bench/ptx_dump.py /tmp/ptx-branch
    diff -r /tmp/ptx-main /tmp/ptx-branch && echo identical

``PYTHONPATH`` picks the tree whose printer runs; the examples are this script's tree's.

Every ``examples/cuda/**/*.mlir`` of the tree this script is in: tile-level ones through the
registered ``cuda`` pipeline for their arch (as bench/cuda_compile.py), the others as they are.
An example the printer refuses writes its error's first line instead (nvshmem_ring: ``-t cuda``
only), so a changed diagnostic shows up in the diff too. Prints the printer's CPU time per
example (``time.process_time``, one run: a rough guide, not a bench).
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from triton_peers import ours as O  # noqa: E402


def dump(example: Path) -> tuple[str, float]:
    """(the PTX or ``ERROR <first line>``, the printer's CPU seconds)."""
    from tirx_mlir import registry
    from tirx_mlir.located_parser import make_context, parse_module

    text = example.read_text()
    try:
        ctx = make_context()
        module = parse_module(text, str(example), ctx)
        module.verify()
        if example.parent.name == "tile":
            O.cuda_pipeline(O._arch_of(text)).apply(module, ctx)
        out = io.StringIO()
        start = time.process_time()
        registry.printers.lookup("ptx")()().emit(ctx, module, out)
        return out.getvalue(), time.process_time() - start
    except Exception as err:  # noqa: BLE001 - written into the dump, compared by the diff
        return f"ERROR {type(err).__name__}: {str(err).splitlines()[0]}\n", 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the folder to write <example>.ptx files into")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    examples = ROOT / "examples" / "cuda"
    for example in sorted(examples.glob("**/*.mlir")):
        name = str(example.relative_to(examples).with_suffix("")).replace("/", "__")
        ptx, seconds = dump(example)
        (args.out / f"{name}.ptx").write_text(ptx)
        print(f"{name:40s} {seconds * 1e3:8.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
