// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch | filecheck %s
// tirx.copy variant ldstmatrix: a register tile of 8x8 fragments from shared memory with
// ldmatrix (x4 where four matrices share an address pattern; .trans for a column-major tile),
// and back with stmatrix on sm_90 (element stores before).

tirx.kernel @load() grid [1] threads [32] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<16x16xf16, shared>
  %t = tirx.alloc : !tirx.buffer<16x16xf16, shared, S[(16,16):(1,16)]>
  %r = tirx.alloc : !tirx.buffer<16x16xf16, local, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
  tirx.copy warp %r, %s : !tirx.buffer<16x16xf16, local, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>, !tirx.buffer<16x16xf16, shared>
  tirx.copy warp %r, %t : !tirx.buffer<16x16xf16, local, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>, !tirx.buffer<16x16xf16, shared, S[(16,16):(1,16)]>
  tirx.return
}

// CHECK-LABEL: @load
// CHECK:       %[[M:[0-9]+]], %{{.*}}, %{{.*}}, %{{.*}} = ptx.ldmatrix "x4.shared" [%{{.*}}] : (i32) -> (i32, i32, i32, i32)
// CHECK:       ptx.mov_unpack "b32" %[[M]] : (i32) -> (f16, f16)
// CHECK:       ptx.ldmatrix "x4.trans.shared"

// -----

tirx.kernel @store() grid [1] threads [32] target "cuda -arch=sm_90a" {
  %s = tirx.alloc : !tirx.buffer<16x16xf16, shared>
  %r = tirx.alloc : !tirx.buffer<16x16xf16, local, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
  tirx.copy warp %s, %r : !tirx.buffer<16x16xf16, shared>, !tirx.buffer<16x16xf16, local, S[(2,8,2,4,2):(2,4@laneid,4,1@laneid,1)]>
  tirx.return
}

// CHECK-LABEL: @store
// CHECK-COUNT-4: ptx.mov_pack "b32"
// CHECK:       ptx.stmatrix "x4.shared" [%{{.*}}], {%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}}
