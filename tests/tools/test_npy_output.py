"""bf16/fp8 arrays written by ``tirx-run --save`` (tools/npy_output.py) load back with plain
numpy + ml_dtypes as the same values, and ``tirx-run --inputs`` reads them back."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tirx_mlir.tools.npy_input import read_npy
from tirx_mlir.tools.npy_output import write_npy
from tirx_mlir.tools.tirx_run import main

KERNEL = """\
tirx.kernel @k(%A: !tirx.buffer<4x8xbf16, global>, %C: !tirx.buffer<8xf8E5M2, global>) -> (%B: !tirx.buffer<4x8xbf16, global>, %D: !tirx.buffer<8xf8E4M3FN, global>) grid [1] threads [1] {
  tirx.exp %B, %A : !tirx.buffer<4x8xbf16, global>, !tirx.buffer<4x8xbf16, global>
  tirx.copy %D, %C : !tirx.buffer<8xf8E4M3FN, global>, !tirx.buffer<8xf8E5M2, global>
  tirx.return
}
"""

# A fresh interpreter with nothing but numpy and ml_dtypes: what a user's script sees.
LOAD_SCRIPT = """
import sys, ml_dtypes, numpy as np
for path in sys.argv[1:]:
    a = np.load(path)
    print(a.dtype, a.shape, repr(a.astype(np.float64).ravel().tolist()))
"""


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, ml_dtypes.float8_e4m3fn,
                                   ml_dtypes.float8_e5m2])
def test_write_npy_round_trips_through_np_load(dtype) -> None:
    a = np.array([[1.5, -2.25, 0.0], [np.inf, -0.125, 3.0]], dtype=np.float32).astype(dtype)
    buf = io.BytesIO()
    write_npy(buf, a)
    buf.seek(0)
    got = np.load(buf)
    assert got.dtype == a.dtype and got.shape == a.shape
    np.testing.assert_array_equal(got.astype(np.float32), a.astype(np.float32))


def test_plain_dtypes_are_what_np_save_writes() -> None:
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    ours, theirs = io.BytesIO(), io.BytesIO()
    write_npy(ours, a)
    np.save(theirs, a)
    assert ours.getvalue() == theirs.getvalue()


def test_a_fortran_ordered_array_is_written_in_c_order() -> None:
    a = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3).astype(ml_dtypes.bfloat16))
    buf = io.BytesIO()
    write_npy(buf, a)
    buf.seek(0)
    np.testing.assert_array_equal(np.load(buf).astype(np.float32), a.astype(np.float32))


def test_tirx_run_save_loads_back_and_replays(tmp_path: Path, capsys) -> None:
    kernel = tmp_path / "k.mlir"
    kernel.write_text(KERNEL)
    out = tmp_path / "out"
    assert main([str(kernel), "--save", str(out)]) == 0
    first = capsys.readouterr().out
    paths = [str(out / f"{n}.npy") for n in "ABCD"]
    loaded = subprocess.run([sys.executable, "-c", LOAD_SCRIPT, *paths], capture_output=True,
                            text=True, timeout=120)
    assert loaded.returncode == 0, loaded.stderr
    dtypes = [line.split()[0] for line in loaded.stdout.splitlines()]
    assert dtypes == ["bfloat16", "bfloat16", "float8_e5m2", "float8_e4m3fn"]  # A, B, C, D
    a, b = read_npy(paths[0]), read_npy(paths[1])
    np.testing.assert_array_equal(b, np.exp(a.astype(np.float64)).astype(ml_dtypes.bfloat16))
    # --inputs reads the saved files back, and the run reproduces the saved outputs exactly
    assert main([str(kernel), "--inputs", paths[0], paths[2], "--expect-dir", str(out),
                 "--atol", "0", "--rtol", "0"]) == 0
    again = capsys.readouterr().out
    assert again.splitlines()[:2] == first.splitlines()[:2]
    assert again.count("matches") == 2


def test_a_saved_type_that_is_not_the_parameter_type_is_refused(tmp_path: Path, capsys) -> None:
    kernel = tmp_path / "k.mlir"
    kernel.write_text(KERNEL)
    out = tmp_path / "out"
    assert main([str(kernel), "--save", str(out)]) == 0
    capsys.readouterr()
    wrong = tmp_path / "a_as_f8.npy"
    with open(wrong, "wb") as f:
        write_npy(f, read_npy(str(out / "A.npy")).astype(ml_dtypes.float8_e4m3fn))
    assert main([str(kernel), "--inputs", str(wrong), str(out / "C.npy")]) == 1
    err = capsys.readouterr().err
    assert "input %A of @k has dtype f8E4M3FN, but the parameter is " \
           "!tirx.buffer<4x8xbf16, global>" in err and "Traceback" not in err
