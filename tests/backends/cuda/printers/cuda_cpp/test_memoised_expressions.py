"""The CUDA C++ printer computes each value's expression and non-negativity once per kernel;
printing with those answers recomputed at every use gives the same text (for every example and
every FileCheck input of the printer), so the memo changes the speed and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.utils.exceptions import ParseError

from tirx_mlir.backends.cuda.printers.cuda_cpp.printer import CudaCppPrinter
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError

ROOT = Path(__file__).resolve().parents[5]
INPUTS = sorted((ROOT / "examples" / "cuda").glob("*.mlir")) + \
    sorted((ROOT / "tests" / "filecheck" / "backends" / "cuda" / "printers" / "cuda_cpp")
           .glob("*.mlir"))


class _Forgetful(dict):
    """A memo that keeps nothing."""

    def __setitem__(self, key, value) -> None:
        pass


class _Recomputing(CudaCppPrinter):
    def __init__(self, module) -> None:
        super().__init__(module)
        self._nonneg = _Forgetful()

    def start_function(self, kernel) -> str:
        name = super().start_function(kernel)
        self._exprs = _Forgetful()
        return name


def _printed(printer_class, module) -> str:
    try:
        return printer_class(module).emit()
    except PrintError as err:
        return f"error: {err}"


def _parsed(chunk: str, name: str):
    """The chunk's module; None for an input of a parse-error test (nothing to print)."""
    try:
        return parse_module(chunk, name)
    except ParseError:
        return None


def _modules(path: Path):
    chunks = path.read_text().split("\n// -----\n")
    return [m for m in (_parsed(chunk, str(path)) for chunk in chunks) if m is not None]


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_memoised_printing_prints_the_same(path):
    modules = _modules(path)
    assert modules
    for module in modules:
        assert _printed(CudaCppPrinter, module) == _printed(_Recomputing, module)


def test_the_memo_is_used():
    module = parse_module((ROOT / "examples" / "cuda" / "gemm_mma_sync.mlir").read_text())
    printer = CudaCppPrinter(module)
    printer.emit()
    assert len(printer._exprs) > 50 and len(printer._nonneg) > 20
