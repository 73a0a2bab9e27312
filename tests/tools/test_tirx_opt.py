"""tirx-opt: registration from the registries, pipelines, output, diagnostics, reproducers.

Most tests call ``main(argv)`` in-process (fast); the ones about what a user sees on a terminal
(no traceback, lazy imports) run the real console entry point in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tirx_mlir import registry
from tirx_mlir.tools.reproducer import HEADER_KEY, read_reproducer
from tirx_mlir.tools.tirx_opt import main

KERNEL = """\
tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>) -> (%B: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {
  %x = tirx.alloc : !tirx.buffer<128x64xf32, trn.sbuf>
  %c0 = arith.constant 0 : index
  %c0b = arith.constant 0 : index
  %dead = arith.addi %c0, %c0b : index
  tirx.copy %x, %A : !tirx.buffer<128x64xf32, trn.sbuf>, !tirx.buffer<128x64xf32, global>
  tirx.exp %B, %x : !tirx.buffer<128x64xf32, global>, !tirx.buffer<128x64xf32, trn.sbuf>
  tirx.return
}
"""


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def kernel_file(tmp_path: Path) -> Path:
    path = tmp_path / "kernel.mlir"
    path.write_text(KERNEL)
    return path


# --- pipelines ------------------------------------------------------------------------------------


def test_print_pipeline_feeds_back_as_pass_list(kernel_file: Path, capsys) -> None:
    code, spec, _ = run(["--print-pipeline=cleanup"], capsys)
    assert code == 0
    spec = spec.strip()
    assert spec.split(",")[1:] == ["cse", "dce"] and spec.startswith("canonicalize")
    code, by_name, _ = run([str(kernel_file), "--pass-pipeline=cleanup"], capsys)
    assert code == 0
    code, by_list, _ = run([str(kernel_file), "-p", spec], capsys)
    assert code == 0
    assert by_name == by_list
    assert "%dead" not in by_name and "tirx.exp" in by_name  # the pipeline did run


def test_listings_show_registered_entries(capsys) -> None:
    code, out, _ = run(["--list-pipelines"], capsys)
    assert code == 0 and "cleanup\t" in out
    code, out, _ = run(["--list-passes"], capsys)
    assert code == 0 and "\n  tirx-dispatch " in out and "\n  cse " in out
    code, out, _ = run(["--list-targets"], capsys)
    assert code == 0 and " mlir," in out


def test_print_ir_after_all_goes_to_stderr(kernel_file: Path, capsys) -> None:
    code, out, err = run([str(kernel_file), "-p", "cse,dce", "--print-ir-after-all"], capsys)
    assert code == 0
    assert "IR Dump After cse" in err and "IR Dump After dce" in err
    assert "IR Dump" not in out


def test_time_passes_and_print_between_passes(kernel_file: Path, capsys) -> None:
    code, out, err = run([str(kernel_file), "-p", "cse,dce", "--time-passes",
                          "--print-between-passes"], capsys)
    assert code == 0
    assert [line.split(":")[0] for line in err.splitlines()] == ["pass 'cse'", "pass 'dce'"]
    assert out.count("IR after ") == 1 and "IR after cse:" in out  # not after the last pass


# --- registries reach the driver ------------------------------------------------------------------


def _count_ops_target():
    """A printer target, registered through registry.printers like a backend's."""
    from xdsl.utils.target import Target

    @dataclass(frozen=True)
    class CountOpsTarget(Target):
        name = "test-count-ops"
        prefix: str = "ops"

        def emit(self, ctx, module, output) -> None:
            output.write(f"{self.prefix}: {sum(1 for _ in module.walk())}\n")

    return CountOpsTarget


def _exploding_pass():
    from xdsl.passes import ModulePass

    @dataclass(frozen=True)
    class ExplodingPass(ModulePass):
        name = "test-explode"

        def apply(self, ctx, op) -> None:
            raise KeyError("the pass author forgot a case")

    return ExplodingPass


def _invalid_ir_pass():
    from xdsl.passes import ModulePass

    from tirx_mlir.dialects.tirx import KernelOp

    @dataclass(frozen=True)
    class BreakKernelPass(ModulePass):
        name = "test-break-kernel"

        def apply(self, ctx, op) -> None:
            for kernel in op.walk():
                if isinstance(kernel, KernelOp):
                    kernel.body.block.last_op.detach()  # drops tirx.return

    return BreakKernelPass


def _pass_error_pass():
    from xdsl.passes import ModulePass

    from tirx_mlir.diagnostics import PassError
    from tirx_mlir.dialects.tirx import TileOp

    @dataclass(frozen=True)
    class RejectTilesPass(ModulePass):
        name = "test-reject-tiles"

        def apply(self, ctx, op) -> None:
            tile = next(o for o in op.walk() if isinstance(o, TileOp))
            raise PassError("this tile op is not supported here", tile, hint="remove it",
                            code="T001")

    return RejectTilesPass


def _failing_pass():
    from xdsl.passes import ModulePass
    from xdsl.utils.exceptions import PassFailedException

    @dataclass(frozen=True)
    class GiveUpPass(ModulePass):
        name = "test-give-up"

        def apply(self, ctx, op) -> None:
            raise PassFailedException("nothing to do for this module")

    return GiveUpPass


@pytest.fixture
def test_registrations():
    with registry.owner_scope("tirx-opt-test"):
        registry.register_printer("test-count-ops", _count_ops_target)
        registry.register_pass("test-explode", _exploding_pass)
        registry.register_pass("test-break-kernel", _invalid_ir_pass)
        registry.register_pass("test-reject-tiles", _pass_error_pass)
        registry.register_pass("test-give-up", _failing_pass)
    yield
    registry.drop_owner_everywhere("tirx-opt-test")


def test_registry_printer_is_a_target(kernel_file: Path, capsys, test_registrations) -> None:
    code, out, _ = run([str(kernel_file), "-t", "test-count-ops{prefix=n}"], capsys)
    assert code == 0
    assert out.strip() == "n: 9"  # module, kernel and the kernel's 7 ops


def test_pass_error_is_located_at_its_op(kernel_file: Path, capsys, test_registrations) -> None:
    code, out, err = run([str(kernel_file), "-p", "test-reject-tiles"], capsys)
    assert code == 1 and out == ""
    first = err.splitlines()[0]
    assert first == (f"{kernel_file}:6:3: error: 'tirx.copy' op [T001] this tile op is not "
                     f"supported here")
    assert "hint: remove it" in err and "note: raised by pass 'test-reject-tiles'" in err


def test_pass_failed_exception_names_the_pass(kernel_file: Path, capsys,
                                              test_registrations) -> None:
    code, _, err = run([str(kernel_file), "-p", "cse,test-give-up"], capsys)
    assert code == 1
    assert err == (f"{kernel_file}:1:1: error: pass 'test-give-up' failed: nothing to do for "
                   f"this module\n")


def test_invalid_ir_after_a_pass(kernel_file: Path, capsys, test_registrations,
                                 tmp_path: Path) -> None:
    repro = tmp_path / "repro.mlir"
    code, _, err = run([str(kernel_file), "-p", "test-break-kernel",
                        "--crash-reproducer", str(repro)], capsys)
    assert code == 1
    assert err.startswith(f"{kernel_file}:7:3: error: 'tirx.exp' op terminates block")
    assert "(after pass 'test-break-kernel')" in err.splitlines()[0]
    assert repro.exists()


# --- internal compiler errors and reproducers -----------------------------------------------------


def test_crash_writes_a_reproducer_that_replays(kernel_file: Path, capsys, test_registrations,
                                                tmp_path: Path) -> None:
    repro = tmp_path / "crash.mlir"
    code, out, err = run([str(kernel_file), "-p", "cse,test-explode",
                          "--crash-reproducer", str(repro)], capsys)
    assert code == 1 and out == ""
    assert ("error: internal compiler error in pass 'test-explode': KeyError: 'the pass author "
            "forgot a case'") in err
    assert f"tirx-opt --run-reproducer {repro}" in err
    text = repro.read_text()
    assert KERNEL in text
    config = read_reproducer(str(repro))
    assert config.passes == "cse,test-explode" and config.target == "mlir"
    header = next(line for line in text.splitlines() if line.startswith(HEADER_KEY))
    assert json.loads(header[len(HEADER_KEY):])["passes"] == "cse,test-explode"

    code, _, err = run(["--run-reproducer", str(repro)], capsys)
    assert code == 1
    assert "internal compiler error in pass 'test-explode'" in err
    assert f"reproduced from {repro}" in err


def test_reproducer_default_location(kernel_file: Path, capsys, test_registrations,
                                     tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("TIRX_MLIR_REPRODUCER_DIR", str(tmp_path))
    code, _, err = run([str(kernel_file), "-p", "test-explode"], capsys)
    assert code == 1
    written = list(tmp_path.glob("tirx-opt-reproducer-kernel-*.mlir"))
    assert len(written) == 1 and str(written[0]) in err


def test_debug_env_reraises(kernel_file: Path, test_registrations, monkeypatch) -> None:
    monkeypatch.setenv("TIRX_MLIR_DEBUG", "1")
    with pytest.raises(KeyError):
        main([str(kernel_file), "-p", "test-explode"])


def test_run_reproducer_rejects_other_files(kernel_file: Path, capsys) -> None:
    code, _, err = run(["--run-reproducer", str(kernel_file)], capsys)
    assert code == 1 and "is not a tirx-opt reproducer" in err


CRASH_SCRIPT = """
import sys
from dataclasses import dataclass
from xdsl.passes import ModulePass
from tirx_mlir import registry
from tirx_mlir.tools.tirx_opt import main

@dataclass(frozen=True)
class Boom(ModulePass):
    name = "boom"
    def apply(self, ctx, op):
        raise ZeroDivisionError("division by zero in a pass")

registry.register_pass("boom", lambda: Boom)
sys.exit(main(sys.argv[1:]))
"""


def test_crash_in_a_real_process_shows_no_traceback(kernel_file: Path, tmp_path: Path) -> None:
    env = {**os.environ, "TIRX_MLIR_REPRODUCER_DIR": str(tmp_path)}
    env.pop("TIRX_MLIR_DEBUG", None)
    result = subprocess.run([sys.executable, "-c", CRASH_SCRIPT, str(kernel_file), "-p", "boom"],
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "internal compiler error in pass 'boom': ZeroDivisionError" in result.stderr
    assert len(list(tmp_path.glob("tirx-opt-reproducer-*.mlir"))) == 1


# --- input and output -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "\n\n", "// only a comment\n"])
def test_empty_input_is_an_empty_module(text: str, tmp_path: Path, capsys) -> None:
    path = tmp_path / "empty.mlir"
    path.write_text(text)
    code, out, _ = run([str(path)], capsys)
    assert code == 0 and out.split() == ["builtin.module", "{", "}"]


def test_split_input_file_keeps_line_numbers(tmp_path: Path, capsys) -> None:
    path = tmp_path / "split.mlir"
    path.write_text('"test.op"() : () -> ()\n// -----\n\n%0 = tirx.lane_id : index\n// -----\n')
    code, out, err = run([str(path), "--split-input-file"], capsys)
    assert code == 1
    assert err.startswith(f"{path}:4:1: error: 'tirx.lane_id' op tirx.lane_id must be inside")
    assert out.count("// -----") == 2  # the empty last chunk is an empty module, like mlir-opt


def test_print_diagnostics_prints_and_succeeds(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.mlir"
    path.write_text("%0 = tirx.lane_id : index\n")
    code, out, err = run([str(path), "--print-diagnostics"], capsys)
    assert code == 0 and err == ""
    assert out.startswith(f"{path}:1:1: error: 'tirx.lane_id' op")


def test_output_file_is_written_whole(kernel_file: Path, tmp_path: Path, capsys) -> None:
    target = tmp_path / "out.mlir"
    target.write_text("stale\n")
    code, out, _ = run([str(kernel_file), "-o", str(target)], capsys)
    assert code == 0 and out == ""
    assert target.read_text().startswith("builtin.module {\n  tirx.kernel @k")
    assert [p.name for p in tmp_path.iterdir() if p.name != "kernel.mlir"] == ["out.mlir"]


def test_generic_output_reparses(kernel_file: Path, tmp_path: Path, capsys) -> None:
    code, generic, _ = run([str(kernel_file), "--print-op-generic"], capsys)
    assert code == 0 and '"tirx.kernel"()' in generic
    again = tmp_path / "generic.mlir"
    again.write_text(generic)
    code, custom, _ = run([str(again)], capsys)
    code2, direct, _ = run([str(kernel_file)], capsys)
    assert code == code2 == 0 and custom == direct


# --- start-up stays lazy --------------------------------------------------------------------------

LAZY_SCRIPT = """
import sys
from tirx_mlir.tools.tirx_opt import main
code = main(sys.argv[1:])
mods = set(sys.modules)
print(code, "tirx_mlir.dialects.tirx.tile_ops" in mods, "xdsl.dialects.gpu" in mods,
      "tirx_mlir.transforms.tile_dispatch" in mods, "xdsl.transforms.canonicalize" in mods)
"""


def test_nothing_is_imported_before_it_is_used(tmp_path: Path) -> None:
    path = tmp_path / "plain.mlir"
    path.write_text('"test.op"() : () -> ()\n')
    result = subprocess.run([sys.executable, "-c", LAZY_SCRIPT, str(path), "-o", os.devnull],
                            capture_output=True, text=True, timeout=120)
    assert result.stdout.split() == ["0", "False", "False", "False", "False"], result.stderr


def test_plain_xdsl_opt_reads_tirx_through_the_universe_entry_point(kernel_file: Path) -> None:
    script = "import sys; from xdsl.tools.xdsl_opt import main; sys.argv[0] = 'xdsl-opt'; main()"
    result = subprocess.run([sys.executable, "-c", script, str(kernel_file)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "tirx.kernel @k(%A: !tirx.buffer<128x64xf32, global>)" in result.stdout


def test_every_registered_pipeline_replays_as_a_pass_list() -> None:
    """--print-pipeline output parses back with -p into the same passes, for every pipeline a
    loaded backend registered (a pass missing from registry.passes would break the replay)."""
    from tirx_mlir.pipelines import list_pipelines, pipeline_options
    from tirx_mlir.tools.tirx_opt import TirxOptMain

    driver = TirxOptMain([])
    checked = 0
    for name in list_pipelines():
        if any(default is ... for default in pipeline_options(name).values()):
            continue  # needs options to be built
        passes = driver.build_named_pipeline(name)
        spec = ",".join(str(p.pipeline_pass_spec()) for p in passes)
        again = driver.build_passes(spec)
        assert [type(p) for p in again] == [type(p) for p in passes], name
        assert ",".join(str(p.pipeline_pass_spec()) for p in again) == spec, name
        checked += 1
    assert checked >= 1


# --- mlir-opt's spellings -------------------------------------------------------------------------

TOOL = os.path.join(os.path.dirname(sys.executable), "tirx-opt")


def test_dash_reads_stdin_in_the_real_tool() -> None:
    result = subprocess.run([TOOL, "-", "-p", "cse,dce"], input=KERNEL, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "tirx.exp" in result.stdout and "%dead" not in result.stdout
    bad = subprocess.run([TOOL, "-"], input="%0 = tirx.lane_id : index\n",
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("stdin:1:1: error: 'tirx.lane_id' op")


def test_split_input_file_takes_a_marker(tmp_path: Path, capsys) -> None:
    path = tmp_path / "split.mlir"
    path.write_text('"test.op"() : () -> ()\n// ===\n\n%0 = tirx.lane_id : index\n')
    code, out, err = run([str(path), "--split-input-file=// ===", "--allow-unregistered-dialect"],
                         capsys)
    assert code == 1 and err.startswith(f"{path}:4:1: error: 'tirx.lane_id' op")
    assert out.count("// -----") == 1  # outputs joined by mlir-opt's output marker
    code, out, _ = run([str(path), "--split-input-file", "--allow-unregistered-dialect"], capsys)
    assert code == 1 and "// -----" not in out  # '// ===' is no marker by default: one chunk
    code, _, err = run([str(path), "--split-input-file= "], capsys)
    assert code == 1 and err == "tirx-opt: error: --split-input-file=MARKER: the marker is empty\n"


def test_dump_pass_pipeline_then_runs(kernel_file: Path, capsys) -> None:
    code, out, err = run([str(kernel_file), "--pass-pipeline=cleanup", "--dump-pass-pipeline"],
                         capsys)
    assert code == 0 and "%dead" not in out
    lines = err.splitlines()
    assert lines[0] == "Pass Manager with 3 passes:"
    assert lines[1].startswith("builtin.module(canonicalize") and lines[1].endswith(",cse,dce)")


def test_show_dialects_lists_tirx_and_xdsl_dialects(capsys) -> None:
    code, out, _ = run(["--show-dialects"], capsys)
    assert code == 0 and out.startswith("Available Dialects: ")
    names = out.removeprefix("Available Dialects: ").strip().split(", ")
    assert {"tirx", "arith", "builtin"} <= set(names) and names == sorted(names)


def test_mlir_print_debuginfo_prints_locations(kernel_file: Path, capsys) -> None:
    code, out, _ = run([str(kernel_file), "--mlir-print-debuginfo"], capsys)
    assert code == 0 and f'loc("{kernel_file}":2:' in out
    code, plain, _ = run([str(kernel_file)], capsys)
    assert code == 0 and "loc(" not in plain
