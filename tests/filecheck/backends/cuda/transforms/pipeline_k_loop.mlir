// RUN: tirx-opt %s --split-input-file -p 'cuda-pipeline-k-loop{num_stages=3}' | filecheck %s
// cuda-pipeline-k-loop: a loop staging a global tile in shared memory (a vector load feeding a
// shared store) becomes a 3-stage cp.async ring: 2 stages issued before the loop, one wait and
// one barrier per iteration, the next-but-one stage issued ahead, the consumer reading stage
// i % 3; the copy's own barriers are gone.

tirx.kernel @staged(%In: !tirx.buffer<4096xf32, global>) -> (%Out: !tirx.buffer<256xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %s = cuda.shared_alloc align 16 : !tirx.buffer<1024xf32, shared>
  %t = cuda.thread_idx x : index
  %mine = arith.muli %t, %c4 : index
  %sum = scf.for %k = %c0 to %c4096 step %c1024 iter_args(%a = %zero) -> (f32) {
    %g = arith.addi %k, %mine : index
    %v = cuda.load %In, %g : !tirx.buffer<4096xf32, global>, index -> vector<4xf32>
    cuda.store %s, %mine, %v : !tirx.buffer<1024xf32, shared>, index, vector<4xf32>
    cuda.sync_threads
    %x = cuda.load %s, %t : !tirx.buffer<1024xf32, shared>, index -> f32
    %y = arith.addf %a, %x : f32
    scf.yield %y : f32
  }
  cuda.store %Out, %t, %sum : !tirx.buffer<256xf32, global>, index, f32
  tirx.return
}

// CHECK-LABEL: @staged
// CHECK:       %[[RING:.*]] = cuda.shared_alloc align 16 : !tirx.buffer<3072xf32, shared>
// CHECK:       ptx.cp_async "cg.shared" {{.*}}, 16
// CHECK-NEXT:  ptx.cp_async_commit_group
// CHECK:       ptx.cp_async "cg.shared" {{.*}}, 16
// CHECK-NEXT:  ptx.cp_async_commit_group
// CHECK:       scf.for
// CHECK:         ptx.cp_async_wait_group 1
// CHECK-NEXT:    cuda.sync_threads
// CHECK:         scf.if
// CHECK:           ptx.cp_async "cg.shared"
// CHECK:         ptx.cp_async_commit_group
// CHECK-NOT:     cuda.sync_threads
// CHECK:         cuda.load %[[RING]]
// CHECK:       ptx.cp_async_wait_group 0

// -----

// A loop whose staged array is read after the loop is left as it is.

tirx.kernel @read_after(%In: !tirx.buffer<4096xf32, global>) -> (%Out: !tirx.buffer<256xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %s = cuda.shared_alloc align 16 : !tirx.buffer<1024xf32, shared>
  %t = cuda.thread_idx x : index
  %mine = arith.muli %t, %c4 : index
  scf.for %k = %c0 to %c4096 step %c1024 {
    %g = arith.addi %k, %mine : index
    %v = cuda.load %In, %g : !tirx.buffer<4096xf32, global>, index -> vector<4xf32>
    cuda.store %s, %mine, %v : !tirx.buffer<1024xf32, shared>, index, vector<4xf32>
  }
  cuda.sync_threads
  %x = cuda.load %s, %t : !tirx.buffer<1024xf32, shared>, index -> f32
  cuda.store %Out, %t, %x : !tirx.buffer<256xf32, global>, index, f32
  tirx.return
}

// CHECK-LABEL: @read_after
// CHECK-NOT:   cp_async
// CHECK:       cuda.store %s, %mine, %v

// -----

// f16 tiles staged by tirx.copy's packed 16-byte moves (ld.global.v4.b32 feeding
// st.shared.v4.b32) become 16-byte cp.async.cg, not 8-byte ones; the ring loop is marked
// cuda.nounroll (the printers' unroll pragma).

tirx.kernel @staged_f16(%In: !tirx.buffer<8192xf16, global>) -> (%Out: !tirx.buffer<128xf16, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c1024 = arith.constant 1024 : index
  %c8192 = arith.constant 8192 : index
  %s = cuda.shared_alloc align 16 : !tirx.buffer<1024xf16, shared>
  %t = cuda.thread_idx x : index
  %mine = arith.muli %t, %c8 : index
  scf.for %k = %c0 to %c8192 step %c1024 {
    %g = arith.addi %k, %mine : index
    %ga = cuda.address %In, %g : !tirx.buffer<8192xf16, global>, index -> i64
    %w0, %w1, %w2, %w3 = ptx.ld "global.v4.b32" [%ga] : (i64) -> (i32, i32, i32, i32)
    %sa = cuda.address %s, %mine : !tirx.buffer<1024xf16, shared>, index -> i32
    ptx.st "shared.v4.b32" [%sa], {%w0, %w1, %w2, %w3} : (i32, i32, i32, i32, i32) -> ()
    cuda.sync_threads
    %x = cuda.load %s, %mine : !tirx.buffer<1024xf16, shared>, index -> f16
    cuda.store %Out, %t, %x : !tirx.buffer<128xf16, global>, index, f16
  }
  tirx.return
}

// CHECK-LABEL: @staged_f16
// CHECK:       cuda.shared_alloc align 16 : !tirx.buffer<3072xf16, shared>
// CHECK:       ptx.cp_async "cg.shared" [%{{.*}}], [%{{.*}}], 16 : (i32, i64) -> ()
// CHECK:       ptx.cp_async "cg.shared" [%{{.*}}], [%{{.*}}], 16 : (i32, i64) -> ()
// CHECK:       scf.for
// CHECK:           ptx.cp_async "cg.shared" [%{{.*}}], [%{{.*}}], 16 : (i32, i64) -> ()
// CHECK-NOT:   ptx.cp_async "ca.shared"
// CHECK:       } {cuda.nounroll}
// CHECK-NEXT:  ptx.cp_async_wait_group 0
