"""Every IR example (``examples/**/*.mlir``) has a Python twin at the mirrored path under
``examples/python/`` (``examples/cuda/tile/gemm_sm80.mlir`` -> ``examples/python/cuda/tile/
gemm_sm80.py``) that builds the same IR, structurally, and gives the same interpreter result.

The result is compared on the same inputs: the twin's ``inputs()`` where it has one (tensor
maps, NVSHMEM buffers, data whose sums are exact), else random ones for the kernel's parameters;
CUDA-level kernels run on the SIMT interpreter (with the twin's ``SIMT`` options, e.g. ``pes``).
A deliberately buggy example (examples/cuda/bugs/) fails in both with the same interpreter
error, the twin's located at its own Python line. A twin with a ``reference()`` is checked
against numpy too.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.interpreter import KernelRunner
from tirx_mlir.located_parser import parse_module
from tirx_testing.ir_structure import structural_diff

ROOT = Path(__file__).resolve().parents[3]
PYTHON = ROOT / "examples" / "python"
IR_EXAMPLES = sorted(p.relative_to(ROOT / "examples") for p in (ROOT / "examples").rglob("*.mlir")
                     if PYTHON not in p.parents)
LOCATION = re.compile(r"[\w./<>-]+\.(?:mlir|py):\d+:\d+")


def twin_path(example: Path) -> Path:
    return PYTHON / example.with_suffix(".py")


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"twin_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_of(module):
    from tirx_mlir.script import Kernel

    (k,) = [v for v in vars(module).values() if isinstance(v, Kernel)]
    return k


def ir_of(example: Path):
    return parse_module((ROOT / "examples" / example).read_text(), f"examples/{example}")


def interpret(module, arrays: list[np.ndarray], simt: dict | None):
    """(outputs per PE) or ("error", message with locations masked, the error)."""
    try:
        if simt:
            from tirx_mlir.backends.cuda.interpreter import simulate

            run = simulate(module, None, *[a.copy() for a in arrays], **simt)
            return run.outputs_per_pe or [run.outputs]
        outputs = KernelRunner(module)(*[a.copy() for a in arrays])
        return [tuple(outputs) if isinstance(outputs, (tuple, list)) else (outputs,)]
    except TirxError as err:
        return ("error", LOCATION.sub("<loc>", str(err).split("\n")[0]), err)


IDS = [p.as_posix() for p in IR_EXAMPLES]


def test_the_examples_are_found():
    assert len(IR_EXAMPLES) >= 57 and Path("cuda/tile/gemm_sm80.mlir") in IR_EXAMPLES


@pytest.mark.parametrize("example", IR_EXAMPLES, ids=IDS)
def test_twin_builds_the_same_ir(example):
    twin = twin_path(example)
    assert twin.exists(), f"examples/{example.as_posix()} has no Python twin at " \
                          f"{twin.relative_to(ROOT)}"
    diff = structural_diff(kernel_of(load(twin)).ir, ir_of(example))
    assert diff is None, diff


@pytest.mark.parametrize("example", IR_EXAMPLES, ids=IDS)
def test_twin_gives_the_same_interpreter_result(example):
    twin = twin_path(example)
    if not twin.exists():
        pytest.fail(f"no Python twin at {twin.relative_to(ROOT)}")
    module = load(twin)
    ir = ir_of(example)
    simt = getattr(module, "SIMT", None)
    arrays = module.inputs() if hasattr(module, "inputs") else \
        KernelRunner(ir).random_inputs(np.random.default_rng(0))
    want = interpret(ir, arrays, simt)
    got = interpret(kernel_of(module).ir, arrays, simt)
    if "bugs" in example.parts:
        assert want[0] == "error" and got[0] == "error", (want, got)
        assert got[1] == want[1]
        assert _error_file(got[2]) == str(twin), str(got[2])  # at the twin's Python line
        return
    assert want[0] != "error" and got[0] != "error", (want, got)
    for pe_want, pe_got in zip(want, got, strict=True):
        for w, g in zip(pe_want, pe_got, strict=True):
            np.testing.assert_array_equal(g, w)
    if hasattr(module, "reference"):
        outputs = got[0]
        expected = module.reference(*arrays)
        expected = expected if isinstance(expected, tuple) else (expected,)
        low = any(a.dtype.kind == "f" and a.dtype.itemsize <= 2 or a.dtype.kind == "V"
                  for a in [*arrays, *map(np.asarray, outputs)])
        tol = getattr(module, "TOLERANCE", 2e-2 if low else 1e-4)  # f16/bf16 data: 2e-2
        for g, e in zip(outputs, expected):
            np.testing.assert_allclose(np.asarray(g, np.float32), np.asarray(e, np.float32),
                                       rtol=tol, atol=tol)


def _error_file(err: TirxError) -> str | None:
    match = LOCATION.search(str(err))
    return match.group(0).rsplit(":", 2)[0] if match else None


def test_every_twin_has_its_example():
    """No twin without an IR example (a renamed example leaves no stale twin)."""
    twins = {p.relative_to(PYTHON).with_suffix(".mlir") for p in PYTHON.rglob("*.py")}
    assert twins <= set(IR_EXAMPLES), sorted(map(str, twins - set(IR_EXAMPLES)))


def test_the_comparison_tells_kernels_apart():
    """Each twin differs from the next example's IR (the check can fail)."""
    for i, example in enumerate(IR_EXAMPLES):
        other = IR_EXAMPLES[(i + 1) % len(IR_EXAMPLES)]
        ir = kernel_of(load(twin_path(example))).ir
        assert structural_diff(ir, ir_of(other)) is not None, (example, other)
