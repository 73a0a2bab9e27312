// An NVSHMEM ring: every PE sends its 1024 floats to the next PE (my_pe + 1 mod n_pes) with one
// block-wide put-with-signal (the data lands in the symmetric buffer Recv, then the signal word
// is incremented), and waits until its own signal says the previous PE's data has arrived.
// Send, Recv and Sig are symmetric (nvshmem_malloc) buffers; compile with -rdc=true and link
// libnvshmem_device.
//   tirx-opt -t cuda examples/cuda/nvshmem_ring.mlir
tirx.kernel @nvshmem_ring(%Send: !tirx.buffer<1024xf32, global>)
    -> (%Recv: !tirx.buffer<1024xf32, global>, %Sig: !tirx.buffer<1xi64, global>)
    grid [1] threads [256] target "cuda -arch=sm_90a" {
  %n = arith.constant 1024 : index
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1 : i64
  %me = nvshmem.my_pe : i32
  %np = nvshmem.n_pes : i32
  %me1 = arith.addi %me, %c1 : i32
  %next = arith.remsi %me1, %np : i32
  nvshmem.put_signal add %Recv, %Send, %n, %Sig, %one, %next group block : !tirx.buffer<1024xf32, global>, !tirx.buffer<1024xf32, global>, index, !tirx.buffer<1xi64, global>, i64, i32
  %seen = nvshmem.signal_wait_until ge %Sig, %one : !tirx.buffer<1xi64, global>, i64 -> i64
  nvshmem.quiet
  tirx.return
}
