"""tirx-opt's --mlir-print-ir-* flags and --diff-passes (tools/ir_printing.py), through main(argv).

The kernel has two dead constants, so ``cse`` changes it, ``dce`` changes it again, and a second
``cse`` changes nothing: what each flag prints is told apart by which passes show up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tirx_mlir import registry
from tirx_mlir.tools.tirx_opt import main

KERNEL = """\
tirx.kernel @k(%A: !tirx.buffer<8xf32, global>) -> (%B: !tirx.buffer<8xf32, global>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c0b = arith.constant 0 : index
  %dead = arith.addi %c0, %c0b : index
  tirx.exp %B, %A : !tirx.buffer<8xf32, global>, !tirx.buffer<8xf32, global>
  tirx.return
}
"""


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def kernel(tmp_path: Path) -> str:
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    return str(path)


def _dumps(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("// -----// IR Dump")]


def test_after_all_and_before_all_go_to_stderr(kernel: str, capsys) -> None:
    code, out, err = run([kernel, "-p", "cse,dce", "--mlir-print-ir-after-all",
                          "--mlir-print-ir-before-all"], capsys)
    assert code == 0 and "IR Dump" not in out
    assert _dumps(err) == ["// -----// IR Dump Before cse //----- //",
                           "// -----// IR Dump After cse //----- //",
                           "// -----// IR Dump Before dce //----- //",
                           "// -----// IR Dump After dce //----- //"]
    before_cse = err.split("IR Dump After cse")[0]
    assert "%dead" in before_cse and "%dead" not in err.split("IR Dump After cse")[1]


def test_after_change_skips_a_pass_that_changed_nothing(kernel: str, capsys) -> None:
    code, _, err = run([kernel, "-p", "cse,dce,cse", "--mlir-print-ir-after-change"], capsys)
    assert code == 0
    assert _dumps(err) == ["// -----// IR Dump After cse //----- //",
                           "// -----// IR Dump After dce //----- //"]


def test_print_before_and_after_named_passes(kernel: str, capsys) -> None:
    code, _, err = run([kernel, "-p", "cse,dce", "--mlir-print-ir-after=dce",
                        "--mlir-print-ir-before=cse,dce"], capsys)
    assert code == 0
    assert _dumps(err) == ["// -----// IR Dump Before cse //----- //",
                           "// -----// IR Dump Before dce //----- //",
                           "// -----// IR Dump After dce //----- //"]


def test_unknown_pass_name_is_a_clear_error(kernel: str, capsys) -> None:
    code, out, err = run([kernel, "-p", "cse", "--mlir-print-ir-after=csee"], capsys)
    assert code == 1 and out == ""
    assert err == "tirx-opt: error: --mlir-print-ir-after: unknown pass 'csee' (did you mean " \
                  "'cse'?)\n"


def test_diff_passes_prints_a_unified_diff_per_changing_pass(kernel: str, capsys) -> None:
    code, out, err = run([kernel, "-p", "cse,dce,cse", "--diff-passes"], capsys)
    assert code == 0 and "---" not in out
    headers = [line for line in err.splitlines() if line.startswith(("--- ", "+++ "))]
    assert headers == ["--- before cse", "+++ after cse", "--- before dce", "+++ after dce"]
    cse_diff = err.split("--- before dce")[0]
    removed = [line[1:].split("=")[0].strip() for line in cse_diff.splitlines()
               if line.startswith("-") and not line.startswith("---")]
    assert removed == ["%c0b", "%dead"]  # cse merges %c0b into %c0, then %dead folds away
    assert not any(line.startswith("+") and not line.startswith("+++")
                   for line in cse_diff.splitlines())
    assert "-    %c0 = arith.constant 0 : index" in err.split("--- before dce")[1]


def _drop_return_pass():
    from xdsl.passes import ModulePass

    from tirx_mlir.dialects.tirx import KernelOp

    @dataclass(frozen=True)
    class DropReturnPass(ModulePass):
        name = "test-drop-return"

        def apply(self, ctx, op) -> None:
            for kernel_op in op.walk():
                if isinstance(kernel_op, KernelOp):
                    kernel_op.body.block.last_op.detach()

    return DropReturnPass


@pytest.fixture
def drop_return():
    with registry.owner_scope("ir-printing-test"):
        registry.register_pass("test-drop-return", _drop_return_pass)
    yield
    registry.drop_owner_everywhere("ir-printing-test")


def test_after_failure_prints_the_ir_the_pass_left(kernel: str, capsys, drop_return,
                                                   tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TIRX_MLIR_REPRODUCER_DIR", str(tmp_path))
    code, _, err = run([kernel, "-p", "cse,test-drop-return,dce",
                        "--mlir-print-ir-after-failure"], capsys)
    assert code == 1
    assert _dumps(err) == ["// -----// IR Dump After test-drop-return Failed //----- //"]
    dumped = err.split("Failed //----- //")[1].split("error:")[0]
    assert "tirx.exp" in dumped and "tirx.return" not in dumped
    assert "after pass 'test-drop-return'" in err


def test_verify_each_false_skips_verification_between_passes(kernel: str, capsys,
                                                             drop_return) -> None:
    code, out, _ = run([kernel, "-p", "test-drop-return", "--verify-each=false"], capsys)
    assert code == 0 and "tirx.exp" in out and "tirx.return" not in out
    code, _, err = run([kernel, "-p", "test-drop-return", "--verify-each=no-such"], capsys)
    assert code == 1 and "--verify-each: expected true or false, got 'no-such'" in err
