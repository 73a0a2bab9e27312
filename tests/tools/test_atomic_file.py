"""Output files: all or none, through links, errors that name the user's path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.tools.atomic_file import (OutputFileError, write_atomically,
                                         write_files_atomically)

OK = "func.func @f() {\n  func.return\n}\n"


def tirx_opt(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tirx_mlir.tools.tirx_opt", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("target, reason", [
    ("missing/out.mlir", "no such directory 'missing'"),
    (".", "Is a directory"),
    ("/dev/full", "No space left on device"),
])
def test_unwritable_output_names_the_users_path(tmp_path: Path, target: str, reason: str) -> None:
    if target == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    (tmp_path / "in.mlir").write_text(OK)
    result = tirx_opt("in.mlir", "-o", target, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == f"tirx-opt: error: cannot write '{target}': {reason}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.mlir"]


def test_a_symbolic_link_is_written_through_and_kept(tmp_path: Path) -> None:
    (tmp_path / "real.mlir").write_text("old\n")
    (tmp_path / "link.mlir").symlink_to("real.mlir")
    write_atomically(str(tmp_path / "link.mlir"), OK)
    assert (tmp_path / "link.mlir").is_symlink()
    assert (tmp_path / "real.mlir").read_text() == OK


def test_a_hard_link_is_written_in_place_and_kept(tmp_path: Path) -> None:
    (tmp_path / "a.mlir").write_text("old\n")
    os.link(tmp_path / "a.mlir", tmp_path / "b.mlir")
    write_atomically(str(tmp_path / "b.mlir"), OK)
    assert (tmp_path / "a.mlir").read_text() == OK
    assert os.stat(tmp_path / "a.mlir").st_nlink == 2


def test_a_failed_batch_leaves_every_old_file_intact(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old a")
    (tmp_path / "b.txt").write_text("old b")

    def broken(f):
        f.write(b"half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputFileError, match=r"cannot write '.*b.txt': No space left"):
        write_files_atomically([(str(tmp_path / "a.txt"), lambda f: f.write(b"new a")),
                                (str(tmp_path / "b.txt"), broken)])
    assert (tmp_path / "a.txt").read_text() == "old a"
    assert (tmp_path / "b.txt").read_text() == "old b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


def test_tirx_run_save_is_all_or_none(tmp_path: Path) -> None:
    kernel = tmp_path / "k.mlir"
    buf = "!tirx.buffer<128x64xf32, global>"
    kernel.write_text(f"tirx.kernel @k(%A: {buf}) -> (%B: {buf}) grid [1] threads [128] {{\n"
                      f"  tirx.copy cta %B, %A : {buf}, {buf}\n  tirx.return\n}}\n")
    out = tmp_path / "out"
    out.mkdir()
    np.save(out / "A.npy", np.zeros(3))
    (out / "B.npy").mkdir()  # B cannot be written: A must keep its old contents
    result = subprocess.run([sys.executable, "-m", "tirx_mlir.tools.tirx_run", str(kernel),
                             "--save", str(out)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert f"cannot write '{out / 'B.npy'}'" in result.stderr
    assert np.load(out / "A.npy").shape == (3,)
    assert sorted(p.name for p in out.iterdir()) == ["A.npy", "B.npy"]
