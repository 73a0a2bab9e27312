// RUN: TIRX_ROUNDTRIP
// RUN: TIRX_GENERIC_ROUNDTRIP

// Every nvshmem op in custom form round-trips, and so does the generic form (CHECK-GENERIC).

%g, %l, %s, %sig, %iv, %n, %pe, %v, %w = "test.op"() : () -> (!tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, shared>, !tirx.buffer<1xi64, global>, !tirx.buffer<1xi32, global>, index, i32, i64, i32)
%me = nvshmem.my_pe : i32
%np = nvshmem.n_pes : i32
nvshmem.put %g, %l, %n, %pe group warp nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, i32
nvshmem.get %s, %g, %n, %pe : !tirx.buffer<1024xf32, shared>, !tirx.buffer<1024xf32, global>, index, i32
nvshmem.put_signal add %g, %s, %n, %sig, %v, %pe group block : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, shared>, index, !tirx.buffer<1xi64, global>, i64, i32
nvshmem.signal_op set %sig, %v, %pe : !tirx.buffer<1xi64, global>, i64, i32
%seen = nvshmem.signal_wait_until ge %sig, %v : !tirx.buffer<1xi64, global>, i64 -> i64
nvshmem.wait_until eq %iv, %w : !tirx.buffer<1xi32, global>, i32
nvshmem.barrier_all group block
nvshmem.sync_all
nvshmem.quiet
nvshmem.fence

// CHECK: %me = nvshmem.my_pe : i32
// CHECK-NEXT: %np = nvshmem.n_pes : i32
// CHECK-NEXT: nvshmem.put %g, %l, %n, %pe group warp nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, i32
// CHECK-NEXT: nvshmem.get %s, %g, %n, %pe : !tirx.buffer<1024xf32, shared>, !tirx.buffer<1024xf32, global>, index, i32
// CHECK-NEXT: nvshmem.put_signal add %g, %s, %n, %sig, %v, %pe group block : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, shared>, index, !tirx.buffer<1xi64, global>, i64, i32
// CHECK-NEXT: nvshmem.signal_op set %sig, %v, %pe : !tirx.buffer<1xi64, global>, i64, i32
// CHECK-NEXT: %seen = nvshmem.signal_wait_until ge %sig, %v : !tirx.buffer<1xi64, global>, i64 -> i64
// CHECK-NEXT: nvshmem.wait_until eq %iv, %w : !tirx.buffer<1xi32, global>, i32
// CHECK-NEXT: nvshmem.barrier_all group block
// CHECK-NEXT: nvshmem.sync_all
// CHECK-NEXT: nvshmem.quiet
// CHECK-NEXT: nvshmem.fence
// CHECK-GENERIC: %me = "nvshmem.my_pe"() : () -> i32
// CHECK-GENERIC: %np = "nvshmem.n_pes"() : () -> i32
// CHECK-GENERIC: "nvshmem.put"(%g, %l, %n, %pe) <{group = "warp", nbi}> : (!tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, i32) -> ()
// CHECK-GENERIC: "nvshmem.get"(%s, %g, %n, %pe) : (!tirx.buffer<1024xf32, shared>, !tirx.buffer<1024xf32, global>, index, i32) -> ()
// CHECK-GENERIC: "nvshmem.put_signal"(%g, %s, %n, %sig, %v, %pe) <{signal_op = "add", group = "block"}> : (!tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, shared>, index, !tirx.buffer<1xi64, global>, i64, i32) -> ()
// CHECK-GENERIC: "nvshmem.signal_op"(%sig, %v, %pe) <{signal_op = "set"}> : (!tirx.buffer<1xi64, global>, i64, i32) -> ()
// CHECK-GENERIC: %seen = "nvshmem.signal_wait_until"(%sig, %v) <{cmp = "ge"}> : (!tirx.buffer<1xi64, global>, i64) -> i64
// CHECK-GENERIC: "nvshmem.wait_until"(%iv, %w) <{cmp = "eq"}> : (!tirx.buffer<1xi32, global>, i32) -> ()
// CHECK-GENERIC: "nvshmem.barrier_all"() <{group = "block"}> : () -> ()
// CHECK-GENERIC: "nvshmem.sync_all"() : () -> ()
// CHECK-GENERIC: "nvshmem.quiet"() : () -> ()
// CHECK-GENERIC: "nvshmem.fence"() : () -> ()

// -----

// Inside a cuda kernel (on sm_90a): a ring put of one block's tile to the next PE, then a
// signal the next PE waits on.
tirx.kernel @ring(%src: !tirx.buffer<1024xf32, global>, %dst: !tirx.buffer<1024xf32, global>, %flag: !tirx.buffer<1xi64, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
  %n, %one = "test.op"() : () -> (index, i64)
  %me = nvshmem.my_pe : i32
  %np = nvshmem.n_pes : i32
  %next = "test.op"(%me, %np) : (i32, i32) -> i32
  nvshmem.put_signal set %dst, %src, %n, %flag, %one, %next group block nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32
  %seen = nvshmem.signal_wait_until eq %flag, %one : !tirx.buffer<1xi64, global>, i64 -> i64
  nvshmem.quiet
  tirx.return
}

// CHECK: tirx.kernel @ring(%src: !tirx.buffer<1024xf32, global>, %dst: !tirx.buffer<1024xf32, global>, %flag: !tirx.buffer<1xi64, global>) grid [1] threads [128] target "cuda -arch=sm_90a" {
// CHECK: %me = nvshmem.my_pe : i32
// CHECK-NEXT: %np = nvshmem.n_pes : i32
// CHECK: nvshmem.put_signal set %dst, %src, %n, %flag, %one, %next group block nbi : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32
// CHECK-NEXT: %seen = nvshmem.signal_wait_until eq %flag, %one : !tirx.buffer<1xi64, global>, i64 -> i64
// CHECK-NEXT: nvshmem.quiet
// CHECK-GENERIC: %me = "nvshmem.my_pe"() : () -> i32
// CHECK-GENERIC: %np = "nvshmem.n_pes"() : () -> i32
// CHECK-GENERIC: "nvshmem.put_signal"(%dst, %src, %n, %flag, %one, %next) <{signal_op = "set", group = "block", nbi}> : (!tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32) -> ()
// CHECK-GENERIC: %seen = "nvshmem.signal_wait_until"(%flag, %one) <{cmp = "eq"}> : (!tirx.buffer<1xi64, global>, i64) -> i64
// CHECK-GENERIC: "nvshmem.quiet"() : () -> ()
