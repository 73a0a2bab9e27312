"""The verification after cuda-set-max-nreg on an sm_80 kernel (no role-split tag): the pass
reports nothing (test_set_max_nreg_reports.py checks the reports themselves) and the verifier
visits none of the kernel's ops again."""

from __future__ import annotations

from pathlib import Path

from xdsl.context import Context

from tirx_mlir.backends.cuda.transforms.set_max_nreg import CudaSetMaxNRegPass
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline
from tirx_mlir.verification import ModuleVerifier

TILE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile"


def test_an_untagged_kernel_is_not_walked():
    path = TILE / "gemm_sm80.mlir"
    shots = get_pipeline("cuda").snapshots(parse_module(path.read_text(), path.stem))
    names = [name for name, _ in shots]
    module = shots[names.index("cuda-set-max-nreg") - 1][1]
    visited = []

    class Counting(ModuleVerifier):
        def _visit(self, op, fingerprint=None):
            visited.append(op)
            return super()._visit(op, fingerprint)

        def _visit_new_leaf(self, op, plan):
            visited.append(op)
            return super()._visit_new_leaf(op, plan)

    verifier = Counting()
    verifier.audit = True
    verifier.check(module)
    assert len(visited) > 500  # the first verification visits every op
    visited.clear()
    before = str(module)
    verifier.run_pass(CudaSetMaxNRegPass(), Context(), module)
    assert str(module) == before
    log = verifier._pending  # noqa: SLF001
    assert log is not None and not (log.ops or log.own or log.blocks or log.users)
    verifier.audit = False  # the audit's full verification would visit every op again
    verifier.check(module)
    # the module and the kernel are entered (the kernel holds an op verified at every visit),
    # none of the kernel's ops
    assert len(visited) <= 2 and {op.name for op in visited} <= {"builtin.module", "tirx.kernel"}
