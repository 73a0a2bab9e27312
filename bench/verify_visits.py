"""Where the verification after each pass goes: ops visited by kind, and CPU by part (issue 16).

    python bench/verify_visits.py [--kernels cuda:gemm_sm80,trn:matmul_512] [--warm 1] [--runs 3]

For each kernel (``backend:name`` as `verify_share.py` reads them; default: the four CUDA
kernels of issue 12), ``--warm`` pipelines, then ``--runs`` more with a `ModuleVerifier` that
counts and times its own parts; printed per pass (the verification after it), mean per pipeline:

* ``ops``: the ops in the module; ``new``: ops keyed for the first time (new to the memo);
  ``changed``: ops the memo knew whose fingerprint changed and whose key was built again;
  ``redir``: ops whose only change is which values their operands are (a use redirected: their
  key's serial is kept, `ModuleVerifier._same_key`); ``same``: ops whose fingerprint was built
  and found equal (reached by a report, or any op of a full verification); ``skip``: ops a
  report did not reach, passed over in the walk of their block (`_skip_unreached`);
* ``checks``: op checks that really ran (`ModuleVerifier._check`: a key not found) and their
  ms; ``generic``: of those ms, xDSL's generic IRDL checks (operand, result, property and
  attribute constraints; measured by running the compiled definition check of the same ops
  again, apart, when the check ran it), the rest being traits and the classes' own ``verify_``;
* ``dom``: the dominance check (the full one, and each visited op's during the walk after a
  report); ``path``: what a report reaches (`_path_of`) and the values region ops use from
  outside (`_free_after_report`, `_free_values`); ``book``: the rest of the verification, the
  memo's bookkeeping (walks, fingerprints, keys, look-ups, tokens);
* ``verify``: the verification's ms.

The timers around each part add their own cost (``_dominated`` runs once per visited op), so
the totals are above `verify_share.py`'s; read the parts as proportions. The tirx_mlir imported
is the one on PYTHONPATH (this script's tree when PYTHONPATH is not set).
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tirx_mlir  # noqa: E402,F401  (autoloads the backends)
from tirx_mlir.located_parser import make_context, parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline  # noqa: E402
from tirx_mlir.verification import ModuleVerifier, _generic_length  # noqa: E402
from verify_share import kernel_text, known_kernel  # noqa: E402

DEFAULT = "cuda:softmax_row,cuda:gemm_sm80,cuda:flash_attention_sm80,cuda:gemm_sm90a"
COUNTS = ("ops", "new", "changed", "redir", "same", "skip", "checks")
TIMES = ("check ms", "generic", "dom", "path", "book", "verify")
clock = time.process_time


class ProfilingVerifier(ModuleVerifier):
    """A `ModuleVerifier` counting the ops it visits by kind and timing its parts, charged to
    the pass that ran last (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.stats: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self._now: dict[str, float] = self.stats[""]
        self._depth = 0  # nested timed parts are charged to the outer one only

    def _timed(self, part: str, function, *args):
        if self._depth:
            return function(*args)
        self._depth += 1
        start = clock()
        try:
            return function(*args)
        finally:
            self._now[part] += clock() - start
            self._depth -= 1

    def run_pass(self, p: object, ctx: object, module: object) -> None:
        self._now = self.stats[p.name]  # type: ignore[attr-defined]
        super().run_pass(p, ctx, module)  # type: ignore[arg-type]

    def check(self, module) -> None:
        self._now["ops"] += sum(1 for _ in module.walk())
        start = clock()
        super().check(module)
        self._now["verify"] += clock() - start

    def check_dominance(self, module) -> None:
        self._timed("dom", super().check_dominance, module)

    def _check_module(self, module) -> None:
        from tirx_mlir import dominance

        full = dominance.check_dominance
        dominance.check_dominance = lambda *a: self._timed("dom", full, *a)
        try:
            super()._check_module(module)
        finally:
            dominance.check_dominance = full

    def _dominated(self, op) -> None:
        self._timed("dom", super()._dominated, op)

    def _path_of(self, log, module):
        return self._timed("path", super()._path_of, log, module)

    def _free_after_report(self, op, start, outer=None):
        return self._timed("path", super()._free_after_report, op, start, outer)

    def _free_values(self, op, contents):
        return self._timed("path", super()._free_values, op, contents)

    def _visit_new_leaf(self, op, plan) -> tuple:
        self._now["new"] += 1
        return super()._visit_new_leaf(op, plan)

    def _visit(self, op, fingerprint=None) -> tuple:
        if not op.regions:
            last = self._ops.get(id(op))
            self._now["changed" if last is not None and last[0] is op else "new"] += 1
        return super()._visit(op, fingerprint)

    def _fingerprint(self, op, plan):
        last = self._ops.get(id(op))
        if last is not None and last[0] is op:  # compared (a new op's is built to be kept)
            self._now["same"] += 1  # the ones that differ are taken off where they are seen
        return super()._fingerprint(op, plan)

    def _same_key(self, op, last, fingerprint) -> bool:
        same = super()._same_key(op, last, fingerprint)
        self._now["redir"] += same
        self._now["same"] -= 1
        return same

    def _skip_unreached(self, op, block, last_op, append, walked):
        before = len(walked)
        answer = super()._skip_unreached(op, block, last_op, append, walked)
        self._now["skip"] += len(walked) - before
        return answer

    def _check(self, op, local, shape, isolated=False) -> None:
        generic = getattr(type(op).__dict__.get("verify_"), "__generic__", None)
        ran_generic = generic is not None and \
            ("irdl", local[:_generic_length(local)], shape) not in self._verified
        self._now["checks"] += 1
        start = clock()
        try:
            super()._check(op, local, shape, isolated)
        finally:
            self._now["check ms"] += clock() - start
        if ran_generic:  # apart, not in the verification's time: the generic part again
            start = clock()
            try:
                generic(op)
            except Exception:  # noqa: BLE001 - a rejected op: xDSL's check raised already
                pass
            self._now["generic"] += clock() - start


def profile(spec: str, warm: int, runs: int) -> dict[str, dict[str, float]]:
    """Per pass name: the mean counts and CPU seconds of the verification after it."""
    backend, name = spec.split(":", 1)
    text = kernel_text(backend, name)
    backend = backend.split("-", 1)[0]
    total: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for i in range(warm + runs):
        ctx = make_context()
        module = parse_module(text, name, ctx)
        verifier = ProfilingVerifier()
        get_pipeline(backend).apply(module, ctx, verifier=verifier)
        if i < warm:
            continue
        for pass_name, stats in verifier.stats.items():
            if "verify" not in stats:
                continue  # not verified: the pass preserves the IR
            stats["checks ms"] = stats.get("check ms", 0.0)
            stats["book"] = stats["verify"] - stats.get("check ms", 0.0) - \
                stats.get("dom", 0.0) - stats.get("path", 0.0)
            for k, v in stats.items():
                total[pass_name][k] += v / runs
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default=DEFAULT)
    parser.add_argument("--warm", type=int, default=1)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.runs < 1 or args.warm < 0:
        parser.error("--runs must be at least 1 and --warm at least 0")
    for spec in args.kernels.split(","):
        if not known_kernel(spec):
            parser.error(f"--kernels: {spec!r} is not trn:<name> or cuda:<name> of an example")
    print(f"load average {os.getloadavg()[0]:.2f}; mean per pipeline of {args.runs}, CPU ms; "
          f"tirx_mlir from {os.path.dirname(os.path.dirname(tirx_mlir.__file__))}")
    header = "".join(f"{c:>8s}" for c in COUNTS + TIMES)
    for spec in args.kernels.split(","):
        table = profile(spec, args.warm, args.runs)
        print(f"{spec:28s}{header}")
        sums: dict[str, float] = defaultdict(float)
        for pass_name, stats in table.items():
            row = "".join(f"{stats.get(c, 0):8.0f}" for c in COUNTS)
            row += "".join(f"{stats.get(t, 0) * 1e3:8.2f}" for t in TIMES)
            print(f"  {pass_name:26s}{row}")
            for k, v in stats.items():
                sums[k] += v
        row = "".join(f"{sums.get(c, 0):8.0f}" for c in COUNTS)
        row += "".join(f"{sums.get(t, 0) * 1e3:8.2f}" for t in TIMES)
        print(f"  {'(pipeline)':26s}{row}")


if __name__ == "__main__":
    main()
