// RUN: tirx-opt %S/nki.mlir --split-input-file -t nki-legacy | filecheck %s
// TVM's golden kernels (nki.mlir) in the neuronxcc.nki form TIRx emits for trn1
// (apache/tvm `src/backend/trn/codegen/codegen_trn.cc`): same header, decorators and mutable outputs, mod_alloc addresses,
// tensorized nl.arange indexing, nl.sequential_range loops, `psum[...] += nisa.nc_matmul(...)`.

// CHECK:      import neuronxcc.nki.language as nl
// CHECK-NEXT: from neuronxcc.nki import baremetal, benchmark, simulate_kernel, trace
// CHECK-NEXT: import numpy as np
// CHECK-NEXT: import neuronxcc.nki.isa as nisa
// CHECK-NEXT: import math
// CHECK-NEXT: import neuronxcc.nki as nki
// CHECK-NEXT: import neuronxcc.nki.typing as nt
// CHECK-NEXT: import neuronxcc.nki.compiler as ncc
// CHECK:      @nki.compiler.enable_stack_allocator
// CHECK-NEXT: @nki.compiler.skip_middle_end_transformations
// CHECK-NEXT: @baremetal(experimental_flags='enable-mutable-parameter', additional_compile_opt='--internal-skip-backend-allocation-opt-nki')
// CHECK-NEXT: def nki_add_1(A, B: nt.mutable_tensor):
// CHECK-NEXT:     A_sbuf = nl.ndarray(shape=[128, 512], dtype=np.float32, buffer=ncc.sbuf.mod_alloc(base_addr=0))
// CHECK-NEXT:     B_sbuf = nl.ndarray(shape=[128, 512], dtype=np.float32, buffer=ncc.sbuf.mod_alloc(base_addr=2048))
// CHECK-NEXT:     i0 = nl.arange(128)[:, None]
// CHECK-NEXT:     i1 = nl.arange(512)[None, :]
// CHECK-NEXT:     A_sbuf[i0, i1] = nl.load(A[i0, i1])
// CHECK:          B_sbuf[i0, i1] = nisa.tensor_scalar(data=A_sbuf[i0, i1], op0=nl.add, operand0=1.0, reverse0=False)
// CHECK:          nl.store(B[i0, i1], value=B_sbuf[i0, i1])
// CHECK-NEXT:     return B

// CHECK:      def nki_add_2(A, B: nt.mutable_tensor):
// CHECK:          for k in nl.sequential_range(4):
// CHECK:              A_sbuf[i0, i1] = nl.load(A[i0, 512 * k + i1])
// CHECK:              nl.store(B[i0, 512 * k + i1], value=B_sbuf[i0, i1])

// CHECK:      def nki_matmul_1(lhsT, rhs, result: nt.mutable_tensor):
// CHECK:          res_tile = nl.ndarray(shape=[128, 512], dtype=np.float32, buffer=nl.psum)
// CHECK:          result_tiles[i0, i1, i2, 0, i3] = 0.0
// CHECK:                  rhs_tiles[i0_1, bk_r, i1_1] = nl.load(rhs[128 * bk_r + i0_1, 512 * n + i1_1])
// CHECK:                  res_tile[i0_1, i1_1] = 0.0
// CHECK:                      res_tile[i0_1, i1_1] += nisa.nc_matmul(lhsT_tiles[i0_1, bk, 128 * bm + i1_3], rhs_tiles[i0_1, bk, i1_1])
// CHECK:                  result_tiles[i0_1, m, bm, 0, i1_1] = nisa.tensor_tensor(data1=result_tiles[i0_1, m, bm, 0, i1_1], data2=res_tile[i0_1, i1_1], op=nl.add)
// CHECK:                  nl.store(result[2048 * m_1 + 128 * bm_1 + i0_1, 512 * n + i1_1], value=result_packed[i0_1, i1_1])
// CHECK-NEXT:     return result
