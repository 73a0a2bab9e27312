// An mbarrier producer/consumer hand-off in one block of two warps. Thread 0 initialises the
// barrier for 32 arrivals; warp 0 (the producer) writes 32 values to shared memory and each
// of its lanes arrives (release semantics); warp 1 (the consumer) spins on
// mbarrier.test_wait.parity for phase 0 (acquire), then reads the values.
//   tirx-opt -t cuda examples/cuda/mbarrier_pipeline.mlir
tirx.kernel @mbarrier_pipeline(%In: !tirx.buffer<32xf32, global>)
    -> (%Out: !tirx.buffer<32xf32, global>) grid [1] threads [64] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %arrivals = arith.constant 32 : i32
  %phase = arith.constant 0 : i32
  %true = arith.constant true
  %two = arith.constant 2.0 : f32
  %data = cuda.shared_alloc : !tirx.buffer<32xf32, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pbar = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    ptx.mbarrier_init "shared" [%pbar], %arrivals : (i32, i32) -> ()
  }
  cuda.sync_threads
  %w = cuda.warp_id : index
  %lane = cuda.lane_id : index
  %producer = arith.cmpi eq, %w, %c0 : index
  scf.if %producer {
    %x = cuda.load %In, %lane : !tirx.buffer<32xf32, global>, index -> f32
    %y = arith.mulf %x, %two : f32
    cuda.store %data, %lane, %y : !tirx.buffer<32xf32, shared>, index, f32
    %state = ptx.mbarrier_arrive "shared" [%pbar] : (i32) -> i64
  } else {
    scf.while () : () -> () {
      %done = ptx.mbarrier_test_wait_parity "shared" [%pbar], %phase : (i32, i32) -> i1
      %waiting = arith.xori %done, %true : i1
      scf.condition(%waiting)
    } do {
      scf.yield
    }
    %v = cuda.load %data, %lane : !tirx.buffer<32xf32, shared>, index -> f32
    cuda.store %Out, %lane, %v : !tirx.buffer<32xf32, global>, index, f32
  }
  tirx.return
}
