"""Ops of unregistered dialects: each tool says what it can do with them, naming the op as the
user wrote it (issue #15 items 6 and 9)."""

from __future__ import annotations

from tirx_mlir.tools.tirx_opt import main as opt_main
from tirx_mlir.tools.tirx_run import main as run_main

KERNEL = 'tirx.kernel @k() grid [1] threads [1] {\n  "foo.bar"() : () -> ()\n  tirx.return\n}\n'


def test_tirx_run_does_not_suggest_a_flag_it_lacks(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    assert run_main([str(path)]) == 1
    err = capsys.readouterr().err
    assert "unknown operation 'foo.bar'" in err and "--allow-unregistered-dialect" not in err


def test_a_printer_names_the_opaque_op(tmp_path, capsys):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    assert opt_main([str(path), "--allow-unregistered-dialect", "-t", "nki"]) == 1
    err = capsys.readouterr().err
    assert "'foo.bar' op" in err and "cannot print 'foo.bar', an op of an unregistered" in err
    assert "builtin.unregistered" not in err.split("note:")[0]


def test_versions(capsys):
    for main in (opt_main, run_main):
        try:
            main(["--version"])
        except SystemExit as exit_:
            assert exit_.code == 0
    out = capsys.readouterr().out
    assert "tirx-opt 0.1.0" in out and "tirx-run 0.1.0" in out
