"""The CUDA C++ printer's rules outside the FileCheck inputs: what it refuses (located errors),
what it includes only when used, names it sanitises, and registration as ``-t cuda``."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import StringAttr

from tirx_mlir import registry
from tirx_mlir.backends.cuda.printers.cuda_cpp import CudaTarget, emit_cuda
from tirx_mlir.backends.cuda.printers.cuda_cpp.printer import c_string
from tirx_mlir.printers import PrintError
from tirx_testing.cuda import parse_cuda


def kernel(body: str, params: str = "%G: !tirx.buffer<1024xf32, global>",
           extra: str = "", arch: str = "sm_90a") -> str:
    return (f'tirx.kernel @k({params}) grid [1] threads [128] target "cuda -arch={arch}" '
            f"{extra} {{\n  %c0 = arith.constant 0 : index\n{body}\n  tirx.return\n}}\n")


def printed(body: str, **kw) -> str:
    return emit_cuda(parse_cuda(kernel(body, **kw)))


def test_registered_as_t_cuda():
    assert registry.printers.lookup("cuda")() is CudaTarget
    assert registry.printers.owner_of("cuda") == "cuda"


def test_headers_only_when_used():
    plain = printed("  %x = cuda.load %G, %c0 : !tirx.buffer<1024xf32, global>, index -> f32")
    assert "#include" not in plain and "tirx_tensor_map" not in plain
    half = printed("  %x = cuda.load %H, %c0 : !tirx.buffer<64xf16, global>, index -> f16",
                   params="%H: !tirx.buffer<64xf16, global>")
    assert "#include <cuda_fp16.h>" in half and "cuda_bf16.h" not in half


def test_tensor_map_parameter():
    text = printed("  %m = cuda.address %T, %c0 : !tirx.buffer<128xi8, global>, index -> i64",
                   params="%T: !tirx.buffer<128xi8, global>",
                   extra="attributes {cuda.tensor_maps = array<i64: 0>}")
    assert "const __grid_constant__ tirx_tensor_map T" in text
    assert "struct __align__(64) tirx_tensor_map { unsigned long long opaque[16]; };" in text
    assert "reinterpret_cast<long long>(&T)" in text


@pytest.mark.parametrize("params, extra, message", [
    ("%T: !tirx.buffer<64xi8, global>", "attributes {cuda.tensor_maps = array<i64: 0>}",
     "must be a 128-byte buffer"),
    ("%T: !tirx.buffer<128xi8, global>", "attributes {cuda.tensor_maps = array<i64: 3>}",
     "names parameter 3"),
    ("%T: !tirx.buffer<128xi8, global>", 'attributes {cuda.tensor_maps = "0"}',
     "must be an array<i64"),
])
def test_bad_tensor_maps_are_located_errors(params, extra, message):
    with pytest.raises(PrintError, match=message) as err:
        printed("", params=params, extra=extra)
    assert "tirx.kernel" in str(err.value) or err.value.op is not None


@pytest.mark.parametrize("body, message", [
    ("  %x = cuda.load %G, %c0 evict evict_first : !tirx.buffer<1024xf32, global>, index -> f32",
     "eviction priority"),
    ("  %h = cuda.load %H, %c0 : !tirx.buffer<64xf16, global>, index -> f16\n"
     "  %i = cuda.cvt %h round rn : f16 -> i64", "no CUDA intrinsic for converting f16 to i64"),
    ("  %w = tirx.warp_id : index", "cannot print tirx.warp_id"),
    ("  %h = cuda.load %H, %c0 : !tirx.buffer<64xf16, global>, index -> f16\n"
     "  %u = arith.bitcast %h : f16 to ui16\n"
     "  cuda.store %U, %c0, %u : !tirx.buffer<64xui16, global>, index, ui16",
     "reinterpreting f16 as ui16"),
])
def test_unprintable_ops_are_located_errors(body, message):
    params = ("%G: !tirx.buffer<1024xf32, global>, %H: !tirx.buffer<64xf16, global>, "
              "%U: !tirx.buffer<64xui16, global>")
    with pytest.raises(PrintError, match=message) as err:
        printed(body, params=params)
    assert err.value.op is not None


def test_bitcast_prints_the_reinterpreting_intrinsic():
    text = printed("  %x = cuda.load %G, %c0 : !tirx.buffer<1024xf32, global>, index -> f32\n"
                   "  %i = arith.bitcast %x : f32 to i32\n"
                   "  %f = arith.bitcast %i : i32 to f32\n"
                   "  cuda.store %G, %c0, %f : !tirx.buffer<1024xf32, global>, index, f32")
    assert "__int_as_float(__float_as_int(" in text


def test_an_attribute_outside_the_table_never_reaches_the_text():
    module = parse_cuda(kernel("  cuda.fence gpu"))
    fence = next(op for op in module.walk() if op.name == "cuda.fence")
    fence.properties["scope"] = StringAttr('gpu(); system("rm -rf /");')
    with pytest.raises(PrintError, match="is not one the CUDA C\\+\\+ printer prints"):
        emit_cuda(module)


def test_names_are_sanitised_and_unique():
    text = emit_cuda(parse_cuda(
        'tirx.kernel @"class"(%G: !tirx.buffer<4xf32, global>) grid [1] threads [32] '
        'target "cuda -arch=sm_80" {\n  %c0 = arith.constant 0 : index\n'
        "  %asm = cuda.load %G, %c0 : !tirx.buffer<4xf32, global>, index -> f32\n"
        "  cuda.store %G, %c0, %asm : !tirx.buffer<4xf32, global>, index, f32\n"
        "  tirx.return\n}\n"))
    assert "void __launch_bounds__(32)\nclass_1(" in text
    assert "const float asm_1 = " in text


def test_printf_format_is_escaped():
    assert c_string('a"b\\c\n%d??=') == '"a\\042b\\134c\\012%d\\077\\077="'


def test_ptx_ops_take_their_text_from_the_table():
    text = printed("  %p = cuda.address %G, %c0 : !tirx.buffer<1024xf32, global>, index -> i64\n"
                   '  %v:2 = ptx.ld "global.nc.v2.f32" [%p] : (i64) -> (f32, f32)\n'
                   '  ptx.st "global.v2.f32" [%p], {%v#0, %v#1} : (i64, f32, f32) -> ()')
    assert 'asm volatile("ld.global.nc.v2.f32 {%0, %1}, [%2];" : "=f"(v), "=f"(v_1) : "l"(p) ' \
           ': "memory");' in text


LOCAL_ACCUMULATE = """
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %t = cuda.thread_idx x : index
  %base = arith.muli %t, %c32 : index
  %acc = tirx.alloc : !tirx.buffer<4xf32, local>
  %z = cuda.load %G, %base : !tirx.buffer<4096xf32, global>, index -> vector<2xf32>
  cuda.store %acc, %c0, %z : !tirx.buffer<4xf32, local>, index, vector<2xf32>
  scf.for %k = %c2 to %c32 step %c2 {
    %i = arith.addi %base, %k : index
    %v = cuda.load %G, %i : !tirx.buffer<4096xf32, global>, index -> vector<2xf32>
    cuda.store %acc, %c2, %v : !tirx.buffer<4xf32, local>, index, vector<2xf32>
    %a0 = cuda.load %acc, %c0 : !tirx.buffer<4xf32, local>, index -> f32
    %a1 = cuda.load %acc, %c1 : !tirx.buffer<4xf32, local>, index -> f32
    %v0 = cuda.load %acc, %c2 : !tirx.buffer<4xf32, local>, index -> f32
    %v1 = cuda.load %acc, %c3 : !tirx.buffer<4xf32, local>, index -> f32
    %s0 = arith.addf %a0, %v0 : f32
    %s1 = arith.addf %a1, %v1 : f32
    cuda.store %acc, %c0, %s0 : !tirx.buffer<4xf32, local>, index, f32
    cuda.store %acc, %c1, %s1 : !tirx.buffer<4xf32, local>, index, f32
  }
  %out = cuda.load %acc, %c0 : !tirx.buffer<4xf32, local>, index -> vector<2xf32>
  cuda.store %G, %base, %out : !tirx.buffer<4096xf32, global>, index, vector<2xf32>
"""


def test_a_local_array_at_constant_indices_compiles_to_registers_only(tmp_path):
    """Under the strict flags (ptxas --warn-on-local-memory-usage as an error) a register tile
    read and written at constant indices, vector accesses included, uses no local memory."""
    from tirx_mlir.backends.cuda import toolchain
    from tirx_testing import cuda_compile

    if toolchain.find_tool("nvcc") is None:
        pytest.skip(toolchain.missing_reason("nvcc"))
    source = printed(LOCAL_ACCUMULATE, params="%G: !tirx.buffer<4096xf32, global>",
                     arch="sm_80")
    assert "float acc[4];" in source and "reinterpret_cast<float2*>(acc" not in source
    result = cuda_compile.nvcc_cubins({"acc": source}, "sm_80", tmp_path, cuda_compile.STRICT)
    assert result.returncode == 0, result.log


def test_a_shared_tirx_alloc_keeps_its_stated_alignment():
    text = printed("  %s = tirx.alloc {cuda.align = 1024 : i64} : !tirx.buffer<64xf16, shared>\n"
                   "  %t = tirx.alloc : !tirx.buffer<64xf32, shared>")
    assert "__shared__ __align__(1024) __half s[64];" in text
    assert "__shared__ __align__(16) float t[64];" in text
