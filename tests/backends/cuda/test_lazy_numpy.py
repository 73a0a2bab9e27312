"""`lazy_numpy`: the CUDA compile path's modules import numpy on first use, so compiling a kernel
that needs no array arithmetic (softmax, rmsnorm) never imports it, and a module that uses numpy
gets the real module after its first use."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tirx_testing.fresh_imports import packages_imported_compiling

from tirx_mlir.backends.cuda.lazy_numpy import lazy_numpy

ROOT = Path(__file__).resolve().parents[3]

LAZY_MODULES = [f"tirx_mlir.backends.cuda.{m}" for m in (
    "layout.swizzle", "layout.partition", "layout.runs", "layout.reduction_plan",
    "layout.fragments", "dispatch.common", "dispatch.fragment_io", "dispatch.permute_layout",
    "dispatch.reduction", "interpreter.tensor_core.descriptor", "interpreter.tensor_core.ldmatrix",
    "interpreter.tensor_core.mma_fragments", "interpreter.tensor_core.packing")]


def test_first_use_binds_numpy_itself_in_the_namespace():
    import numpy

    namespace: dict = {}
    namespace["np"] = lazy_numpy(namespace)
    assert namespace["np"] is not numpy
    assert namespace["np"].arange(3).tolist() == [0, 1, 2]
    assert namespace["np"] is numpy


def test_the_modules_import_without_numpy():
    """None of them reads ``np`` at import time (numpy made unimportable in a fresh process)."""
    probe = ("import importlib, sys\nsys.modules['numpy'] = None\n"
             f"for name in {LAZY_MODULES!r}:\n    importlib.import_module(name)\nprint('ok')\n")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


@pytest.mark.parametrize("example", ["softmax", "rmsnorm"])
def test_a_small_kernels_compile_to_ptx_imports_no_numpy(example: str, tmp_path) -> None:
    source = ROOT / "examples" / "cuda" / "tile" / f"{example}.mlir"
    out = tmp_path / "out.ptx"
    assert packages_imported_compiling(source, out, ("numpy", "ml_dtypes"),
                                       "--pass-pipeline=cuda", "-t", "ptx") == []
    assert ".entry" in (tmp_path / "out.ptx").read_text()
