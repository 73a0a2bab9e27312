"""bench/cuda_source_sites.py: PTX issue sites counted by opcode, inline asm (ours) and asm
helpers called from the kernel (TIRx's form) alike."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from cuda_source_sites import kernel_bodies, ptx_sites  # noqa: E402

from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda  # noqa: E402
from tirx_mlir.located_parser import parse_module  # noqa: E402

HELPERS = """
__forceinline__ __device__ void tvm_builtin_ptx_ld_v4(float& __d0, const void* __addr) {
  asm volatile("ld.global.nc.v4.f32 {%0}, [%1];" : "=f"(__d0) : "l"(__addr) : "memory");
}
__forceinline__ __device__ unsigned int tvm_builtin_cvta(void* p) {
    return __cvta_generic_to_shared(p);
}
__forceinline__ __device__ void tvm_builtin_unused(uint32_t __a) {
  asm volatile("bar.sync 0;" ::: "memory");
}
extern "C" __global__ void k(float* A);
extern "C" __global__ void k(float* A) {
  float a;
  for (int i = 0; i < 8; ++i) {
    tvm_builtin_ptx_ld_v4(a, (&(A[i])));
    if (i) { tvm_builtin_ptx_ld_v4(a, A); }
  }
  asm volatile("st.global.f32 [%0], %1;" : : "l"(A), "f"(a) : "memory");
  unsigned s = tvm_builtin_cvta(A);
}
"""


def test_helper_calls_and_inline_asm_count_once_a_site():
    # two call sites of the ld helper (one inside a loop, one in a nested block), one inline
    # st; the helper that is never called and the non-asm helper count nothing
    assert ptx_sites(HELPERS) == {"ld.global.nc.v4.f32": 2, "st.global.f32": 1}


def test_declarations_are_not_kernel_bodies():
    bodies = kernel_bodies(HELPERS)
    assert len(bodies) == 1 and bodies[0].rstrip().endswith("tvm_builtin_cvta(A);")


def test_our_vector_add_issues_two_vector_loads_and_one_vector_store():
    text = (ROOT / "examples" / "cuda" / "vector_add.mlir").read_text()
    assert ptx_sites(emit_cuda(parse_module(text))) == {"ld.global.nc.v4.f32": 2,
                                                        "st.global.v4.f32": 1}


def test_no_kernel_no_sites():
    assert ptx_sites('__device__ void f() { asm volatile("trap;"); }') == {}
