// RUN: tirx-opt %s --split-input-file --print-diagnostics -p cuda-allocate-shared | filecheck %s

// Every static shared array becomes a view of the one dynamic arena. %a's bytes are free once
// the barrier after its last use has passed, so %c (first used after that barrier) reuses
// them; %b, live with both, keeps its 1024-byte alignment (a 128B-swizzled tile's atom); a
// plain tirx.alloc in shared is 128-byte aligned. The kernel records the arena's size.
tirx.kernel @reuse(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = cuda.thread_idx x : index
  %a = cuda.shared_alloc align 128 : !tirx.buffer<128xf32, shared>
  %b = cuda.shared_alloc align 1024 : !tirx.buffer<128xf32, shared>
  %c = tirx.alloc : !tirx.buffer<128xf32, shared>
  %x = cuda.load %X, %t : !tirx.buffer<1024xf32, global>, index -> f32
  cuda.store %a, %t, %x : !tirx.buffer<128xf32, shared>, index, f32
  cuda.sync_threads
  %y = cuda.load %a, %t : !tirx.buffer<128xf32, shared>, index -> f32
  cuda.store %b, %t, %y : !tirx.buffer<128xf32, shared>, index, f32
  cuda.sync_threads
  %z = cuda.load %b, %t : !tirx.buffer<128xf32, shared>, index -> f32
  cuda.store %c, %t, %z : !tirx.buffer<128xf32, shared>, index, f32
  cuda.sync_threads
  %w = cuda.load %c, %t : !tirx.buffer<128xf32, shared>, index -> f32
  cuda.store %Y, %t, %w : !tirx.buffer<1024xf32, global>, index, f32
  tirx.return
}

// CHECK-LABEL: tirx.kernel @reuse
// CHECK-SAME:  attributes {cuda.dynamic_shared_bytes = 1536 : i64}
// CHECK-NEXT:  %t = cuda.thread_idx x : index
// CHECK-NEXT:  %a = cuda.dynamic_shared offset 0 align 128 : !tirx.buffer<128xf32, shared.dyn>
// CHECK-NEXT:  %b = cuda.dynamic_shared offset 1024 align 1024 : !tirx.buffer<128xf32, shared.dyn>
// CHECK-NEXT:  %c = cuda.dynamic_shared offset 0 align 128 : !tirx.buffer<128xf32, shared.dyn>
// CHECK:       cuda.store %a, %t, %x : !tirx.buffer<128xf32, shared.dyn>, index, f32
// CHECK-NOT:   cuda.shared_alloc
// CHECK-NOT:   tirx.alloc

// -----

// Without a barrier between them, a thread may still read %a while another writes %c: no reuse.
tirx.kernel @no_barrier(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = cuda.thread_idx x : index
  %a = tirx.alloc : !tirx.buffer<128xf32, shared>
  %c = tirx.alloc : !tirx.buffer<128xf32, shared>
  %x = cuda.load %X, %t : !tirx.buffer<1024xf32, global>, index -> f32
  cuda.store %a, %t, %x : !tirx.buffer<128xf32, shared>, index, f32
  %y = cuda.load %a, %t : !tirx.buffer<128xf32, shared>, index -> f32
  cuda.store %c, %t, %y : !tirx.buffer<128xf32, shared>, index, f32
  %w = cuda.load %c, %t : !tirx.buffer<128xf32, shared>, index -> f32
  cuda.store %Y, %t, %w : !tirx.buffer<1024xf32, global>, index, f32
  tirx.return
}

// CHECK-LABEL: tirx.kernel @no_barrier
// CHECK-SAME:  attributes {cuda.dynamic_shared_bytes = 1024 : i64}
// CHECK-NEXT:  %t = cuda.thread_idx x : index
// CHECK-NEXT:  %a = cuda.dynamic_shared offset 0 align 128
// CHECK-NEXT:  %c = cuda.dynamic_shared offset 512 align 128

// -----

// An array accessed through an address (cuda.address, then a ptx op) is live until the last
// op that uses that address, barriers in between or not: %c cannot take %a's bytes. A view the kernel already had (160 bytes) keeps its offset and the planned arrays start
// after it, at the next 128-byte boundary.
tirx.kernel @escape(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = cuda.thread_idx x : index
  %user = cuda.dynamic_shared offset 0 align 16 : !tirx.buffer<40xf32, shared.dyn>
  %a = tirx.alloc : !tirx.buffer<128xf32, shared>
  %c = tirx.alloc : !tirx.buffer<128xf32, shared>
  %p = cuda.address %a, %t : !tirx.buffer<128xf32, shared>, index -> i32
  cuda.sync_threads
  %x = cuda.load %X, %t : !tirx.buffer<1024xf32, global>, index -> f32
  cuda.store %c, %t, %x : !tirx.buffer<128xf32, shared>, index, f32
  %w = cuda.load %c, %t : !tirx.buffer<128xf32, shared>, index -> f32
  ptx.st "shared.f32" [%p], %w : (i32, f32) -> ()
  tirx.return
}

// CHECK-LABEL: tirx.kernel @escape
// CHECK-SAME:  attributes {cuda.dynamic_shared_bytes = 1280 : i64}
// CHECK:       %user = cuda.dynamic_shared offset 0 align 16 : !tirx.buffer<40xf32, shared.dyn>
// CHECK-NEXT:  %a = cuda.dynamic_shared offset 256 align 128
// CHECK-NEXT:  %c = cuda.dynamic_shared offset 768 align 128

// -----

// More than the target's shared memory per block (sm_80: 163 KiB = 166912 bytes) is a
// compile-time error at the kernel with every array's bytes, the peak and the limit.
tirx.kernel @too_big(%X: !tirx.buffer<1024xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %t = cuda.thread_idx x : index
  %a = tirx.alloc : !tirx.buffer<20000xf32, shared>
  %b = tirx.alloc : !tirx.buffer<24000xf32, shared>
  %x = cuda.load %X, %t : !tirx.buffer<1024xf32, global>, index -> f32
  cuda.store %a, %t, %x : !tirx.buffer<20000xf32, shared>, index, f32
  cuda.store %b, %t, %x : !tirx.buffer<24000xf32, shared>, index, f32
  tirx.return
}

// CHECK:      allocate_shared.mlir:[[# @LINE - 10]]:1: error: 'tirx.kernel' op [CUDA-SHARED] kernel @too_big does not fit in shared: it needs 176000 bytes at its peak (buffers live together, first allocated at {{.*}}allocate_shared.mlir:[[# @LINE - 8]]:3) but 166912 are available (the opt-in shared memory per block of target 'cuda -arch=sm_80')
// CHECK-NEXT: live at the peak: %b !tirx.buffer<24000xf32, shared> (96000 B), %a !tirx.buffer<20000xf32, shared> (80000 B)
// CHECK-NEXT: could not place: %a !tirx.buffer<20000xf32, shared> (80000 B)
// CHECK-NEXT: shared arrays: %b !tirx.buffer<24000xf32, shared> (96000 B), %a !tirx.buffer<20000xf32, shared> (80000 B); 176000 bytes in all, 166912 bytes per block allowed
// CHECK:      hint: use fewer pipeline stages or smaller tiles

// -----

// The same arrays fit sm_90's 227 KiB (232448 bytes); a tirx.alloc's cuda.align is kept.
tirx.kernel @fits_sm90(%X: !tirx.buffer<1024xf32, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %t = cuda.thread_idx x : index
  %a = tirx.alloc {cuda.align = 1024 : i64} : !tirx.buffer<20000xf32, shared>
  %b = tirx.alloc : !tirx.buffer<24000xf32, shared>
  %x = cuda.load %X, %t : !tirx.buffer<1024xf32, global>, index -> f32
  cuda.store %a, %t, %x : !tirx.buffer<20000xf32, shared>, index, f32
  cuda.store %b, %t, %x : !tirx.buffer<24000xf32, shared>, index, f32
  tirx.return
}

// CHECK-LABEL: tirx.kernel @fits_sm90
// CHECK-SAME:  attributes {cuda.dynamic_shared_bytes = 176256 : i64}
// CHECK-NEXT:  %t = cuda.thread_idx x : index
// CHECK-NEXT:  %a = cuda.dynamic_shared offset 96256 align 1024 : !tirx.buffer<20000xf32, shared.dyn>
// CHECK-NEXT:  %b = cuda.dynamic_shared offset 0 align 128 : !tirx.buffer<24000xf32, shared.dyn>

// -----

// A shared tile that still has its layout is tile-level IR: run dispatch and lower-layout first.
tirx.kernel @tile_level(%X: !tirx.buffer<8x64xf32, global>) grid [1] threads [128] target "cuda -arch=sm_80" {
  %s = tirx.alloc : !tirx.buffer<8x64xf32, shared, S[(8,64):(64,1)]>
  tirx.return
}

// CHECK: allocate_shared.mlir:[[# @LINE - 4]]:3: error: 'tirx.alloc' op [CUDA-PASS-ORDER] shared tile !tirx.buffer<8x64xf32, shared, S[8,64]> still has its layout; cuda-allocate-shared places physical arrays
// CHECK: hint: run tirx-dispatch and cuda-lower-layout first
