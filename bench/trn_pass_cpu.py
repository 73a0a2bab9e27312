"""CPU time of each stage of a trn compile in one process: the first compile after the imports,
then the median of ``--repeats`` more, as one JSON line (run it in fresh processes, alternating
two trees, to compare them; bench/README.md).

    PYTHONPATH=TREE python bench/trn_pass_cpu.py layernorm_affine_rows [--repeats 10]

Stages: ``parse``, each pass of the ``trn`` pipeline, run and verified as `Pipeline.apply` does
(``verify`` sums the verifications after the passes), ``print`` (``-t nki``). The collector is off during
each compile, as in ``tirx-opt`` (`tirx_mlir.gc_pause`), and collects between compiles.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "trn"


def compile_once(text: str, name: str) -> dict[str, float]:
    """CPU ms of each stage of one compile of ``text``."""
    from tirx_mlir.backends.trn.printers import emit_nki
    from tirx_mlir.located_parser import make_context, parse_module
    from tirx_mlir.pipelines import get_pipeline, preserves_ir
    from tirx_mlir.verification import ModuleVerifier

    out: dict[str, float] = {"verify": 0.0}
    t = time.process_time()
    ctx = make_context()
    module = parse_module(text, name, ctx)
    out["parse"] = (time.process_time() - t) * 1e3
    verifier = ModuleVerifier()
    for p in get_pipeline("trn").passes:  # what `Pipeline.apply` does, each step timed
        t = time.process_time()
        verifier.run_pass(p, ctx, module)
        out[p.name] = out.get(p.name, 0.0) + (time.process_time() - t) * 1e3
        t = time.process_time()
        if not preserves_ir(p):
            verifier.check(module)
        out["verify"] += (time.process_time() - t) * 1e3
    t = time.process_time()
    emit_nki(module)
    out["print"] = (time.process_time() - t) * 1e3
    out["total"] = sum(out.values())
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("kernel")
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    import tirx_mlir  # noqa: F401  (the imports, outside the timed compiles)

    path = EXAMPLES / f"{args.kernel}.mlir"
    text = path.read_text()
    gc.disable()
    first = compile_once(text, str(path))
    runs = []
    for _ in range(args.repeats):
        gc.collect()
        runs.append(compile_once(text, str(path)))
    repeat = {k: statistics.median(r[k] for r in runs) for k in first}
    print(json.dumps({"kernel": args.kernel, "first": first, "repeat": repeat}))


if __name__ == "__main__":
    main()
