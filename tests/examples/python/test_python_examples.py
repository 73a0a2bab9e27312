"""Every Python example in examples/python/ builds the same IR (structurally) as its IR twin in
examples/ and gives the same interpreter result as the twin and as numpy."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tirx_mlir
from tirx_mlir.located_parser import parse_module
from tirx_testing.ir_structure import structural_diff

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted((ROOT / "examples" / "python").rglob("*.py"))


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kernel_of(module):
    from tirx_mlir.script import Kernel

    (k,) = [v for v in vars(module).values() if isinstance(v, Kernel)]
    return k


def test_every_backend_has_the_examples_the_issue_lists():
    names = {p.relative_to(ROOT / "examples" / "python").as_posix() for p in EXAMPLES}
    for backend in ("trn", "cuda"):
        for name in ("softmax", "rmsnorm", "gemm"):
            assert f"{backend}/{name}.py" in names
    assert {"trn/layernorm.py", "trn/matmul_bias_relu.py", "trn/attention_scores.py",
            "causal_softmax.py", "cuda/bias_silu.py", "cuda/layernorm.py",
            "cuda/matmul_bias_relu.py", "cuda/attention_scores.py"} <= names
    assert {"cuda/warp_reduce.py", "cuda/vector_add.py"} <= names  # Tx.cuda / Tx.ptx twins


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_same_ir_as_the_twin(path):
    example = load(path)
    twin = parse_module((ROOT / example.IR_TWIN).read_text(), example.IR_TWIN)
    diff = structural_diff(kernel_of(example).ir, twin)
    assert diff is None, diff


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_same_result_as_the_twin_and_numpy(path):
    example = load(path)
    kernel = kernel_of(example)
    args = example.inputs()  # copied per run: an output passed in (atomics add to it) is written
    got = kernel.interpret(*[a.copy() for a in args])
    twin = tirx_mlir.interpret((ROOT / example.IR_TWIN).read_text(), None,
                               *[a.copy() for a in args])
    np.testing.assert_array_equal(got, twin)
    want = example.reference(*args)
    tol = 2e-2 if got.dtype == np.float16 or args[0].dtype == np.float16 else 1e-4
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=tol,
                               atol=tol)


def test_the_comparison_tells_kernels_apart():
    """Each example differs from every other example's twin (the check can fail)."""
    examples = [load(p) for p in EXAMPLES]
    for i, example in enumerate(examples):
        other = examples[(i + 1) % len(examples)]
        twin = parse_module((ROOT / other.IR_TWIN).read_text(), other.IR_TWIN)
        assert structural_diff(kernel_of(example).ir, twin) is not None
