"""printers/ptx/local_registers.py, deferred stores: a store into a promoted local array prints
its moves only when something needs the element's register (a join of control flow, an op
that is not straight-line register code, a load that cannot read the stored register), so a
value stored and loaded back moves nothing; ptxas makes the same SASS of both forms (the
examples, instruction for instruction) from fewer lines of PTX."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda import sass, toolchain
from tirx_mlir.backends.cuda.printers.ptx.target import PtxPrinter
from tirx_mlir.located_parser import parse_module

load("cuda")
EXAMPLES = Path(__file__).resolve().parents[5] / "examples" / "cuda" / "tile"
TOOLS = pytest.mark.skipif(
    toolchain.find_tool("ptxas") is None or toolchain.find_tool("cuobjdump") is None,
    reason=toolchain.missing_reason("ptxas and cuobjdump"))


class EagerPrinter(PtxPrinter):
    """The printer with every store's moves at the store (as before deferred stores)."""

    DEFER_STORES = False


def _print(text: str, printer=PtxPrinter) -> str:
    return printer(parse_module(text, "deferred.mlir")).emit()


HEADER = """tirx.kernel @k(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = cuda.thread_idx x : index
  %acc = tirx.alloc : !tirx.buffer<4xf32, local>
  %x = cuda.load %X, %t : !tirx.buffer<1024xf32, global>, index -> f32
"""


def test_a_value_stored_and_loaded_back_moves_nothing():
    text = _print(HEADER + """
  cuda.store %acc, %c0, %x : !tirx.buffer<4xf32, local>, index, f32
  %a = cuda.load %acc, %c0 : !tirx.buffer<4xf32, local>, index -> f32
  %b = arith.addf %a, %a : f32
  cuda.store %acc, %c0, %b : !tirx.buffer<4xf32, local>, index, f32
  %c = cuda.load %acc, %c0 : !tirx.buffer<4xf32, local>, index -> f32
  cuda.store %Y, %t, %c : !tirx.buffer<1024xf32, global>, index, f32
  tirx.return
}""")
    x = re.search(r"ld\.global\.f32 (%f\d+)", text).group(1)
    b = re.search(rf"add\.rn\.f32 (%f\d+), {x}, {x};", text).group(1)  # reads x's register
    assert re.search(rf"st\.global\.f32 \[%rd\d+\], {b};", text)
    assert "%acc_0" not in text.split("{", 1)[1].split(".reg .f32 %acc_<4>;")[1]  # no mov


LOOP = HEADER + """
  cuda.store %acc, %c0, %x : !tirx.buffer<4xf32, local>, index, f32
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%v = %x) -> (f32) {
    cuda.store %acc, %c1, %v : !tirx.buffer<4xf32, local>, index, f32
    %a = cuda.load %acc, %c0 : !tirx.buffer<4xf32, local>, index -> f32
    %b = arith.addf %a, %a : f32
    cuda.store %acc, %c0, %b : !tirx.buffer<4xf32, local>, index, f32
    %c = cuda.load %acc, %c0 : !tirx.buffer<4xf32, local>, index -> f32
    %d = arith.mulf %c, %c : f32
    cuda.store %acc, %c0, %d : !tirx.buffer<4xf32, local>, index, f32
    %n = arith.addf %v, %d : f32
    scf.yield %n : f32
  }
  %z = arith.cmpi eq, %t, %c0 : index
  scf.if %z {
    %e = arith.addf %x, %x : f32
    cuda.store %acc, %c0, %e : !tirx.buffer<4xf32, local>, index, f32
  }
  %r = cuda.load %acc, %c0 : !tirx.buffer<4xf32, local>, index -> f32
  %q = cuda.load %acc, %c1 : !tirx.buffer<4xf32, local>, index -> f32
  %rq = arith.addf %r, %q : f32
  %out = arith.addf %rq, %sum : f32
  cuda.store %Y, %t, %out : !tirx.buffer<1024xf32, global>, index, f32
  tirx.return
}"""


def test_deferred_moves_are_printed_where_control_flow_joins():
    lines = [ln.strip() for ln in _print(LOOP).splitlines()]
    stores = [k for k, ln in enumerate(lines) if ln.startswith("mov.f32 %acc_0,")]
    head = lines.index(next(ln for ln in lines if ln.startswith("$L__for")))
    back = lines.index(next(ln for ln in lines if ln.startswith("bra.uni $L__for")))
    branch = lines.index(next(ln for ln in lines if ln.startswith("@!") and "if_end" in ln))
    join = lines.index(next(ln for ln in lines if ln.startswith("$L__if_end")))
    # before the loop's head; the body's last value before the back edge (the first store
    # of the body, overwritten unread, is never printed); the branch's value before its end
    assert [k < head for k in stores].count(True) == 1
    assert sum(1 for k in stores if head < k < back) == 1
    assert sum(1 for k in stores if branch < k < join) == 1
    body = lines[head:back]
    mul = next(ln for ln in body if ln.startswith("mul.rn.f32"))
    add = next(ln for ln in body if ln.startswith("add.rn.f32"))
    assert mul.split()[2].rstrip(",") == add.split()[1].rstrip(",")  # the add's register
    carried = lines.index(next(ln for ln in body if ln.startswith("mov.f32 %acc_1,")))
    assert lines[carried] == f"mov.f32 %acc_1, {lines[carried].split()[-1]}"
    # the carried value's store is printed before the yield writes its register
    yields = [k for k in range(carried, back) if re.match(r"mov\.f32 %f\d+, %f\d+;", lines[k])]
    assert yields and carried < yields[0]
    assert any(ln.startswith("mov.f32 %acc_0, " + mul.split()[1].rstrip(",")) for ln in
               lines[carried:back])


def test_a_return_drops_the_moves_nothing_reads():
    text = _print(HEADER + """
  cuda.store %acc, %c1, %x : !tirx.buffer<4xf32, local>, index, f32
  cuda.store %Y, %t, %x : !tirx.buffer<1024xf32, global>, index, f32
  tirx.return
}""")
    assert "mov.f32 %acc_1" not in text
    assert "mov.f32 %acc_1" in _print(HEADER + """
  cuda.store %acc, %c1, %x : !tirx.buffer<4xf32, local>, index, f32
  cuda.store %Y, %t, %x : !tirx.buffer<1024xf32, global>, index, f32
  tirx.return
}""", EagerPrinter)


WGMMA = """tirx.kernel @k(%X: !tirx.buffer<512xf32, global>) -> (%D: !tirx.buffer<512xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %p = arith.constant true
  %desc = arith.constant 0 : i64
  %acc = tirx.alloc : !tirx.buffer<4xf32, local>
  %x = cuda.load %X, %c0 : !tirx.buffer<512xf32, global>, index -> vector<4xf32>
  cuda.store %acc, %c0, %x : !tirx.buffer<4xf32, local>, index, vector<4xf32>
  %a0 = cuda.load %acc, %c0 : !tirx.buffer<4xf32, local>, index -> f32
  %a1 = cuda.load %acc, %c1 : !tirx.buffer<4xf32, local>, index -> f32
  %a2 = cuda.load %acc, %c2 : !tirx.buffer<4xf32, local>, index -> f32
  %a3 = cuda.load %acc, %c3 : !tirx.buffer<4xf32, local>, index -> f32
  ptx.wgmma_fence
  %d:4 = ptx.wgmma_mma_async_ss "m64n8k16.f32.f16.f16" {%a0, %a1, %a2, %a3}, %desc, %desc, %p, 1, 1, 0, 0 : (f32, f32, f32, f32, i64, i64, i1) -> (f32, f32, f32, f32)
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  %gd = unrealized_conversion_cast %D : !tirx.buffer<512xf32, global> to i64
  ptx.st "global.v4.f32" [%gd], {%d#0, %d#1, %d#2, %d#3} : (i64, f32, f32, f32, f32) -> ()
  cuda.store %D, %c0, %x : !tirx.buffer<512xf32, global>, index, vector<4xf32>
  tirx.return
}"""


def test_a_load_updated_in_place_by_a_ptx_op_gets_its_own_registers():
    """The wgmma's accumulators are read-write: a load forwarded to the stored registers
    would let the wgmma overwrite x, which the last store still reads."""
    text = _print(WGMMA)
    xs = re.search(r"ld\.global\.v4\.f32 \{([^}]*)\}", text).group(1).replace(" ", "").split(",")
    acc = re.search(r"wgmma\.mma_async\S* \{([^}]*)\}", text).group(1).replace(" ", "").split(",")
    assert not set(xs) & set(acc)
    assert re.search(r"st\.global\.v4\.f32 \[%rd\d+\], \{" + ", ".join(xs) + r"\};", text)
    if toolchain.find_tool("ptxas") is not None:
        result = toolchain.assemble(text, "sm_90a", extra=("-v",))
        assert result.ok, result.log


def _sass(ptx: str, arch: str) -> list[str]:
    ptxas = toolchain.find_tool("ptxas")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "k.cubin"
        proc = subprocess.run([str(ptxas), f"-arch={arch}", "-", "-o", str(cubin)], input=ptx,
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        code = sass.instructions(sass.disassemble(cubin.read_bytes()))
    return [f"{i.predicate} {i.opcode} {i.operands}" for fn in code.values() for i in fn]


@TOOLS
@pytest.mark.parametrize("name", ["softmax_registers", "flash_attention_sm80"])
def test_ptxas_makes_the_same_sass_of_deferred_and_eager_stores(name):
    from tirx_testing.cuda_every_stage import lower

    module = lower((EXAMPLES / f"{name}.mlir").read_text(), name)
    deferred, eager = PtxPrinter(module).emit(), EagerPrinter(module).emit()
    assert deferred.count("\n") < 0.8 * eager.count("\n")
    arch = re.search(r"\.target (\w+)", deferred).group(1)
    assert _sass(deferred, arch) == _sass(eager, arch)


@TOOLS
def test_ptxas_makes_the_same_sass_with_loops_and_branches():
    arch = "sm_80"
    assert _sass(_print(LOOP), arch) == _sass(_print(LOOP, EagerPrinter), arch)
