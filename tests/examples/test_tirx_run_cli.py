"""tirx-run's command line: passes before the run, saved arguments that replay, and every kind of
bad input reported as ``file:line:col: error:`` or ``tirx-run: error:`` with exit status 1."""

import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tirx_mlir.tools import tirx_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SOFTMAX = str(EXAMPLES / "softmax.mlir")


def cli(capsys, *argv):
    rc = tirx_run.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return rc, out, err


def test_random_inputs_are_reproducible_and_saved_arguments_replay(tmp_path, capsys):
    rc, first, _ = cli(capsys, EXAMPLES / "rmsnorm.mlir", "--seed", 7, "--save", tmp_path / "a")
    assert rc == 0
    rc, again, _ = cli(capsys, EXAMPLES / "rmsnorm.mlir", "--seed", 7)
    assert again == first
    saved = tmp_path / "a"
    assert sorted(p.name for p in saved.iterdir()) == ["X.npy", "Y.npy", "gamma.npy"]
    rc, replay, _ = cli(capsys, EXAMPLES / "rmsnorm.mlir", "--inputs", saved / "X.npy",
                        saved / "gamma.npy", "--save", tmp_path / "b")
    assert rc == 0 and replay == first
    y1 = np.load(saved / "Y.npy").view(ml_dtypes.bfloat16)
    y2 = np.load(tmp_path / "b" / "Y.npy").view(ml_dtypes.bfloat16)
    assert (y1 == y2).all()


def test_summary_reports_nan_of_unwritten_memory(tmp_path, capsys):
    src = Path(SOFTMAX).read_text().replace("  tirx.copy cta %y, %t", "  // dropped: %y, %t")
    path = tmp_path / "partial.mlir"
    path.write_text(src)
    rc, out, _ = cli(capsys, path)
    assert rc == 0
    assert out.strip().endswith("min -  max -  mean -  nan 131072")


def test_passes_run_before_the_kernel(capsys):
    rc, plain, _ = cli(capsys, SOFTMAX)
    rc2, piped, _ = cli(capsys, SOFTMAX, "--pass-pipeline", "cleanup", "-p", "cse", "--print-ir")
    assert rc == rc2 == 0
    assert piped.startswith("builtin.module") and piped.rstrip().endswith(plain.rstrip())


def test_cast_inputs(tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.random.default_rng(0).standard_normal((512, 256)))
    rc, _, err = cli(capsys, SOFTMAX, "--inputs", tmp_path / "x.npy")
    assert rc == 1
    assert "softmax.mlir:6:1: error: 'tirx.kernel' op input %X of @softmax has dtype f64" in err
    assert "--cast-inputs" in err
    rc, out, _ = cli(capsys, SOFTMAX, "--inputs", tmp_path / "x.npy", "--cast-inputs")
    assert rc == 0 and out.startswith("%Y: [512, 256] f32")


BAD_IR = {
    "parse": ("tirx.kernel @k() grid [1] threads [1] {\n  %x = tirx.bogus\n  tirx.return\n}\n",
              ":2:8: error: unknown operation 'tirx.bogus'"),
    "verify": ("tirx.kernel @k(%a: !tirx.buffer<8xf32, global>) grid [1] threads [1] {\n"
               "  %v = tirx.slice %a[6] [4] : !tirx.buffer<8xf32, global> -> "
               "!tirx.buffer<4xf32, global>\n  tirx.return\n}\n",
               ":2:3: error: 'tirx.slice' op slice dim 0: [6, 9] is out of bounds for extent 8"),
    "runtime": ("tirx.kernel @k(%a: !tirx.buffer<8xf32, global>) grid [1] threads [128] {\n"
                "  %t = tirx.lane_id : index\n  tirx.return\n}\n",
                ":2:3: error: 'tirx.lane_id' op [scope] a per-thread scope id has no value"),
}


@pytest.mark.parametrize("kind", list(BAD_IR))
def test_bad_ir_is_a_located_error(kind, tmp_path, capsys):
    text, message = BAD_IR[kind]
    path = tmp_path / f"{kind}.mlir"
    path.write_text(text)
    rc, _, err = cli(capsys, path)
    assert rc == 1
    assert err.startswith(f"{path}{message}"), err


@pytest.mark.parametrize("argv,message", [
    (["missing.mlir"], "tirx-run: error: cannot read 'missing.mlir': No such file or directory"),
    ([SOFTMAX, "--entry", "nope"], "error: no kernel named @nope; the module has: @softmax"),
    ([SOFTMAX, "--inputs", "a.npy", "b.npy"],
     "tirx-run: error: @softmax takes 1 input(s) (%X), got 2 --inputs files"),
    ([SOFTMAX, "--inputs", "nothere.npy"],
     "tirx-run: error: cannot read 'nothere.npy': No such file or directory"),
    ([SOFTMAX, "-p", "no-such-pass"], "tirx-run: error: unknown pass 'no-such-pass'"),
    ([SOFTMAX, "--pass-pipeline", "nope"], "tirx-run: error: unknown pipeline 'nope'"),
    ([SOFTMAX, "--seed", "x"], "tirx-run: error: argument --seed: invalid int value: 'x'"),
    ([], "tirx-run: error: the following arguments are required: file"),
])
def test_bad_command_lines(argv, message, capsys):
    rc, _, err = cli(capsys, *argv)
    assert rc == 1
    assert message in err, err


def test_wrong_input_shape(tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.zeros((4, 4), np.float32))
    rc, _, err = cli(capsys, SOFTMAX, "--inputs", tmp_path / "x.npy")
    assert rc == 1
    assert "error: 'tirx.kernel' op argument %X of @softmax has shape [4, 4], but the " \
           "parameter is !tirx.buffer<512x256xf32, global>" in err


def test_several_kernels_without_an_entry_is_located_at_the_second(tmp_path):
    path = tmp_path / "two.mlir"
    kernel = ("tirx.kernel @{}(%A: !tirx.buffer<128x64xf32, global>) grid [1] threads [128] {{\n"
              "  tirx.return\n}}\n")
    path.write_text(kernel.format("a") + kernel.format("b"))
    result = subprocess.run([sys.executable, "-m", "tirx_mlir.tools.tirx_run", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert f"{path}:4:1: error: 'tirx.kernel' op the module has 2 kernels (@a, @b)" \
        in result.stderr
