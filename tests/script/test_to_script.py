"""``module_to_script``: tile-level IR printed as front-end source parses back to the same IR."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.located_parser import parse_module
from tirx_mlir.script import Kernel
from tirx_mlir.script.to_script import module_to_script
from tirx_testing.ir_structure import structural_diff

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "examples").rglob("*.mlir"))
"""Every IR example (item 5 of the front-end issue: tested on every example)."""


def parse_script(source: str, tmp_path: Path):
    path = tmp_path / "printed.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("printed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [v for v in vars(module).values() if isinstance(v, Kernel)]


def test_every_example_is_enumerated():
    assert len(EXAMPLES) >= 57 and "examples/cuda/tma_wgmma.mlir" in EXAMPLES


@pytest.mark.parametrize("example", EXAMPLES)
def test_round_trip(example, tmp_path):
    module = parse_module((ROOT / example).read_text(), example)
    source = module_to_script(module)
    kernels = parse_script(source, tmp_path)
    assert len(kernels) == 1, source
    diff = structural_diff(kernels[0].ir, module)
    assert diff is None, f"{diff}\n{source}"


def test_ir_after_dispatch_is_refused_naming_the_op():
    import tirx_mlir

    lowered = tirx_mlir.compile(ROOT / "examples/trn/add.mlir", cache=False).lowered
    with pytest.raises(TirxError, match="cannot print nki.* as front-end source"):
        module_to_script(lowered)


def test_tirx_opt_prints_it():
    import subprocess
    import sys

    opt = Path(sys.executable).parent / "tirx-opt"
    run = subprocess.run([str(opt), str(ROOT / "examples/softmax.mlir"), "-t", "tx"],
                         capture_output=True, text=True, check=True)
    assert run.stdout == module_to_script(parse_module((ROOT / "examples/softmax.mlir")
                                                       .read_text(), "softmax.mlir"))
    assert "@Tx.kernel(grid=(4,), threads=(128,))" in run.stdout


def test_a_workspace_round_trips_as_a_keyword():
    """A variadic operand (the caller's scratch) is a keyword both ways in: the builder takes
    ``workspace=w`` and ``-t tx`` prints it so."""
    from tirx_mlir import script as Tx
    from tirx_mlir.script.to_script import module_to_script

    with Tx.kernel("k", inputs={"A": Tx.buffer((128, 512))}, outputs={"B": Tx.buffer((128, 1))},
                   target="aws/trn1/trn1.2xlarge") as k:
        A, B = k.args
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        r = Tx.alloc((128, 1), scope="trn.sbuf")
        w = Tx.alloc((128, 4), scope="trn.sbuf")
        Tx.copy(a, A)
        Tx.sum(r, a, axes=[-1], workspace=w)
        Tx.copy(B, r)
    k.module.verify()
    assert "workspace [%w]" in str(k.module)
    assert "Tx.sum(r, a, workspace=w, axes=[-1])" in module_to_script(k.module)


def test_a_value_named_like_a_builtin_is_renamed():
    """A buffer named ``range`` would shadow the ``range`` the printed loops call."""
    from tirx_mlir import script as Tx
    from tirx_mlir.script.to_script import module_to_script

    with Tx.kernel("k", inputs={"A": Tx.buffer((8, 8))}, outputs={"B": Tx.buffer((8, 8))}) as k:
        A, B = k.args
        range = Tx.alloc((8, 8), scope="shared")  # noqa: A001 - the point of the test
        Tx.cta.copy(range, A)
        Tx.cta.copy(B, range)
    text = module_to_script(k.module)
    assert "v_range = Tx.alloc" in text and "Tx.cta.copy(v_range, A)" in text
