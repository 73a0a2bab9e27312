"""``-t cuda`` speed: parse + verify + print CUDA C++ for each example in examples/cuda/.

    python bench/cuda_print.py [--repeat 15]

For each example, warm (the dialects imported, one untimed run first), median of ``--repeat``
runs, in one process:

* ``cuda``: parse (tirx's located parser) + verify + ``-t cuda`` (CudaCppPrinter);
* ``generic``: the reference measured in the same run, the same parse + verify + xDSL's own
  printer writing the module in generic form (what ``tirx-opt --print-op-generic`` costs);

and prints the ratio cuda / generic, and ``print``, the printer alone on the parsed module.
The issue's goal is against TIRx 0.1.0a4 producing CUDA source (30 ms for its vector add,
83 ms for its mma GEMM, <= 0.25x of that); TIRx runs side by side only where the reference
virtual environment ``--tirx-venv`` (default /work/tirx_ref_venv) exists, and this script says
when it does not. Times are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from io import StringIO
from pathlib import Path

from xdsl.printer import Printer

from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda
from tirx_mlir.located_parser import parse_module

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "cuda"


def cuda_once(text: str) -> str:
    module = parse_module(text)
    module.verify()
    return emit_cuda(module)


def generic_once(text: str) -> str:
    module = parse_module(text)
    module.verify()
    out = StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


def median_ms(fn, text: str, repeat: int) -> float:
    fn(text)  # warm
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--tirx-venv", default="/work/tirx_ref_venv")
    args = parser.parse_args(argv)
    print(f"{'example':<20} {'ops':>5} {'cuda ms':>9} {'generic ms':>11} {'ratio':>7} "
          f"{'print ms':>9}")
    for path in sorted(EXAMPLES.glob("*.mlir")):
        text = path.read_text()
        ops = sum(1 for _ in parse_module(text).walk())
        cuda = median_ms(cuda_once, text, args.repeat)
        generic = median_ms(generic_once, text, args.repeat)
        module = parse_module(text)
        module.verify()
        alone = median_ms(lambda _: emit_cuda(module), text, args.repeat)
        print(f"{path.stem:<20} {ops:>5} {cuda:>9.2f} {generic:>11.2f} {cuda / generic:>6.2f}x "
              f"{alone:>9.2f}")
    venv = Path(args.tirx_venv)
    if (venv / "bin" / "python").exists():
        print(f"\nTIRx reference venv found at {venv}; its CUDA source generation is not scripted "
              f"here yet (bench/trn_tirx_reference.py is the Trainium counterpart).")
    else:
        print(f"\nno TIRx reference venv at {venv}: TIRx not run side by side (the issue's "
              f"figures: 30 ms vector add, 83 ms mma GEMM; goal <= 0.25x of those).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
