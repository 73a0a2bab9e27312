"""The cuda toolchain of tirx_mlir.compile: sources, the cubin and its statistics, signatures."""

from __future__ import annotations

import pytest

import tirx_mlir
from tirx_mlir.backends.cuda.runtime.toolchain import (dynamic_shared_bytes,
                                                       parse_ptxas_verbose, ptx_instruction_count)
from tirx_mlir.backends.cuda.toolchain import find_tool
from tirx_mlir.interpreter.launch import find_kernel
from tirx_mlir.located_parser import parse_module

needs_ptxas = pytest.mark.skipif(find_tool("ptxas") is None, reason="ptxas not installed")

PTXAS_LOG = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'warp_reduce' for 'sm_80'
ptxas info    : Function properties for warp_reduce
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 12 registers, used 1 barriers, 4096 bytes smem, 368 bytes cmem[0]
"""


def test_ptxas_verbose_is_parsed():
    assert parse_ptxas_verbose(PTXAS_LOG) == {"warp_reduce": {
        "registers": 12, "spill_stores": 4, "spill_loads": 12, "stack_bytes": 8,
        "shared_bytes": 4096, "barriers": 1, "cmem_bytes": 368}}


def test_ptx_instructions_are_counted_without_directives():
    ptx = ".version 8.0\n.target sm_80\n.entry k()\n{\n  .reg .b32 %r<2>;\n" \
          "  mov.u32 %r1, %tid.x; // a comment;\n$L1:\n  ret;\n}\n"
    assert ptx_instruction_count(ptx) == 2


@needs_ptxas
def test_a_kernel_compiles_to_a_cubin_with_statistics():
    art = tirx_mlir.compile("examples/cuda/warp_reduce.mlir")
    assert art.binary[:4] == b"\x7fELF" and art.stats["arch"] == "sm_80"
    kernel = art.stats["kernels"]["warp_reduce"]
    assert kernel["registers"] > 0 and kernel["spill_stores"] == 0
    assert art.stats["ptx_instructions"] > 10
    if find_tool("cuobjdump") is not None:
        assert art.stats["sass_instructions"] > 10
    assert tirx_mlir.compile("examples/cuda/warp_reduce.mlir").binary == art.binary  # cached


def test_a_kernel_the_ptx_printer_refuses_keeps_its_cuda_source():
    art = tirx_mlir.compile("examples/cuda/nvshmem_ring.mlir")
    assert list(art.sources) == ["cuda"] and "nvshmem" in art.source
    assert art.binary is None and art.notes[0].startswith("-t ptx: ")


def test_tensor_map_parameters_are_passed_by_value():
    sig = tirx_mlir.compile("examples/cuda/tma_wgmma.mlir").signature()
    assert [p.by_value for p in sig.params] == [True, True, False]
    assert sig.params[0].nbytes == 128 and sig.block == (128, 1, 1)


def test_the_dynamic_shared_memory_a_kernel_needs():
    text = """
tirx.kernel @k(%A: !tirx.buffer<64xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %s0 = cuda.dynamic_shared align 16 : !tirx.buffer<64xf32, shared.dyn>
  %s1 = cuda.dynamic_shared offset 1024 align 128 : !tirx.buffer<32xf32, shared.dyn>
  tirx.return
}"""
    kernel = find_kernel(parse_module(text, "k.mlir"))
    assert dynamic_shared_bytes(kernel) == 1024 + 128
