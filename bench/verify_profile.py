"""Where the verification after each pass of a pipeline goes (issue 16), per pass.

    python bench/verify_profile.py [--kernels trn:matmul_512,trn:softmax_128x512] [--warm 3]
                                   [--runs 20]

For each kernel (as `verify_share.py` names them), ``--warm`` pipelines, then ``--runs`` more
with a `ModuleVerifier` instrumented by wrapping its methods (CPU, ``time.process_time``; the
wrappers add ~1 us a call, so the columns add up to a little more than `verify_share.py`'s
figure). Per pass, the means of a pipeline:

* ``ops``: the ops in the module after the pass; ``visit``: the ops `ModuleVerifier._visit` (or `_visit_new_leaf`) ran on
  (new or changed: their fingerprint and key built), ``check``: those whose key was new
  (`ModuleVerifier._check` ran), ``vrule``: those whose views alone were new (only their
  ``VERIFY_VIEW_RULES`` method ran);
* ``verify``: the whole verification after the pass (`ModuleVerifier.check`); ``checks``: the time
  in `_check` and the view-rules methods (the op checks themselves), of which ``irdl``: the
  generic IRDL checks (the compiled definition check, timed again on the same ops afterwards: a
  replay, not part of ``verify``); ``views``: `access.resolve_access` called by the keys (outside
  the checks: resolving a view the checks then get from `access.shared_views`); ``memo``:
  ``verify - checks - views``, the keys, fingerprints, serials, walks and the dominance check;
* ``plain``: what the plain verifier (the full dominance check and ``module.verify()`` under
  `access.shared_views`) costs on the same IR, timed after the memo's verification.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_share  # noqa: E402 - its kernels and its tree on sys.path

from tirx_mlir import verification  # noqa: E402
from tirx_mlir.dialects.tirx import access  # noqa: E402
from tirx_mlir.dominance import check_dominance  # noqa: E402
from tirx_mlir.located_parser import make_context, parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline  # noqa: E402

clock = time.process_time
COLUMNS = ("ops", "visit", "check", "vrule", "verify", "checks", "irdl", "views", "memo", "plain")


class Profile:
    """The per-pass sums, and the wrappers that fill them."""

    def __init__(self) -> None:
        self.sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.current = ""
        self.depth = 0  # inside a check: its view resolutions are the check's
        self.checked: list = []
        self.on = False
        self.verifying = False  # inside the memo's verification (not the plain one)

    def add(self, column: str, value: float) -> None:
        if self.on:
            self.sums[self.current][column] += value

    def install(self) -> None:
        """Wrap the verifier's methods, `access.resolve_access` and the view-rules methods
        (`uninstall` puts them back)."""
        mv = verification.ModuleVerifier
        profile = self
        self.saved = [(mv, "_check", mv.__dict__["_check"]), (mv, "_visit", mv.__dict__["_visit"]),
                      (mv, "_visit_new_leaf", mv.__dict__["_visit_new_leaf"]),
                      (access, "resolve_access", access.resolve_access)]
        self.saved += [(cls, "verify_views", cls.__dict__["verify_views"])
                       for cls in _view_rule_classes()]
        check, visit, new_leaf = mv._check, mv._visit, mv._visit_new_leaf  # noqa: SLF001

        def timed_check(self, op, *args, **kwargs):
            profile.add("check", 1)
            profile.checked.append(op)
            return profile.timed(check, (self, op, *args), kwargs)

        def counted_visit(self, op, *args, **kwargs):
            if not op.regions:
                profile.add("visit", 1)
            return visit(self, op, *args, **kwargs)

        def counted_new_leaf(self, op, plan):  # `_visit` of a new op without regions
            profile.add("visit", 1)
            return new_leaf(self, op, plan)

        mv._check, mv._visit = timed_check, counted_visit  # noqa: SLF001
        mv._visit_new_leaf = counted_new_leaf  # noqa: SLF001
        resolve = access.resolve_access

        def timed_resolve(value):
            if profile.depth or not profile.verifying:
                return resolve(value)
            start = clock()
            try:
                return resolve(value)
            finally:
                profile.add("views", clock() - start)

        access.resolve_access = timed_resolve
        for cls in _view_rule_classes():
            rules = cls.__dict__["verify_views"]

            def timed_rules(op, rules=rules):
                if profile.depth:
                    return rules(op)
                profile.add("vrule", 1)
                return profile.timed(rules, (op,), {})

            cls.verify_views = timed_rules

    def uninstall(self) -> None:
        for owner, name, original in self.saved:
            setattr(owner, name, original)

    def timed(self, function, args, kwargs):
        self.depth += 1
        start = clock()
        try:
            return function(*args, **kwargs)
        finally:
            self.depth -= 1
            if not self.depth:
                self.add("checks", clock() - start)

    def replay_irdl(self) -> None:
        """Time the generic IRDL checks of the ops checked in the last verification."""
        for op in self.checked:
            generic = getattr(type(op).__dict__.get("verify_"), "__generic__", None)
            if generic is None:
                continue
            start = clock()
            try:
                generic(op)
            except Exception:  # noqa: BLE001 - not timed as a pass
                pass
            self.add("irdl", clock() - start)
        self.checked = []


def _view_rule_classes() -> list[type]:
    """The classes defining a ``verify_views`` method (the nki ops' base)."""
    from tirx_mlir.backends.trn.dialects.nki.base import NkiOp

    return [NkiOp]


def _make_verifier(profile: Profile):
    class ProfilingVerifier(verification.ModuleVerifier):
        def run_pass(self, p, ctx, module) -> None:
            super().run_pass(p, ctx, module)
            profile.current = p.name

        def check(self, module) -> None:
            profile.checked = []
            profile.verifying = True
            start = clock()
            try:
                super().check(module)
            finally:
                profile.verifying = False
            profile.add("verify", clock() - start)
            profile.replay_irdl()
            profile.add("ops", sum(1 for _ in module.walk()) - 1)
            start = clock()
            check_dominance(module)
            with access.shared_views():
                module.verify()
            profile.add("plain", clock() - start)

    return ProfilingVerifier


def profile_kernel(spec: str, warm: int, runs: int) -> dict[str, dict[str, float]]:
    """Per pass name (in pipeline order), the `COLUMNS` of a pipeline of ``spec``: means over
    ``runs`` pipelines after ``warm`` ones; counts as numbers, times in CPU seconds."""
    backend, name = spec.split(":", 1)
    text = verify_share.kernel_text(backend, name)
    backend = backend.split("-", 1)[0]
    profile = Profile()
    profile.install()
    verifier_class = _make_verifier(profile)
    try:
        for i in range(warm + runs):
            profile.on = i >= warm
            ctx = make_context()
            module = parse_module(text, name, ctx)
            get_pipeline(backend).apply(module, ctx, verifier=verifier_class())
    finally:
        profile.uninstall()
    for sums in profile.sums.values():
        for column in sums:
            sums[column] /= runs
        sums["memo"] = sums["verify"] - sums["checks"] - sums["views"]
    return profile.sums


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", default="trn:matmul_512,trn:softmax_128x512,"
                                              "trn:layernorm_affine_rows")
    parser.add_argument("--warm", type=int, default=3)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    for spec in args.kernels.split(","):
        if not verify_share.known_kernel(spec):
            parser.error(f"--kernels: {spec!r} is not a kernel verify_share.py knows")
    print(f"load average {os.getloadavg()[0]:.2f}; a pipeline's mean of {args.runs}; counts, "
          f"then CPU ms")
    for spec in args.kernels.split(","):
        sums = profile_kernel(spec, args.warm, args.runs)
        print(f"{spec:24s}" + "".join(f"{c:>7s}" for c in COLUMNS))
        total: dict[str, float] = defaultdict(float)
        for name, row in sums.items():
            cells = []
            for c in COLUMNS:
                total[c] += row[c]
                cells.append(f"{row[c]:7.0f}" if c in COLUMNS[:4] else f"{row[c] * 1e3:7.2f}")
            print(f"  {name:22s}" + "".join(cells))
        print(f"  {'all':22s}" + "".join(f"{total[c]:7.0f}" if c in COLUMNS[:4] else
                                         f"{total[c] * 1e3:7.2f}" for c in COLUMNS))


if __name__ == "__main__":
    main()
