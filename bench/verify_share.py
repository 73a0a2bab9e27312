"""The verification's share of pipeline time, measured inside each pipeline run (issue 16).

    python bench/verify_share.py [--kernels trn:matmul_512,cuda:gemm_sm80] [--warm 2] [--runs 3]
                                 [--passes]

For each kernel (``trn:<name>`` from examples/trn through the ``trn`` pipeline, ``cuda:<name>``
from examples/cuda/tile through ``cuda``, ``trn-chain:<n>`` the chain of ``n`` softmax blocks of
bench/trn_compile.py's section 4 through ``trn``: ~4 n tile ops of a few signatures; default: a
few examples of each backend), in this process: ``--warm``
pipelines, then ``--runs`` more, each with a `ModuleVerifier` that times (CPU,
``time.process_time``) every pass (`ModuleVerifier.run_pass`) and the verification after it
(`ModuleVerifier.check`: the dominance check and the verification, what `Pipeline.apply` runs
after a pass). Printed: the mean passes and verify ms of a pipeline and the share,
``verify / (passes + verify)`` (goal <= 0.15); with ``--passes``, the verify ms after each pass.
Timing both halves inside one run makes the share independent of the machine's load, unlike
`trn_compile.py`'s section 3 (two pipelines, with and without verification). The tirx_mlir
imported is the one on PYTHONPATH (this script's tree when PYTHONPATH is not set), so two trees
are compared by running it with each on PYTHONPATH, alternately; the first line names the tree.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if not os.environ.get("PYTHONPATH") and ROOT not in sys.path:
    sys.path.insert(0, ROOT)  # else PYTHONPATH's tree: the one being measured

import tirx_mlir  # noqa: E402,F401  (autoloads the backends)
from tirx_mlir.located_parser import make_context, parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline  # noqa: E402
from tirx_mlir.verification import ModuleVerifier  # noqa: E402

GOAL = 0.15
DEFAULT = ("trn:matmul_512,trn:layernorm_affine_rows,trn:softmax_1000x1000,trn:softmax_128x512,"
           "cuda:gemm_sm80,cuda:softmax,cuda:matmul_bias_relu,cuda:rmsnorm")
FOLDERS = {"trn": os.path.join(ROOT, "examples", "trn"),
           "cuda": os.path.join(ROOT, "examples", "cuda", "tile")}


class TimingVerifier(ModuleVerifier):
    """A `ModuleVerifier` adding the CPU time of each pass and of each verification after it."""

    def __init__(self) -> None:
        super().__init__()
        self.passes: dict[str, float] = defaultdict(float)
        self.verifies: dict[str, float] = defaultdict(float)
        self._last = ""

    def run_pass(self, p: object, ctx: object, module: object) -> None:
        start = time.process_time()
        super().run_pass(p, ctx, module)  # type: ignore[arg-type]
        self._last = p.name  # type: ignore[attr-defined]
        self.passes[self._last] += time.process_time() - start

    def check(self, module: object) -> None:
        start = time.process_time()
        super().check(module)  # type: ignore[arg-type]
        self.verifies[self._last] += time.process_time() - start


def kernel_text(backend: str, name: str) -> str:
    """The IR of kernel ``backend:name`` (see the module docstring)."""
    if backend == "trn-chain":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from trn_compile import softmax_chain  # noqa: PLC0415 - the same chain as section 4

        return softmax_chain(int(name))
    with open(os.path.join(FOLDERS[backend], name + ".mlir")) as f:
        return f.read()


def known_kernel(spec: str) -> bool:
    backend, _, name = spec.partition(":")
    if backend == "trn-chain":
        return name.isdigit() and int(name) > 0
    return backend in FOLDERS and os.path.isfile(os.path.join(FOLDERS[backend], name + ".mlir"))


def measure(spec: str, warm: int, runs: int) -> tuple[dict[str, float], dict[str, float]]:
    """Per pass name: the mean CPU seconds of the pass and of the verification after it."""
    backend, name = spec.split(":", 1)
    text = kernel_text(backend, name)
    backend = backend.split("-", 1)[0]  # trn-chain: the trn pipeline
    passes: dict[str, float] = defaultdict(float)
    verifies: dict[str, float] = defaultdict(float)
    for i in range(warm + runs):
        ctx = make_context()
        module = parse_module(text, name, ctx)
        verifier = TimingVerifier()
        get_pipeline(backend).apply(module, ctx, verifier=verifier)
        if i < warm:
            continue
        for k, v in verifier.passes.items():
            passes[k] += v / runs
        for k, v in verifier.verifies.items():
            verifies[k] += v / runs
    return passes, verifies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default=DEFAULT)
    parser.add_argument("--warm", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--passes", action="store_true", help="verify ms after each pass")
    args = parser.parse_args()
    if args.runs < 1 or args.warm < 0:
        parser.error("--runs must be at least 1 and --warm at least 0")
    for spec in args.kernels.split(","):
        if not known_kernel(spec):
            parser.error(f"--kernels: {spec!r} is not trn:<name> or cuda:<name> of an example "
                         f"in examples/trn or examples/cuda/tile, nor trn-chain:<blocks>")
    print(f"load average {os.getloadavg()[0]:.2f}; CPU ms a pipeline, mean of {args.runs}; "
          f"tirx_mlir from {os.path.dirname(os.path.dirname(tirx_mlir.__file__))}")
    print(f"{'kernel':32s} {'passes':>9s} {'verify':>9s} {'share':>7s}")
    for spec in args.kernels.split(","):
        passes, verifies = measure(spec, args.warm, args.runs)
        p, v = sum(passes.values()) * 1e3, sum(verifies.values()) * 1e3
        share = v / (p + v)
        mark = "" if share <= GOAL else " !"
        print(f"{spec:32s} {p:9.1f} {v:9.1f} {share:7.3f}{mark}")
        if args.passes:
            for k in passes:
                print(f"    {k:28s} {passes[k] * 1e3:9.2f} {verifies.get(k, 0.0) * 1e3:9.2f}")
    print(f"(share = verify / (passes + verify); goal <= {GOAL}; ! = above it)")


if __name__ == "__main__":
    main()
