"""tirx_mlir.backends.cuda.sass: instructions, loops, opcode mix and resource usage, on literal
cuobjdump text and on a cubin nvcc builds here from a small CUDA source."""

from __future__ import annotations

import pytest
from tirx_testing.cuda_compile import nvcc_cubins, sass_opcodes

from tirx_mlir.backends.cuda import sass, toolchain

LISTING = """
	code for sm_80
		Function : k
	.headerflags	@"EF_CUDA_SM80 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM80)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;              /* 0x00000a0000017a02 */
                                                                       /* 0x000fe40000000f00 */
        /*0010*/                   HMMA.16816.F32 R4, R8, R12, R4 ;    /* 0x0000000c0804723c */
        /*0020*/              @!P0 BRA 0x10 ;                          /* 0xfffffff000008947 */
        /*0030*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;       /* 0x0000000000007b1d */
        /*0040*/                   LDG.E R2, [R2.64] ;                 /* 0x0000000402027981 */
        /*0050*/               @P1 BRA 0x30 ;                          /* 0xfffffff000008947 */
        /*0060*/                   EXIT ;                              /* 0x000000000000794d */
        /*0070*/                   BRA 0x70;                           /* 0xfffffff000007947 */
        /*10000*/                  NOP;                                /* 0x0000000000007918 */
		Function : other
        /*0000*/                   EXIT ;                              /* 0x000000000000794d */
"""

RES_USAGE = """
Resource usage:
 Common:
  GLOBAL:0
 Function k:
  REG:94 STACK:16 SHARED:8192 LOCAL:4 CONSTANT[0]:376 TEXTURE:0 SURFACE:0 SAMPLER:0
 Function other:
  REG:8 STACK:0 SHARED:0 LOCAL:0 CONSTANT[0]:352 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_instructions_per_function_with_predicates_and_long_addresses():
    code = sass.instructions(LISTING)
    assert list(code) == ["k", "other"]
    k = code["k"]
    assert [i.address for i in k] == [0x0, 0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x10000]
    assert k[2].predicate == "@!P0" and k[2].family == "BRA" and k[2].operands == "0x10"
    assert k[1].opcode == "HMMA.16816.F32" and k[1].family == "HMMA"
    assert [i.opcode for i in code["other"]] == ["EXIT"]


def test_loops_are_backward_branches_and_the_main_loop_holds_the_mma():
    k = sass.instructions(LISTING)["k"]
    found = sass.loops(k)
    assert [(lp.start, lp.end) for lp in found] == [(0x10, 0x20), (0x30, 0x50)]  # BRA 0x70 is no loop
    main = sass.main_loop(k)
    assert (main.start, main.end) == (0x10, 0x20)
    assert sass.opcode_mix(main.body) == {"HMMA": 1, "BRA": 1}
    without_mma = [i for i in k if i.family != "HMMA"]
    assert (sass.main_loop(without_mma).start, sass.main_loop(without_mma).end) == (0x30, 0x50)
    assert sass.main_loop(sass.instructions(LISTING)["other"]) is None


CALLS = """
		Function : d
        /*0000*/                   MUFU.RCP R4, R5 ;
        /*0010*/                   FCHK P0, R18, R5 ;
        /*0020*/              @!P0 BRA 0x50 ;
        /*0030*/                   MOV R4, 0x50 ;
        /*0040*/                   CALL.REL.NOINC 0x70 ;
        /*0050*/                   STG.E [R2.64], R16 ;
        /*0060*/                   EXIT ;
        /*0070*/                   SHF.R.U32.HI R6, RZ, 0x17, R5 ;
        /*0080*/                   RET.REL.NODEC R4 0x0 ;
        /*0090*/                   BRA 0x90;
"""


def test_split_subroutines_puts_the_guarded_called_code_apart():
    code = sass.instructions(CALLS)["d"]
    kernel, called = sass.split_subroutines(code)
    assert [i.family for i in kernel] == ["MUFU", "FCHK", "BRA", "MOV", "CALL", "STG", "EXIT"]
    assert [i.family for i in called] == ["SHF", "RET", "BRA"]
    k = sass.instructions(LISTING)["k"]
    assert sass.split_subroutines(k) == (k, [])
    # a call nothing branches around (a 64-bit division's subroutine) is the kernel's work
    always = [i for i in code if i.family != "BRA" or i.address == 0x90]
    assert sass.split_subroutines(always) == (always, [])


def test_res_usage_text():
    usage = sass.parse_res_usage(RES_USAGE)
    assert usage["k"] == sass.ResUsage(registers=94, stack=16, shared=8192, local=4, constant=376)
    assert usage["other"].registers == 8


@pytest.mark.parametrize("opcode, macs", [("HMMA.16816.F32", 16 * 8 * 16),
                                          ("HMMA.1688.F32.TF32", 16 * 8 * 8),
                                          ("HGMMA.64x128x16.F32", 64 * 128 * 16),
                                          ("IMMA.16832.S8.S8", 16 * 8 * 32), ("FFMA", 0)])
def test_tensor_core_macs(opcode, macs):
    assert sass.tensor_core_macs(opcode) == macs


SOURCE = r"""
extern "C" __global__ void staged_sum(const float* x, float* y, int steps) {
  __shared__ float buf[256];
  float acc = 0.0f;
  #pragma unroll 1
  for (int s = 0; s < steps; ++s) {
    buf[threadIdx.x] = x[s * 256 + threadIdx.x];
    __syncthreads();
    acc += buf[255 - threadIdx.x];
    __syncthreads();
  }
  y[threadIdx.x] = acc;
}
"""


@pytest.mark.skipif(toolchain.find_tool("nvcc") is None or toolchain.find_tool("cuobjdump") is None,
                    reason=toolchain.missing_reason("nvcc and cuobjdump"))
def test_a_cubin_built_by_nvcc(tmp_path):
    built = nvcc_cubins({"staged": SOURCE}, "sm_80", tmp_path, extra=())
    assert built.returncode == 0, built.log
    cubin = built.cubins["staged"]
    usage = sass.res_usage(cubin)["staged_sum"]
    assert usage.shared == 256 * 4 and 0 < usage.registers <= 32 and usage.stack == 0
    code = sass.instructions(sass.disassemble(cubin.read_bytes()))["staged_sum"]
    main = sass.main_loop(code)
    assert main is not None and len(sass.loops(code)) == 1
    mix = sass.opcode_mix(main.body)
    assert mix["BAR"] == 2 and mix["LDG"] == 1 and mix["STS"] == 1 and mix["LDS"] == 1
    assert mix["STG"] == 0 and sass.opcode_mix(code)["STG"] == 1
    assert {i.opcode for i in code} == sass_opcodes(cubin)
