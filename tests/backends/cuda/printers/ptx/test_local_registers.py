"""A thread's local array in the PTX printer: promoted to registers when every access is a
cuda.load / cuda.store at a constant index (ptxas then uses no local memory at all: its strict
``--warn-on-local-memory-usage`` passes and the stack frame is 0 bytes), a ``.local`` array
otherwise (a dynamic index, an address taken for a ptx op; ptxas may still fold a small one
into registers itself)."""

from __future__ import annotations

import re

import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.backends.cuda.printers.ptx.local_registers import promotable
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.located_parser import parse_module

load("cuda")
PTXAS = toolchain.find_tool("ptxas")
STRICT = ("-v", "--warning-as-error", "--warn-on-local-memory-usage", "--warn-on-spills")
FRAME = re.compile(r"(\d+) bytes stack frame")

ACCUMULATE = """
tirx.kernel @accumulate(%X: !tirx.buffer<4096xELEM, global>) -> (%Y: !tirx.buffer<128xELEM, global>)
    grid [1] threads [128] target "cuda -arch=ARCH" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %t = cuda.thread_idx x : index
  %base = arith.muli %t, %c32 : index
  %c3 = arith.constant 3 : index
  %acc = tirx.alloc : !tirx.buffer<4xELEM, local>
  %z = cuda.load %X, %base : !tirx.buffer<4096xELEM, global>, index -> vector<2xELEM>
  cuda.store %acc, %c0, %z : !tirx.buffer<4xELEM, local>, index, vector<2xELEM>
  scf.for %k = %c2 to %c32 step %c2 {
    %i = arith.addi %base, %k : index
    %v = cuda.load %X, %i : !tirx.buffer<4096xELEM, global>, index -> vector<2xELEM>
    cuda.store %acc, %c2, %v : !tirx.buffer<4xELEM, local>, index, vector<2xELEM>
    %a0 = cuda.load %acc, %c0 : !tirx.buffer<4xELEM, local>, index -> ELEM
    %a1 = cuda.load %acc, %c1 : !tirx.buffer<4xELEM, local>, index -> ELEM
    %v0 = cuda.load %acc, %c2 : !tirx.buffer<4xELEM, local>, index -> ELEM
    %v1 = cuda.load %acc, %c3 : !tirx.buffer<4xELEM, local>, index -> ELEM
    %s0 = arith.addf %a0, %v0 : ELEM
    %s1 = arith.addf %a1, %v1 : ELEM
    cuda.store %acc, %c0, %s0 : !tirx.buffer<4xELEM, local>, index, ELEM
    cuda.store %acc, %c1, %s1 : !tirx.buffer<4xELEM, local>, index, ELEM
  }
  %lo = cuda.load %acc, %c0 : !tirx.buffer<4xELEM, local>, index -> ELEM
  %hi = cuda.load %acc, %c1 : !tirx.buffer<4xELEM, local>, index -> ELEM
  %r = arith.addf %lo, %hi : ELEM
  cuda.store %Y, %t, %r : !tirx.buffer<128xELEM, global>, index, ELEM
  tirx.return
}
"""


def _text(elem: str, arch: str = "sm_80") -> str:
    return ACCUMULATE.replace("ELEM", elem).replace("ARCH", arch)


def _allocs(module) -> list[AllocOp]:
    return [op for op in module.walk() if isinstance(op, AllocOp)]


@pytest.mark.parametrize("elem", ["f32", "f16"])
def test_constant_indices_promote_the_array_to_registers_of_its_type(elem):
    module = parse_module(_text(elem), "acc.mlir")
    assert all(promotable(a.result) for a in _allocs(module))
    ptx = emit_ptx(module)
    reg = {"f32": ".f32", "f16": ".b16"}[elem]
    assert f".reg {reg} %acc_<4>;" in ptx
    assert ".local" not in ptx and "ld.local" not in ptx and "st.local" not in ptx


@pytest.mark.skipif(PTXAS is None, reason=toolchain.missing_reason("ptxas"))
@pytest.mark.parametrize("elem,arch", [("f32", "sm_80"), ("f16", "sm_80"), ("f32", "sm_90a")])
def test_promoted_registers_assemble_without_local_memory(elem, arch):
    ptx = emit_ptx(parse_module(_text(elem, arch), "acc.mlir"))
    result = toolchain.assemble(ptx, arch, ptxas=PTXAS, extra=STRICT)
    assert result.ok, result.log
    assert FRAME.search(result.log).group(1) == "0", result.log


@pytest.mark.skipif(PTXAS is None, reason=toolchain.missing_reason("ptxas"))
def test_a_dynamic_index_keeps_a_local_array_in_local_memory():
    text = _text("f32").replace("%hi = cuda.load %acc, %c1",
                                "%odd = arith.andi %t, %c1 : index\n"
                                "  %hi = cuda.load %acc, %odd")
    module = parse_module(text, "acc.mlir")
    assert not any(promotable(a.result) for a in _allocs(module))
    ptx = emit_ptx(module)
    assert ".local .align 16 .b8 local_acc[16];" in ptx and "ld.local.f32" in ptx
    result = toolchain.assemble(ptx, "sm_80", ptxas=PTXAS, extra=("--warning-as-error",))
    assert result.ok, result.log


def test_an_address_taken_for_a_ptx_op_keeps_the_array_in_local_memory():
    text = """
tirx.kernel @k() grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %r = tirx.alloc : !tirx.buffer<4xf32, local>
  %x = cuda.load %r, %c0 : !tirx.buffer<4xf32, local>, index -> f32
  %a = unrealized_conversion_cast %r : !tirx.buffer<4xf32, local> to i64
  ptx.st "local.f32" [%a], %x : (i64, f32) -> ()
  tirx.return
}
"""
    module = parse_module(text, "addr.mlir")
    assert not promotable(_allocs(module)[0].result)
    ptx = emit_ptx(module)
    assert ".local .align 16 .b8 local_r[16];" in ptx and "ld.local.f32" in ptx


def test_a_wgmma_chain_left_in_flight_moves_no_accumulator():
    """gemm_sm90a's consumers keep one wgmma group in flight across the store of its
    accumulators back into their register tile (wgmma.wait_group 1): loaded only to be updated
    in place by the wgmma chain and stored back, the elements are the chain's registers, so no
    mov reads an accumulator in flight (ptxas would serialise the wgmmas, advisory C7514)."""
    from pathlib import Path

    from tirx_testing.cuda_every_stage import lower

    example = Path(__file__).resolve().parents[5] / "examples" / "cuda" / "tile" / \
        "gemm_sm90a.mlir"
    text = emit_ptx(lower(example.read_text(), "gemm_sm90a"))
    start = text.index("wgmma.fence.sync.aligned")
    end = text.index("bra.uni", text.index("wgmma.wait_group.sync.aligned 1"))
    consumer_step = text[start:end]
    assert consumer_step.count("wgmma.mma_async") == 4
    first = re.search(r"wgmma\.mma_async\S* \{(%\w+), ", consumer_step).group(1)
    array = first.rsplit("_", 1)[0]
    loads = "\n".join(text[:start].splitlines()[-80:])  # the step's code before the fence
    assert re.search(rf"mov\.f32 [^;]*{array}_", loads) is None
    assert f"{array}_" in consumer_step and "mov.f32" not in consumer_step
    if PTXAS is not None:
        import subprocess
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "k.ptx"
            path.write_text(text)
            proc = subprocess.run([str(PTXAS), "-arch=sm_90a", *STRICT, str(path), "-o",
                                   str(Path(tmp) / "k.cubin")], capture_output=True, text=True)
        assert proc.returncode == 0 and "(C75" not in proc.stderr, proc.stderr


def test_an_element_a_vector_access_reaches_between_is_not_updated_in_place():
    """A scalar loaded from a promoted array and stored straight back is moved nowhere (its
    element's register is the value), unless another access of the element comes between: a
    vector load of elements 0..1 reads element 1 there, so the value must be a copy."""
    from tirx_mlir.backends.cuda.printers.ptx.local_registers import accumulates_in_place

    def kernel(between: str):
        return parse_module(f"""
tirx.kernel @k(%X: !tirx.buffer<4xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = tirx.alloc : !tirx.buffer<4xf32, local>
  %x = cuda.load %r, %c1 : !tirx.buffer<4xf32, local>, index -> f32
  {between}
  cuda.store %r, %c1, %x : !tirx.buffer<4xf32, local>, index, f32
  tirx.return
}}
""", "inplace.mlir")

    def scalar_load(module):
        return next(op for op in module.walk() if op.name == "cuda.load")

    pair = "%v = cuda.load %r, {} : !tirx.buffer<4xf32, local>, index -> vector<2xf32>"
    assert accumulates_in_place(scalar_load(kernel("")))
    assert accumulates_in_place(scalar_load(kernel(pair.format("%c2"))))  # elements 2..3
    assert not accumulates_in_place(scalar_load(kernel(pair.format("%c0"))))  # 0..1
    store = "cuda.store %r, %c0, %w : !tirx.buffer<4xf32, local>, index, vector<2xf32>"
    zeros = "%w = arith.constant dense<0.0> : vector<2xf32>\n  "
    assert not accumulates_in_place(scalar_load(kernel(zeros + store)))
