// RUN: tirx-opt %s --split-input-file -p cuda-default-layout,tirx-dispatch,cuda-lower-layout,canonicalize,cse | filecheck %s
// tirx.copy's cache configs (TIRx's): cache = "nc" reads the global source through the
// read-only path (ld.global.nc), l1_evict gives those loads an L1 eviction priority; the shared
// stores are unchanged.

tirx.kernel @nc_evict_first(%X: !tirx.buffer<64x128xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = tirx.alloc : !tirx.buffer<64x128xf32, shared>
  tirx.copy cta %t, %X config {cache = "nc", l1_evict = "evict_first"} : !tirx.buffer<64x128xf32, shared>, !tirx.buffer<64x128xf32, global>
  tirx.return
}

// CHECK-LABEL: @nc_evict_first
// CHECK:       ptx.ld "global.nc.L1::evict_first.v4.f32"
// CHECK:       ptx.st "shared.v4.f32"

// -----

// A register destination at thread scope through vec_128b: one ld.global.nc.v4.
tirx.kernel @forced_nc(%X: !tirx.buffer<4xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %r = tirx.alloc : !tirx.buffer<4xf32, local>
  tirx.copy thread %r, %X dispatch "vec_128b" config {cache = "nc"} : !tirx.buffer<4xf32, local>, !tirx.buffer<4xf32, global>
  tirx.return
}

// CHECK-LABEL: @forced_nc
// CHECK:       ptx.ld "global.nc.v4.f32"
