"""Whether the verification's memo pays for the ops a pass makes new (issue 16), per pass.

    python bench/verify_designs.py [--kernels cuda:gemm_sm80,trn:matmul_512] [--warm 2]
                                   [--runs 5] [--designs memo,plain,hybrid,hybrid-fp]

For each kernel (as `verify_share.py` names them), each design verifies after every pass of
its pipeline (`Pipeline.apply` with the design's verifier; the passes and the IR are the same
for every design); the designs run one pipeline each in turn, ``--warm`` rounds then ``--runs``
timed ones, so load drifts reach them alike. Printed per pass: the mean CPU ms
(``time.process_time``) of the verification after it under each design, then the pipeline's
total and the share ``verify / (passes + verify)`` with the passes' time of the ``memo`` runs.

* ``memo``: `tirx_mlir.verification.ModuleVerifier` as the pipelines use it: each op keyed by
  what its check reads, a key found skips the check; unchanged ops known by their fingerprint,
  unreached ones (after a pass that reports its changes) by their place.
* ``plain``: no memo: the full dominance check and ``module.verify()`` (every op's IRDL checks,
  traits and ``verify_``) after every pass, views resolved once a verification
  (`access.shared_views`), as MLIR's verifier does.
* ``hybrid``: the memo's walk and reports, but an op without regions that the memo would key
  (new, changed, or compared after a pass that does not report) is verified plainly
  (``op.verify(verify_nested_ops=False)``) and recorded by identity only (its place, as
  `verification._unbuilt`): a later verification skips it when the report does not reach it,
  and verifies it plainly again when it compares it (no fingerprint to compare with).
* ``hybrid-fp``: ``hybrid`` with the op's fingerprint recorded too (`ModuleVerifier._fingerprint`),
  so a verification that compares it (after a pass that does not report) skips it unchanged.

``--check`` (a test's use): each design must accept each pipeline (it runs the plain verifier's
check too, so an error is the plain verdict's).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_share  # noqa: E402 - its kernels and its tree on sys.path

from tirx_mlir.dialects.tirx.access import shared_views  # noqa: E402
from tirx_mlir.dominance import check_dominance  # noqa: E402
from tirx_mlir.located_parser import make_context, parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline  # noqa: E402
from tirx_mlir.verification import ModuleVerifier, _plan_of, _unbuilt  # noqa: E402

clock = time.process_time
DESIGNS = ("memo", "plain", "hybrid", "hybrid-fp")
DEFAULT = ("cuda:softmax_row,cuda:gemm_sm80,cuda:flash_attention_sm80,trn:matmul_512,"
           "trn:softmax_128x512,trn:layernorm_affine_rows")


class _Timing:
    """Adds the CPU time of each pass and of the verification after it, per pass index. Every
    design runs every pass of the pipeline and is verified after each that may change the IR
    (``VERIFY_EVERY_PASS``: without it `Pipeline.apply` skips the verification after a pass
    that reports no change, and a repeated cleanup, only for designs whose `run_pass` collects
    reports, so the designs would not see the same passes)."""

    VERIFY_EVERY_PASS = True

    def _init_timing(self) -> None:
        self.passes: list[tuple[str, float]] = []
        self.verifies: dict[int, float] = defaultdict(float)

    def run_pass(self, p: object, ctx: object, module: object) -> None:
        start = clock()
        super().run_pass(p, ctx, module)  # type: ignore[misc]
        self.passes.append((p.name, clock() - start))  # type: ignore[attr-defined]

    def check(self, module: object) -> None:
        start = clock()
        super().check(module)  # type: ignore[misc]
        self.verifies[len(self.passes) - 1] += clock() - start


class Memo(_Timing, ModuleVerifier):
    """The pipelines' verifier, timed; without the test suite's audit and comparison
    (``TIRX_VERIFY_AUDIT``, ``TIRX_VERIFY_COMPARE``), as a compile runs it."""

    def __init__(self) -> None:
        super().__init__()
        self.audit = self.compare = False
        self._init_timing()


class Plain(Memo):
    """No memo: MLIR's verifier after every pass."""

    def run_pass(self, p: object, ctx: object, module: object) -> None:
        start = clock()
        p.apply(ctx, module)  # type: ignore[attr-defined]
        self.passes.append((p.name, clock() - start))  # type: ignore[attr-defined]

    def check(self, module: object) -> None:
        start = clock()
        check_dominance(module)  # type: ignore[arg-type]
        with shared_views():
            module.verify()  # type: ignore[attr-defined]
        self.verifies[len(self.passes) - 1] += clock() - start


class Hybrid(Memo):
    """The memo's walk; each leaf op it would key verified plainly, recorded by identity."""

    FINGERPRINT = False

    def _plain_leaf(self, op, plan) -> tuple:
        if self._path is not None:
            self._visited.append(op)
        self._held_now.append(op)
        op.verify(verify_nested_ops=False)
        token = (id(op), self._new_serial(), *map(id, op._operands))  # noqa: SLF001
        fingerprint = self._fingerprint(op, plan) if self.FINGERPRINT else None
        self._ops_now[id(op)] = (op, _unbuilt(op) if fingerprint is None else fingerprint,
                                 token, plan)
        return token

    def _visit_new_leaf(self, op, plan) -> tuple:
        return self._plain_leaf(op, plan)

    def _visit(self, op, fingerprint=None) -> tuple:
        if not op.regions and not op._successors:  # noqa: SLF001
            plan = _plan_of(op)
            if plan is not None and plan.reads != "region":
                return self._plain_leaf(op, plan)
        return super()._visit(op, fingerprint)


class HybridFp(Hybrid):
    FINGERPRINT = True


CLASSES = {"memo": Memo, "plain": Plain, "hybrid": Hybrid, "hybrid-fp": HybridFp}


def measure(spec: str, designs: list[str], warm: int, runs: int, check: bool = False):
    """Per design: the pass names, the mean pass seconds and verification seconds per pass."""
    backend, name = spec.split(":", 1)
    text = verify_share.kernel_text(backend, name)
    backend = backend.split("-", 1)[0]
    names: list[str] = []
    passes = {d: defaultdict(float) for d in designs}
    verifies = {d: defaultdict(float) for d in designs}
    for i in range(warm + runs):
        for design in designs:
            ctx = make_context()
            module = parse_module(text, name, ctx)
            verifier = CLASSES[design]()
            get_pipeline(backend).apply(module, ctx, verifier=verifier)
            if check:
                check_dominance(module)
                module.verify()
            if i < warm:
                continue
            names = [n for n, _ in verifier.passes]
            for k, (_, seconds) in enumerate(verifier.passes):
                passes[design][k] += seconds / runs
            for k, seconds in verifier.verifies.items():
                verifies[design][k] += seconds / runs
    return names, passes, verifies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default=DEFAULT)
    parser.add_argument("--designs", default=",".join(DESIGNS))
    parser.add_argument("--warm", type=int, default=2)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="check each pipeline's IR at the end")
    args = parser.parse_args()
    designs = args.designs.split(",")
    for design in designs:
        if design not in CLASSES:
            parser.error(f"--designs: {design!r} is not one of {', '.join(DESIGNS)}")
    if args.runs < 1 or args.warm < 0:
        parser.error("--runs must be at least 1 and --warm at least 0")
    for spec in args.kernels.split(","):
        if not verify_share.known_kernel(spec):
            parser.error(f"--kernels: {spec!r} is not a kernel verify_share.py knows")
    print(f"load average {os.getloadavg()[0]:.2f}; CPU ms, mean of {args.runs} pipelines a design")
    for spec in args.kernels.split(","):
        names, passes, verifies = measure(spec, designs, args.warm, args.runs, args.check)
        print(f"{spec}")
        print(f"    {'pass':30s} {'pass ms':>8s} " + " ".join(f"{d:>9s}" for d in designs))
        for k, n in enumerate(names):
            print(f"    {k:2d} {n:27s} {passes[designs[0]][k] * 1e3:8.2f} " +
                  " ".join(f"{verifies[d].get(k, 0.0) * 1e3:9.2f}" for d in designs))
        total_p = sum(passes[designs[0]].values()) * 1e3
        totals = [sum(verifies[d].values()) * 1e3 for d in designs]
        print(f"    {'all':30s} {total_p:8.2f} " + " ".join(f"{t:9.2f}" for t in totals))
        print(f"    {'share':30s} {'':8s} " +
              " ".join(f"{t / (total_p + t):9.3f}" for t in totals))


if __name__ == "__main__":
    main()
