"""What starting a tool and compiling import: no numpy or ml_dtypes on the compile path, and no
xDSL dialect an empty module does not use.

numpy (and ml_dtypes, which takes most of a second to import) serve the interpreter, the runtime
and the printers that write arrays; ``import tirx_mlir``, ``tirx-opt`` on an empty module and a
whole Trainium compile (``--pass-pipeline=trn ... -t nki``) read only the static dtype table.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARRAY_MODULES = ("numpy", "ml_dtypes")

PROBE = """
import sys
names = sys.argv[1].split(",")
argv = sys.argv[2:]
if argv:
    sys.argv = ["tirx-opt", *argv]
    from tirx_mlir.tools.tirx_opt import main
    try:
        main()
    except SystemExit as done:
        assert not done.code, done.code
else:
    import tirx_mlir
print(sorted(m for m in sys.modules if any(m == n or m.startswith(n + ".") for n in names)))
"""


def imported(*argv: str, names: tuple[str, ...] = ARRAY_MODULES) -> list[str]:
    """The modules among ``names`` (and their submodules) that ``tirx-opt argv`` (or, without
    argv, ``import tirx_mlir``) imports."""
    out = subprocess.run([sys.executable, "-c", PROBE, ",".join(names), *argv],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return eval(out.stdout.strip().splitlines()[-1])  # the printed list of module names


def test_import_tirx_mlir_imports_no_numpy():
    assert imported() == []


def test_import_tirx_mlir_imports_no_xdsl():
    """The package's import (backends registered) reads no xDSL: the tools install their
    dataclass-code cache after it, so xDSL's classes defined there would miss the cache."""
    assert imported(names=("xdsl",)) == []


def test_a_trn_compile_without_loops_imports_no_scf(tmp_path):
    """The passes and the NKI printer name scf's classes by module (`type_tests.ClassRef`): a
    kernel without loops (softmax_128x512) compiles without xDSL's scf; matmul_512 builds a
    loop and imports it."""
    out = str(tmp_path / "out.py")
    names = ("xdsl.dialects.scf",)
    kernels = ROOT / "examples" / "trn"
    assert imported("--pass-pipeline=trn", str(kernels / "softmax_128x512.mlir"), "-t", "nki",
                    "-o", out, names=names) == []
    assert imported("--pass-pipeline=trn", str(kernels / "matmul_512.mlir"), "-t", "nki",
                    "-o", out, names=names) == list(names)


def test_tirx_opt_on_an_empty_module_imports_no_numpy(tmp_path):
    empty = tmp_path / "empty.mlir"
    empty.write_text("builtin.module {}\n")
    assert imported(str(empty), "-o", str(tmp_path / "out.mlir")) == []


def test_tirx_opt_on_an_empty_module_imports_no_arith(tmp_path):
    """Verifying reads constants by op name: xDSL's arith (tens of ms) loads only when used."""
    empty = tmp_path / "empty.mlir"
    empty.write_text("builtin.module {}\n")
    assert imported(str(empty), "-o", str(tmp_path / "out.mlir"),
                    names=("xdsl.dialects.arith",)) == []


def test_reading_arith_parses_only_the_formats_it_reads(tmp_path):
    """xDSL's arith defines 45 ops with declarative formats; each is parsed when an op of that
    kind is first read or printed (`tirx_mlir.lazy_formats`), not when arith is imported."""
    source = tmp_path / "constant.mlir"
    source.write_text("builtin.module {\n  %0 = arith.constant 1 : index\n}\n")
    probe = ("import sys\nsys.argv = ['tirx-opt', *sys.argv[1:]]\n"
             "from tirx_mlir.tools.tirx_opt import main\n"
             "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code\n"
             "from tirx_mlir import lazy_formats\nprint(lazy_formats.parsed)\n")
    out = tmp_path / "out.mlir"
    run = subprocess.run([sys.executable, "-c", probe, str(source), "-o", str(out)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    assert eval(run.stdout.strip().splitlines()[-1]) == ["arith.constant"]
    assert "arith.constant 1 : index" in out.read_text()


LAZY_TOOL_MODULES = ("tirx_mlir.tools.reproducer", "tirx_mlir.tools.verify_diagnostics", "json",
                     "difflib", "platform")
"""What only an error, ``--run-reproducer``, ``--verify-diagnostics``, ``--diff-passes``, a
did-you-mean hint or a host-target query (``platform``) needs: a clean run does not import
them."""


@pytest.mark.parametrize("module", LAZY_TOOL_MODULES)
def test_tirx_opt_on_an_empty_module_imports_no_error_path_module(module, tmp_path):
    empty = tmp_path / "empty.mlir"
    empty.write_text("builtin.module {}\n")
    assert imported(str(empty), "-o", str(tmp_path / "out.mlir"), names=(module,)) == []


def test_a_trn_compile_imports_no_error_path_module(tmp_path):
    path = ROOT / "examples" / "trn" / "nki_add_1.mlir"
    assert imported("--pass-pipeline=trn", str(path), "-t", "nki", "-o", str(tmp_path / "out.py"),
                    names=LAZY_TOOL_MODULES) == []


@pytest.mark.parametrize("kernel", ["softmax_128x512", "matmul_512", "layernorm_affine_rows"])
def test_a_trn_compile_to_nki_imports_no_numpy(kernel, tmp_path):
    path = ROOT / "examples" / "trn" / f"{kernel}.mlir"
    assert imported("--pass-pipeline=trn", str(path), "-t", "nki", "-o",
                    str(tmp_path / "out.py")) == []


def test_a_trn_compile_to_nki_does_not_load_the_legacy_printer(tmp_path):
    """``-t nki`` imports the current API's printer only (backends/trn/printers/targets.py);
    ``-t nki-legacy`` the legacy one."""
    path = ROOT / "examples" / "trn" / "nki_add_1.mlir"
    printers = ("tirx_mlir.backends.trn.printers.legacy", "tirx_mlir.backends.trn.printers.current")
    assert imported("--pass-pipeline=trn", str(path), "-t", "nki", "-o", str(tmp_path / "out.py"),
                    names=printers) == [printers[1]]
    assert imported("--pass-pipeline=trn", str(path), "-t", "nki-legacy", "-o",
                    str(tmp_path / "legacy.py"), names=printers) == [printers[0]]
