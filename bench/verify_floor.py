"""What one verification costs at its floor: the memo's parts on the IR after one pass (issue 16).

    python bench/verify_floor.py [--kernel cuda:flash_attention_sm80] [--after tirx-dispatch]
                                 [--repeat 15]

Runs the kernel's pipeline (as `verify_share.py` names kernels) up to and including the first
pass named ``--after``, unverified, then times on that IR, with the collector off, best of
``--repeat`` (CPU ms, ``time.process_time``):

* ``walk``: ``module.walk()`` alone (the least any verification of every op costs);
* ``fresh``: `ModuleVerifier.check` with a new verifier (every op and key new: what the
  verification after a pass that does not report, such as tirx-dispatch, costs);
* ``keys known``: a verifier that knows every key (serials and verdicts) but no op: every op
  is keyed and its key found, no check runs (copies of valid ops, as a lowering makes);
* ``all known``: the same verifier again on the same IR (every fingerprint compared equal);
* ``leaf parts``: building the fingerprint and key of each op that `_visit_new_leaf` keys,
  alone (`ModuleVerifier._leaf_parts`);
* ``dominance``: the full dominance check (`tirx_mlir.dominance.check_dominance`);
* ``plain``: ``module.verify()`` (views shared, `access.shared_views`): every op's IRDL checks,
  traits and ``verify_``, no memo.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import verify_share  # noqa: E402 - its kernels and its tree on sys.path

from tirx_mlir.dialects.tirx.access import shared_views  # noqa: E402
from tirx_mlir.dominance import check_dominance  # noqa: E402
from tirx_mlir.located_parser import make_context, parse_module  # noqa: E402
from tirx_mlir.pipelines import get_pipeline  # noqa: E402
from tirx_mlir.verification import _LEAF_READS, ModuleVerifier, _plan_of  # noqa: E402


def lowered(spec: str, after: str):
    """The module of kernel ``spec`` after its pipeline's passes up to the first ``after``."""
    backend, name = spec.split(":", 1)
    text = verify_share.kernel_text(backend, name)
    ctx = make_context()
    module = parse_module(text, name, ctx)
    pipeline = get_pipeline(backend.split("-", 1)[0])
    names = pipeline.pass_names()
    if after not in names:
        raise ValueError(f"--after: {after!r} is not a pass of the pipeline ({', '.join(names)})")
    for p in pipeline.passes[:names.index(after) + 1]:
        p.apply(ctx, module)
    return module


def parts(module, repeat: int) -> dict[str, float]:
    """The figures of the module docstring, CPU ms, best of ``repeat``."""
    from xdsl.dialects import arith

    def best(f, n: int = repeat) -> float:
        times = []
        for _ in range(n):
            start = time.process_time()
            f()
            times.append(time.process_time() - start)
        return min(times) * 1e3

    ops = list(module.walk())
    leaf = [(op, _plan_of(op)) for op in ops if not op.regions and not op.successors]
    leaf = [(op, p) for op, p in leaf
            if p is not None and p.reads in _LEAF_READS and not p.unbuilt]
    warm = ModuleVerifier()
    warm.audit = warm.compare = False
    warm.check(module)

    def fresh() -> None:
        v = ModuleVerifier()
        v.audit = v.compare = False
        v.check(module)

    def keys_known() -> None:
        v = ModuleVerifier()
        v.audit = v.compare = False
        v._verified, v._serials = warm._verified, warm._serials  # noqa: SLF001
        v._serial_of_id, v._serial_of_value = warm._serial_of_id, warm._serial_of_value  # noqa
        v._kept = warm._kept  # noqa: SLF001
        v.check(module)

    def leaf_parts() -> None:
        warm._constant_class, warm._contexts, warm._targets = arith.ConstantOp, {}, {}  # noqa
        for op, plan in leaf:
            warm._leaf_parts(op, plan)  # noqa: SLF001

    def plain() -> None:
        with shared_views():
            module.verify()

    enabled = gc.isenabled()
    gc.disable()
    try:
        return {"ops": len(ops), "leaf ops": len(leaf),
                "walk": best(lambda: [None for _ in module.walk()]),
                "fresh": best(fresh), "keys known": best(keys_known),
                "all known": best(lambda: warm.check(module)), "leaf parts": best(leaf_parts),
                "dominance": best(lambda: check_dominance(module)),
                "plain": best(plain, max(1, repeat // 3))}
    finally:
        if enabled:
            gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernel", default="cuda:flash_attention_sm80")
    parser.add_argument("--after", default="tirx-dispatch")
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    if not verify_share.known_kernel(args.kernel):
        parser.error(f"--kernel: {args.kernel!r} is not a kernel verify_share.py knows")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    try:
        module = lowered(args.kernel, args.after)
    except ValueError as err:
        parser.error(str(err))
    figures = parts(module, args.repeat)
    print(f"{args.kernel} after {args.after}; load average {os.getloadavg()[0]:.2f}; "
          f"CPU ms, best of {args.repeat}")
    for name, value in figures.items():
        print(f"  {name:12s} {value:9.2f}" if isinstance(value, float) else
              f"  {name:12s} {value:9d}")


if __name__ == "__main__":
    main()
