"""The PTX printer on IR it must not trust: names that are not PTX identifiers, attribute
strings outside its tables and features the target lacks (IR that skipped verification) are
sanitised or refused with a located error, never copied into the text."""

from __future__ import annotations

import re

import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.diagnostics import op_location
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError

load("cuda")
PTXAS = toolchain.find_tool("ptxas")


def _kernel(name: str, body: str, arch: str = "sm_80", params: str = "") -> str:
    return (f'tirx.kernel @{name}({params}) grid [1] threads [32] target "cuda -arch={arch}" '
            f'{{\n{body}\n  tirx.return\n}}\n')


HOSTILE = ['"ld"', '"a-b"', '"ядро"', '"__import__"', '"0x"', '"bar.sync 0;\\n trap"']


@pytest.mark.skipif(PTXAS is None, reason=toolchain.missing_reason("ptxas"))
def test_hostile_kernel_names_become_unique_ptx_identifiers_that_assemble():
    body = "  %s = cuda.shared_alloc : !tirx.buffer<16xf32, shared>"
    text = "".join(_kernel(name, body) for name in [*HOSTILE, "a_b"])
    ptx = emit_ptx(parse_module(text, "names.mlir"))
    entries = re.findall(r"^\.visible \.entry (\S+)\($", ptx, re.M)
    assert len(set(entries)) == len(HOSTILE) + 1
    assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", e) for e in entries)
    instructions = [line.strip() for line in ptx.splitlines() if line.startswith("    ")]
    assert "trap;" not in instructions and "a_b_1" in entries
    result = toolchain.assemble(ptx, "sm_80", ptxas=PTXAS)
    assert result.ok, result.log


def test_an_attribute_string_outside_the_table_is_a_located_error():
    text = _kernel("k", '  "cuda.fence"() <{scope = "gpu;\\n trap"}> : () -> ()')
    with pytest.raises(PrintError, match=r"fence scope .* is not one the PTX printer prints") \
            as err:
        emit_ptx(parse_module(text, "bad.mlir"))
    assert op_location(err.value.op) == ("bad.mlir", 2, 3)


def test_a_cuda_feature_the_arch_lacks_is_refused_without_the_verifier():
    text = _kernel("k", "  %m = arith.constant -1 : i32\n"
                        "  %e = cuda.elect_sync %m : i32 -> i1")
    with pytest.raises(PrintError, match=r"elect.sync.* needs sm_90 or newer \(PTX ISA 8.0\); "
                                         r"the kernel targets sm_80"):
        emit_ptx(parse_module(text, "arch.mlir"))


def test_a_ptx_op_the_arch_lacks_is_refused_without_the_verifier():
    text = _kernel("k", "  ptx.wgmma_fence")
    with pytest.raises(PrintError, match=r"ptx.wgmma_fence needs sm_90a .*; the kernel targets "
                                         r"sm_80"):
        emit_ptx(parse_module(text, "arch.mlir"))


def test_the_version_is_the_highest_of_the_target_minimum_and_the_features():
    plain = emit_ptx(parse_module(_kernel("k", ""), "v.mlir"))
    evict = emit_ptx(parse_module(_kernel(
        "k", "  %c0 = arith.constant 0 : index\n"
             "  %x = cuda.load %X, %c0 evict evict_first : !tirx.buffer<4xf32, global>, index "
             "-> f32", params="%X: !tirx.buffer<4xf32, global>"), "v.mlir"))
    hopper = emit_ptx(parse_module(_kernel("k", "", arch="sm_90a"), "v.mlir"))
    assert plain.startswith(".version 7.0\n.target sm_80\n.address_size 64\n")
    assert evict.startswith(".version 7.4\n")
    assert hopper.startswith(".version 8.0\n.target sm_90a\n")


@pytest.mark.parametrize("arch", ["sm_1000", "sm_70", "sm_90f"])
def test_an_arch_ptxas_has_no_target_for_is_a_located_error(arch):
    """Found by tests/property/cuda_fuzz_campaign.py: ``.target sm_1000`` was printed and ptxas
    refused it; the arch pattern admits any number, the printer only what ptxas assembles."""
    with pytest.raises(PrintError, match=rf"ptxas has no target {arch}; PTX targets: sm_75, ") \
            as err:
        emit_ptx(parse_module(_kernel("k", "", arch=arch), "arch.mlir"))
    assert op_location(err.value.op) == ("arch.mlir", 1, 1)


def test_a_non_global_parameter_is_a_located_error():
    text = _kernel("k", "", params="%S: !tirx.buffer<4xf32, shared>")
    with pytest.raises(PrintError, match=r"passes global buffers"):
        emit_ptx(parse_module(text, "p.mlir"))


def test_the_cyclic_collector_is_off_while_printing_and_restored_after(monkeypatch):
    """`PtxFrame.emit_module` plans or expands the register loops and prints with the collector
    paused (unroll's docstring)."""
    import gc

    from tirx_mlir.backends.cuda.printers.ptx.target import PtxPrinter

    seen = []
    prepare = PtxPrinter.prepare_register_loops
    monkeypatch.setattr(PtxPrinter, "prepare_register_loops",
                        lambda self, loops=None: (seen.append(gc.isenabled()),
                                                  prepare(self, loops))[1])
    assert gc.isenabled()
    emit_ptx(parse_module(_kernel("k", ""), "gc.mlir"))
    assert seen == [False] and gc.isenabled()
